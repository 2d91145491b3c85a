"""The engine's file is its sources: rebuilt here from ``engine/*.c`` with the pinned
zig it is byte for byte the committed ``engine.wasm`` (so ``pip install`` needs no
compiler and nobody need trust a binary); its tables are what the Python reference
computes; it imports nothing (the browser and wasmtime run it as it is); and the same
sources, built natively under the undefined-behaviour sanitizer, survive whole deals,
every entry point asked properly (the rule policy, the learned policy, the lookahead,
the solver, the duel) and a stream of nonsense at each of them."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import wasmtime

from king.bots import engine

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"


def _load(name: str) -> ModuleType:
    """A script of ``engine/`` as a module (it is no package of its own)."""
    spec = importlib.util.spec_from_file_location(f"engine_{name}", ENGINE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_committed_engine_is_its_sources_built_byte_for_byte(tmp_path: Path) -> None:
    build = _load("build")
    digest = build.build_wasm(tmp_path / "engine.wasm")
    committed = engine.WASM.read_bytes()
    assert (tmp_path / "engine.wasm").read_bytes() == committed, (
        "engine.wasm is not what engine/*.c build to: run python engine/build.py"
    )
    assert digest == hashlib.sha256(committed).hexdigest()
    assert engine.WASM_SHA256.read_text(encoding="utf-8").split()[0] == digest


def test_the_tables_are_the_python_references() -> None:
    generate = _load("generate")
    assert (ENGINE / "tables.h").read_text(encoding="utf-8") == generate.tables(), (
        "engine/tables.h is stale: run python engine/generate.py"
    )


def test_the_engine_imports_nothing_and_its_memory_is_fixed() -> None:
    module = wasmtime.Module(wasmtime.Engine(), engine.WASM.read_bytes())
    assert list(module.imports) == []
    exports = {export.name: export.type for export in module.exports}
    memory = exports["memory"]
    assert isinstance(memory, wasmtime.MemoryType)
    assert memory.limits.min == memory.limits.max == 512  # 32 MiB, never grown
    assert {"king_io", "king_io_words", "king_version", "king_rule_card"} <= set(exports)


@pytest.mark.slow
def test_the_sources_run_clean_under_the_undefined_behaviour_sanitizer(tmp_path: Path) -> None:
    build = _load("build")
    driver = tmp_path / "driver"
    build.build_sanitized(driver)
    run = subprocess.run(
        [str(driver), "3000"], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    words = run.stdout.split()
    report = dict(zip(words[::2], map(int, words[1::2]), strict=True))
    assert report["deals"] == 3000 and report["nonsense"] == 3000
    # The sound calls were answered: about 16 a round (the rule policy, the learned
    # policy, the lookahead, the solver on an ending, the search bot's steps), fewer
    # when a deal ended early.
    assert report["answered"] > 14 * 3000
    # Nonsense at each of the 20 entry points was refused, some of it got through.
    assert 3000 < report["refused"] < 20 * 3000
    # The batched environment's 300 sets of 8 deals: reset, then 60 observations and
    # 60 steps each, every one answered.
    assert report["batched"] == 300 * (1 + 2 * 60)


@pytest.mark.slow
def test_the_build_script_checks_the_committed_file() -> None:
    run = subprocess.run(
        [sys.executable, str(ENGINE / "build.py"), "--check"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("same:")
