"""A complete external King bot (protocol ``king-bot/2``, docs/bot-protocol.md).

It declares the first legal choice and plays its lowest legal card, game after game in
one process.  Run it in the arena with:

    king arena --bots "cmd:python examples/my_bot.py,random,random,random"

``--one-game`` makes it a ``king-bot/1`` program: started again for every game.
"""

import json
import sys

RANKS = "23456789TJQKA"
PROTOCOL = "king-bot/1" if "--one-game" in sys.argv else "king-bot/2"


def answer(message: dict) -> dict | None:
    kind = message.get("type")
    if kind == "hello":
        return {"type": "hello", "protocol": PROTOCOL, "name": "lowest-card"}
    if kind == "declare":
        return {"id": message["id"], "declare": message["legal"][0]}
    if kind == "play":
        lowest = min(message["legal"], key=lambda card: RANKS.index(card[0]))
        return {"id": message["id"], "card": lowest}
    return None  # "game" (a new game, our seat in it) and "over" need no answer


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "bye":
            break
        reply = answer(message)
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
