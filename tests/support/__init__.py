"""What the tests share: games, services, clients of the server and the page, the
terminal game, hostile documents.  Helpers live here, never in a test module."""

from pathlib import Path

#: The checkout the tests run in (its docs, examples, benchmarks and scripts).
ROOT = Path(__file__).resolve().parents[2]
#: The tests' own files (old databases, dumps).
DATA = ROOT / "tests" / "data"
