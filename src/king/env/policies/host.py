"""Serve a saved policy as an external bot (``king-bot/1``, docs/bot-protocol.md), so
any ``king arena`` can measure it as it is::

    king arena --deals 200 \
        --bots "cmd:python -m king.env.policies.host policy.npz,random,random,random"

The host sends each request with the seat's view as JSON; :func:`view_from_json` turns
it back into a :class:`~king.view.SeatView`, so the policy sees exactly the observation
the environments would have given it.  Only numpy and the core are imported, to start
fast (the host starts one process per game or deal).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

from king.cards import Card, CardSet
from king.deal import Trick
from king.env.policies.base import PolicyBot
from king.env.policies.files import PolicyFileError
from king.env.policies.loading import load_policy
from king.errors import KingError
from king.game import DealResult, Phase
from king.jsontext import is_int, loads
from king.rules import NEGATIVE_CONTRACTS, Contract, Declaration, Rules
from king.texts import quoted
from king.view import SeatView

__all__ = ["HostMessageError", "main", "serve", "view_from_json"]

PROTOCOL = "king-bot/1"


def _int(value: object) -> int:
    """A JSON integer, strictly: ``true``, ``1.0`` and ``"1"`` are refused."""
    if not is_int(value):
        raise TypeError(f"{quoted(value)} is not an integer")
    return value


def _four(values: Sequence[int]) -> tuple[int, int, int, int]:
    a, b, c, d = (_int(v) for v in values)
    return a, b, c, d


def _declaration(contract: str | None, trump: str | None) -> Declaration | None:
    if contract is None:
        return None
    if trump is not None:
        return Declaration.parse(f"trumps {trump}")
    return Declaration(Contract.parse(contract))


def view_from_json(view: Mapping[str, Any], legal: Sequence[str] = ()) -> SeatView:
    """Rebuild a :class:`SeatView` from :meth:`SeatView.to_json` and the request's
    ``legal`` list (cards while playing, declarations while declaring)."""
    phase = Phase(view["phase"])
    declaring = phase is Phase.DECLARING
    legal_cards = CardSet() if declaring else CardSet.of(list(legal))
    legal_declarations = tuple(Declaration.parse(d) for d in legal) if declaring else ()
    counts = {str(k): _int(v) for k, v in view["contract_counts"].items()}
    tricks = []
    for trick in view["tricks"]:
        a, b, c, d = (Card.parse(card) for card in trick["cards"])
        tricks.append(Trick(_int(trick["leader"]), (a, b, c, d), _int(trick["winner"])))
    results = []
    for number, result in enumerate(view["results"]):
        declaration = _declaration(result["contract"], result.get("trump"))
        assert declaration is not None
        results.append(
            DealResult(number, _int(result["declarer"]), declaration, _four(result["points"]))
        )
    leader = view.get("leader")
    to_act = view.get("to_act")
    return SeatView(
        seat=_int(view["seat"]),
        rules=Rules.from_spec(view["rules"]),
        phase=phase,
        deal_number=_int(view["deal"]),
        declarer=_int(view["declarer"]),
        declaration=_declaration(view.get("contract"), view.get("trump")),
        hand=CardSet.of(view["hand"]),
        to_act=None if to_act is None else _int(to_act),
        legal_cards=legal_cards,
        legal_declarations=legal_declarations,
        leader=None if leader is None else _int(leader),
        current_trick=tuple((_int(p["seat"]), Card.parse(p["card"])) for p in view["trick"]),
        tricks=tuple(tricks),
        deal_points=_four(view["points"]),
        tricks_won=_four(view["tricks_won"]),
        totals=_four(view["totals"]),
        trumps_declared=_four(view["trumps_declared"]),
        negatives_declared=_four(view["negatives_declared"]),
        contract_counts=tuple((c, counts.get(c.value, 0)) for c in NEGATIVE_CONTRACTS),
        results=tuple(results),
    )


class HostMessageError(KingError, ValueError):
    """A line from the host that is not a ``king-bot/1`` request this bot can read."""


def serve(bot: PolicyBot, lines: IO[str], out: IO[str]) -> None:
    """Answer the host's requests on ``lines`` until ``bye`` or the end of input."""

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            message = loads(line)
            if not isinstance(message, dict):
                raise TypeError(f"a message is a JSON object, not {type(message).__name__}")
            kind = message.get("type")
            if kind == "bye":
                return
            if kind == "hello":
                send({"type": "hello", "protocol": PROTOCOL, "name": bot.name})
            elif kind in ("declare", "play") and not message["legal"]:
                raise ValueError(f"a {kind} request must list at least one legal move")
            elif kind == "declare":
                view = view_from_json(message["view"], message["legal"])
                send({"id": message["id"], "declare": str(bot.declare(view))})
            elif kind == "play":
                view = view_from_json(message["view"], message["legal"])
                send({"id": message["id"], "card": str(bot.play(view))})
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
            detail = f"{type(error).__name__}: {error}" if isinstance(error, KeyError) else error
            raise HostMessageError(
                f"line {number} from the host cannot be read: {detail}"
            ) from None


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m king.env.policies.host PATH.npz [--sample SEED]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        print("usage: python -m king.env.policies.host PATH.npz [--sample SEED]", file=sys.stderr)
        return 2
    path = args[0]
    sample = len(args) >= 3 and args[1] == "--sample"
    try:
        policy = load_policy(path, sample=sample, seed=int(args[2]) if sample else 0)
    except (PolicyFileError, ValueError) as error:
        print(f"policy_bot: {error}", file=sys.stderr)
        return 2
    name = "policy:" + path.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        serve(PolicyBot(policy, name=name), sys.stdin, sys.stdout)
    except HostMessageError as error:
        print(f"policy_bot: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
