"""Every error king raises on purpose has one base, :class:`king.errors.KingError`, and
keeps its built-in kind (``ValueError`` for bad input, ``RuntimeError`` for a service):
found by importing every module of the package and looking at what it defines."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import king
from king.errors import KingError

#: The modules that run only in the browser's offline game (under Pyodide); they define
#: no error of their own (a test of the page runs them).
BROWSER_ONLY = {"king.bots.engine.browser"}


def defined_errors() -> list[type[BaseException]]:
    """The exception classes each module of king defines (not the private ones a module
    uses to unwind its own loops)."""
    found = []
    for info in pkgutil.walk_packages(king.__path__, "king."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        if info.name in BROWSER_ONLY:  # imports the page's JavaScript (Pyodide's js)
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found.append(value)
    return found


def test_every_error_of_king_is_a_king_error_and_keeps_its_kind() -> None:
    errors = [e for e in defined_errors() if e is not KingError]
    names = {e.__name__ for e in errors}  # the walk reached the core, the bots, the server
    assert {"CardParseError", "BotSpecError", "StoreLockedError", "SavedGameError"} <= names
    assert [e.__name__ for e in errors if not issubclass(e, KingError)] == []
    plain = [e.__name__ for e in errors if not issubclass(e, ValueError | RuntimeError)]
    assert plain == [], "each is also ValueError (bad input) or RuntimeError (a service)"
