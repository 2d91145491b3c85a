"""An external King bot whose cards come from a torch network (``king-bot/2``): the
pattern for serving a model trained with torch (docs/bot-protocol.md, docs/rl.md).

Importing torch takes seconds, so the program speaks ``king-bot/2``: the arena starts it
once per seat and worker and sends it game after game.  The network here is small and
untrained (weights from a fixed seed, or ``--model FILE`` saved with ``torch.save`` of
its ``state_dict``): replace ``features`` and the network with your own.

    king arena --bots "cmd:python examples/torch_bot.py,rule,rule,rule" --deals 20

``--one-game`` makes it a ``king-bot/1`` program, started again for every game (to
measure what that costs).
"""

import json
import sys

import torch

RANKS = "23456789TJQKA"
SUITS = "SHDC"
CONTRACTS = ["trumps", "no-tricks", "no-hearts", "no-queens", "no-boys", "no-king", "no-last-two"]
INPUTS = 52 + 52 + len(CONTRACTS) + 4
PROTOCOL = "king-bot/1" if "--one-game" in sys.argv else "king-bot/2"


def card_index(card: str) -> int:
    return SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def features(view: dict) -> torch.Tensor:
    """The hand, the cards of the current trick, the contract and the suit led."""
    x = torch.zeros(INPUTS)
    for card in view["hand"]:
        x[card_index(card)] = 1.0
    for played in view["trick"]:
        x[52 + card_index(played["card"])] = 1.0
    if view["contract"] in CONTRACTS:
        x[104 + CONTRACTS.index(view["contract"])] = 1.0
    if view["trick"]:
        x[104 + len(CONTRACTS) + SUITS.index(view["trick"][0]["card"][1])] = 1.0
    return x


def network() -> torch.nn.Module:
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(INPUTS, 64), torch.nn.ReLU(), torch.nn.Linear(64, 52))
    if "--model" in sys.argv:
        net.load_state_dict(torch.load(sys.argv[sys.argv.index("--model") + 1]))
    return net.eval()


def main() -> None:
    torch.set_num_threads(1)
    net = network()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "bye":
            break
        if kind == "hello":
            reply = {"type": "hello", "protocol": PROTOCOL, "name": "torch-example"}
        elif kind == "declare":
            reply = {"id": message["id"], "declare": message["legal"][0]}
        elif kind == "play":
            with torch.no_grad():
                scores = net(features(message["view"]))
            best = max(message["legal"], key=lambda card: float(scores[card_index(card)]))
            reply = {"id": message["id"], "card": best}
        else:
            continue  # "game" and "over" need no answer
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
