"""The engine: the C sources of ``engine/`` built once to WebAssembly (``engine.wasm``
here, checked against its sha256), run in CPython by wasmtime.

The same file runs in the browser's worker for the offline game, so there is one engine
wherever King plays: the rule policy and its playouts (:mod:`.rule`), the learned
policy (:mod:`.net`), the lookahead (:mod:`.lookahead`), the exact solver
(:mod:`.solver`) and the policy duel of ``scripts/policy_duel.py`` (:mod:`.duel`).  Each
thread has its own instance (:mod:`.instance`); an entry point over many worlds is split
across ``threads`` threads, each on its own instance, and its answers do not depend on
how it was split.  The Python modules it was ported from (:mod:`king.bots.position`,
:mod:`king.bots.rule.play`, :mod:`king.bots.search.worlds`, :mod:`king.bots.search.lookahead`,
:mod:`king.bots.net.play`, :mod:`king.bots.search.solver`) stay as the readable reference the
tests hold it to.
"""

from __future__ import annotations

import sys

from king.bots.engine import steps
from king.bots.engine.refusals import EngineError

if sys.platform != "emscripten":  # CPython: wasmtime and numpy
    from king.bots.engine.instance import WASM, WASM_SHA256, Instance, instance
    from king.bots.engine.lookahead import lookahead_card, lookahead_rollouts
    from king.bots.engine.net import (
        net_card,
        net_declaration_values,
        net_likelihoods,
        net_rollouts,
    )
    from king.bots.engine.rule import (
        deal_worlds,
        rule_card,
        rule_declaration_values,
        rule_likelihoods,
        rule_rollouts,
        sample_worlds,
    )
    from king.bots.engine.solver import enumerate_value, solve, solve_moves, solve_sized

__all__ = [
    "WASM",
    "WASM_SHA256",
    "EngineError",
    "Instance",
    "deal_worlds",
    "enumerate_value",
    "instance",
    "lookahead_card",
    "lookahead_rollouts",
    "net_card",
    "net_declaration_values",
    "net_likelihoods",
    "net_rollouts",
    "platform",
    "rule_card",
    "rule_declaration_values",
    "rule_likelihoods",
    "rule_rollouts",
    "sample_worlds",
    "solve",
    "solve_moves",
    "solve_sized",
    "steps",
]


def platform() -> steps.Platform:
    """Where the search bot's steps run: wasmtime here, the page's WebAssembly in the
    browser's offline game (:mod:`king.bots.engine.browser`)."""
    if sys.platform == "emscripten":
        from king.bots.engine.browser import BROWSER

        return BROWSER
    from king.bots.engine.instance import WASMTIME

    return WASMTIME
