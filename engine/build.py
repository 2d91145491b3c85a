"""Build the engine: ``engine/*.c`` to ``src/king/bots/engine.wasm`` (and its sha256),
with the C compiler of PyPI's ``ziglang`` (pinned in ``pyproject.toml``'s ``engine``
extra), so that anyone can rebuild it byte for byte; or natively with a test driver,
for the test that runs the same sources under the undefined-behaviour sanitizer.

    python engine/build.py            # rebuild the .wasm and its .sha256
    python engine/build.py --check    # rebuild into a temporary folder, compare
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Every C file here, in one order.
SOURCES = tuple(sorted(path.name for path in HERE.glob("*.c")))
WASM = HERE.parent / "src" / "king" / "bots" / "engine" / "engine.wasm"
#: 32 MiB, fixed: the exchange area, the solver's table and the stack, never grown.
MEMORY = 32 * 1024 * 1024
COMMON = ("-std=c11", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror")
WASM_FLAGS = (
    "-target", "wasm32-wasi", "-mexec-model=reactor", "-Wl,--no-entry",
    "-Wl,-z,stack-size=1048576", f"-Wl,--initial-memory={MEMORY}",
    f"-Wl,--max-memory={MEMORY}", "-Wl,--strip-debug",
)  # fmt: skip


def zig_cc(*args: str) -> None:
    """Run ``zig cc`` (from PyPI's ziglang) in ``engine/`` with ``args``."""
    command = [sys.executable, "-m", "ziglang", "cc", *args]
    subprocess.run(command, cwd=HERE, check=True)


def build_wasm(out: Path) -> str:
    """Build the engine to ``out``; its sha256."""
    zig_cc(*COMMON, *WASM_FLAGS, *SOURCES, "-o", str(out))
    return hashlib.sha256(out.read_bytes()).hexdigest()


#: The native build of the tests: every C file here and the driver, under the
#: undefined-behaviour sanitizer, stopping at the first finding.
SANITIZED = ("-O1", "-g", "-fsanitize=undefined", "-fno-sanitize-recover=all")


def build_sanitized(out: Path) -> None:
    """Build the engine's sources with ``check/driver.c`` natively, under the
    undefined-behaviour sanitizer, into the executable ``out``."""
    zig_cc(*COMMON, *SANITIZED, *SOURCES, "check/driver.c", "-lm", "-o", str(out))


#: How a variant of rule_play.c is compiled beside the engine's own: its entry points
#: renamed (its static helpers are its own anyway), duel.c playing it.
VARIANT_WRAPPER = """/* A variant of rule_play.c, its entry points renamed (engine/build.py). */
#define rule_card variant_rule_card
#define rule_playout variant_rule_playout
#define best_reply variant_best_reply
#include "{path}"
"""


def build_variant(rule_play: Path, out: Path) -> None:
    """Build the engine with ``rule_play`` (an edited copy of ``engine/rule_play.c``)
    as the challenger of ``king_duel`` (scripts/policy_duel.py) into ``out``."""
    text = rule_play.read_text(encoding="utf-8")
    if "int rule_card(" not in text:
        raise ValueError(f"{rule_play}: not a copy of engine/rule_play.c (no rule_card)")
    with tempfile.TemporaryDirectory() as folder:
        wrapper = Path(folder) / "variant.c"
        wrapper.write_text(VARIANT_WRAPPER.format(path=rule_play.resolve()), encoding="utf-8")
        zig_cc(
            *COMMON, *WASM_FLAGS, "-DKING_VARIANT", f"-I{HERE}", *SOURCES, str(wrapper),
            "-o", str(out),
        )  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    check = parser.parse_args().check
    if check:
        with tempfile.TemporaryDirectory() as folder:
            digest = build_wasm(Path(folder) / "engine.wasm")
        kept = WASM.with_suffix(".wasm.sha256").read_text(encoding="utf-8").split()[0]
        same = digest == kept == hashlib.sha256(WASM.read_bytes()).hexdigest()
        print(f"{'same' if same else 'DIFFERENT'}: built {digest}, committed {kept}")
        return 0 if same else 1
    digest = build_wasm(WASM)
    WASM.with_suffix(".wasm.sha256").write_text(f"{digest}  engine.wasm\n", encoding="utf-8")
    print(f"{WASM}: {WASM.stat().st_size} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
