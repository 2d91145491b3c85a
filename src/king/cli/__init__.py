"""The ``king`` command line, one module per command, put together in
:mod:`king.cli.app`; the options several commands share are declared once in
:mod:`king.cli.options`.

Every command catches the errors a user can cause and prints one clear line: no
traceback ever reaches the user.
"""

from __future__ import annotations

from king.cli.app import app, run
from king.cli.local import main

__all__ = ["app", "main", "run"]
