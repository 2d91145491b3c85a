"""The project's scripts (``scripts/NAME.py``), loaded as modules for their tests."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.support import ROOT


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module (registered in ``sys.modules``, where a script's
    dataclasses and pickling look it up); loaded once."""
    key = f"king_scripts_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module
