"""Shared helpers for the tests."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from king.game import Game, Phase
from king.rules import Rules

#: Debian's Chromium, the only browser the tests drive (nothing is downloaded).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

#: The project's copies of the example records of RECORD.md.
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def play_random_game(rules: Rules, seed: int) -> Game:
    """A whole game with uniformly random legal declarations and plays."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        if game.phase is Phase.DECLARING:
            game.declare(rng.choice(game.allowed_declarations()))
        else:
            deal = game.deal
            assert deal is not None
            game.play(rng.choice(deal.legal_moves()))
    return game


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium through Playwright, with a throwaway HOME; one per test module."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        if os.environ.get("CI"):  # CI installs it (.ci/run): a skip there would hide a failure
            pytest.fail("Debian's chromium is missing: apt-get install -y chromium")
        pytest.skip("Debian's chromium is missing: apt-get install -y chromium")
    home = tmp_path_factory.mktemp("home")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            env={**os.environ, "HOME": str(home)},
        )
        yield chromium
        chromium.close()
