"""A progress bar on standard error, for the commands that run long."""

from __future__ import annotations

import sys

__all__ = ["Progress"]


class Progress:
    """A progress bar on standard error (a line every 10% when it is not a terminal)."""

    def __init__(self, total: int, unit: str) -> None:
        self.total = total
        self.unit = unit
        self.tty = sys.stderr.isatty()
        self.last_tenth = -1

    def update(self, done: int) -> None:
        if self.tty:
            width = 30
            filled = width * done // self.total
            bar = "#" * filled + "." * (width - filled)
            sys.stderr.write(f"\r[{bar}] {done}/{self.total} {self.unit}")
            if done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()
            return
        tenth = 10 * done // self.total
        if tenth != self.last_tenth:
            self.last_tenth = tenth
            sys.stderr.write(f"{done}/{self.total} {self.unit}\n")
            sys.stderr.flush()
