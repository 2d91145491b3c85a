"""The offline game in Debian's Chromium (Pyodide in a Web Worker, served by a real
``king serve`` on 127.0.0.1): how soon a phone that opens it has a dealt hand, how long a
rule bot's move takes in the browser, and how much memory the interpreter holds.

Reported, each the median of a few runs unless said:

* ``offline_cold_start_s``: a fresh browser profile (nothing cached) from opening
  ``/offline`` to the dealt hand on the table; ``offline_warm_start_s`` the same page
  opened again (the files in the browser's cache);
* ``offline_cold_start_throttled_s``: the cold start with the page's main thread slowed
  4x (Chrome's CPU throttling, which does not reach workers: the worker's part runs at
  full speed, so the rule moves are also measured on a throttled main thread, below);
* ``browser_rule_move_p50_ms``/``_p99_ms``/``_max_ms``: one rule bot decision (its view
  to its card or declaration) under Pyodide on a main thread slowed 4x, over whole games;
  ``browser_rule_move_unthrottled_p99_ms`` the same at full speed;
* ``browser_rule_move_vs_cpython``: the unthrottled median against the same decisions on
  CPython with numpy in this process (the baseline of this run);
* ``browser_hard_move_p50_ms``/``_p99_ms``, ``browser_expert_move_…``: a Hard and an
  Expert card (the search bot, its engine the page's own WebAssembly) in single deals of
  four such bots, unthrottled, against ``cpython_…_move_p50_ms``, the same cards here
  (wasmtime, Expert on its two threads; the browser runs one);
* ``offline_wasm_heap_mb``: the interpreter's WebAssembly memory once the game is dealt;
* ``offline_files_mb``/``offline_files_zipped_mb``: what a browser keeps for offline play,
  and what it adds to a wheel (deflated as a wheel is).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from king.server.site import offline

from .server_process import ServerProcess

CHROMIUM = Path("/usr/bin/chromium")
THROTTLE = 4
#: Whole games of rule bots timed in the browser (about 1,060 decisions each).
GAMES = 3

#: Rule bots play whole games; each decision is timed (Python's own clock).
TIMING = """
import json, time
from king.bots import make_bot
from king.game import Game
from king.rules import PRESETS

def timed_games(games):
    times = []
    for seed in range(games):
        game = Game(PRESETS["classic"], seed)
        bots = [make_bot("rule", seed=seed * 4 + seat) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act
            start = time.perf_counter()
            view = game.view(seat)
            action = bots[seat].act(view)
            times.append(time.perf_counter() - start)
            game.act(action)
    return times

def timed_level(level, deals):
    # The cards of single deals of four bots of a level (Hard and Expert: the search bot
    # and its engine), each timed.
    from king.rules import ALL_DECLARATIONS
    times = []
    for number in range(deals):
        game = Game(PRESETS["classic"], 100 + number, auto_deal=False)
        game.deal_cards()
        game.declare(ALL_DECLARATIONS[number % 10])
        bots = [make_bot(level, seed=number * 4 + seat) for seat in range(4)]
        while game.deal_number == 0:
            seat = game.to_act
            start = time.perf_counter()
            card = bots[seat].play(game.view(seat))
            times.append(time.perf_counter() - start)
            game.play_unchecked(card.id)
    return times
"""

#: Load Pyodide and the game's Python on the page's main thread; time the games there.
IN_PAGE = """async ([bundle, call, timing]) => {
  const { loadPyodide } = await import("/static/pyodide/pyodide.mjs");
  const python = await loadPyodide({ indexURL: "/static/pyodide/",
    lockFileURL: "/static/pyodide/pyodide-lock.json", packages: [] });
  const zip = await (await fetch(bundle)).arrayBuffer();
  python.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/bench" });
  python.runPython("import sys; sys.path.insert(0, '/home/pyodide/bench')");
  const engine = python.FS.readFile("/home/pyodide/bench/king/bots/engine/engine.wasm");
  python.registerJsModule("king_engine", { module: await WebAssembly.compile(engine) });
  python.runPython(timing);
  return python.runPython(call);
}"""


def _ms(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000, 3)


def _start(browser: Any, url: str, throttle: bool) -> tuple[float, float, int]:
    """Seconds from opening the offline game to its dealt hand in a fresh profile,
    again once cached, and the interpreter's memory."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    if throttle:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    times = []
    for _ in range(2):
        began = time.perf_counter()
        page.goto(f"{url}/offline?bot_pause=0")
        page.wait_for_selector("#hand .card", timeout=120000)
        times.append(time.perf_counter() - began)
    memory = int(page.evaluate("() => document.body.dataset.offlineMemory ?? 0"))
    context.close()
    return times[0], times[1], memory


def _browser_moves(
    browser: Any, url: str, throttle: bool, call: str = f"json.dumps(timed_games({GAMES}))"
) -> list[float]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/board")
    if throttle:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    bundle = f"/offline/king-{offline.build()}.zip"
    times: list[float] = json.loads(page.evaluate(IN_PAGE, [bundle, call, TIMING]))
    context.close()
    return times


def _cpython_moves(call: str = f"timed_games({GAMES})") -> list[float]:
    scope: dict[str, Any] = {}
    exec(TIMING, scope)  # the same games, timed the same way, on CPython with numpy
    times: list[float] = eval(call, scope)
    return times


#: The levels whose moves the engine makes, and the single deals each plays.
ENGINE_LEVELS = {"hard": 4, "expert": 2}


def _files() -> tuple[float, float]:
    paths = [offline.WEB_DIR / "pyodide" / name for name in offline.RUNTIME]
    raw = sum(p.stat().st_size for p in paths) + len(offline.bundle())
    zipped = sum(len(zlib.compress(p.read_bytes(), 6)) for p in paths) + len(offline.bundle())
    return round(raw / 1e6, 2), round(zipped / 1e6, 2)


def run(seconds: float = 2.0) -> dict[str, float]:
    """Measure the offline game (``seconds`` is not used: each figure is whole runs)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}  # the test extra is not installed: nothing to measure with
    if not CHROMIUM.exists():
        return {}
    raw, zipped = _files()
    with (
        tempfile.TemporaryDirectory() as home,
        ServerProcess(Path(home) / "king.db", bot_pause=0) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--headless"],
            env={**os.environ, "HOME": home},
        )
        starts = [_start(browser, server.url, throttle=False) for _ in range(3)]
        throttled = [_start(browser, server.url, throttle=True) for _ in range(3)]
        slow_moves = _browser_moves(browser, server.url, throttle=True)
        moves = _browser_moves(browser, server.url, throttle=False)
        levels = {
            level: _browser_moves(
                browser, server.url, False, f"json.dumps(timed_level('{level}', {deals}))"
            )
            for level, deals in ENGINE_LEVELS.items()
        }
        browser.close()
    baseline = _cpython_moves()
    engine_figures: dict[str, float] = {}
    for level, deals in ENGINE_LEVELS.items():
        here = _cpython_moves(f"timed_level('{level}', {deals})")
        engine_figures[f"browser_{level}_move_p50_ms"] = _ms(levels[level], 0.5)
        engine_figures[f"browser_{level}_move_p99_ms"] = _ms(levels[level], 0.99)
        engine_figures[f"cpython_{level}_move_p50_ms"] = _ms(here, 0.5)
    return {
        **engine_figures,
        "offline_cold_start_s": round(statistics.median(s[0] for s in starts), 2),
        "offline_warm_start_s": round(statistics.median(s[1] for s in starts), 2),
        "offline_cold_start_throttled_s": round(statistics.median(s[0] for s in throttled), 2),
        "browser_rule_move_p50_ms": _ms(slow_moves, 0.5),
        "browser_rule_move_p99_ms": _ms(slow_moves, 0.99),
        "browser_rule_move_max_ms": _ms(slow_moves, 1.0),
        "browser_rule_move_unthrottled_p99_ms": _ms(moves, 0.99),
        "browser_rule_move_vs_cpython": round(
            statistics.median(moves) / statistics.median(baseline), 3
        ),
        "offline_wasm_heap_mb": round(max(s[2] for s in starts) / 1e6, 1),
        "offline_files_mb": raw,
        "offline_files_zipped_mb": zipped,
    }
