"""``python -m king`` is the ``king`` command."""

from king.cli import run

run()
