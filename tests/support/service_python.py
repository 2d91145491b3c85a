"""A Python that another user (a service's) may run, whatever folder the checkout and its
virtual environment are in: this interpreter, its standard library and the environment's
packages, king's source among them, hard-linked into a folder every user may enter.

A checkout may sit in a folder only its owner may enter (``mktemp -d``, a home folder of
mode 700), and so may the interpreter a virtual environment points at (pyenv's under
``/root``); a service's user reaches neither.  Hard links give the same files (their
modes allow reading; only the folders above them did not) at no cost in space; where a
link cannot be made (another file system) the file is copied."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

__all__ = ["ServicePython", "service_python"]

_VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
#: Parts of the standard library no server imports.
_UNUSED = ("site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo")


class ServicePython:
    """The linked interpreter and the environment it needs (its shared library's folder)."""

    def __init__(self, folder: Path, executable: Path) -> None:
        self.folder = folder
        self.executable = executable

    @classmethod
    def at(cls, folder: Path) -> ServicePython:
        """The interpreter :func:`service_python` linked under ``folder``."""
        return cls(folder, folder / "bin" / _VERSION)

    def env(self) -> dict[str, str]:
        """What the interpreter's environment must hold: where its ``libpython`` is (the
        original's run path names a folder the user may not enter)."""
        return {"LD_LIBRARY_PATH": str(self.folder / "lib")}


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _tree(source: Path, target: Path, *ignored: str) -> None:
    shutil.copytree(
        source,
        target,
        symlinks=True,
        copy_function=_link,
        ignore=shutil.ignore_patterns(*ignored) if ignored else None,
        dirs_exist_ok=True,
    )


def _readable(folder: Path) -> None:
    """Every folder under ``folder`` (and itself) enterable and readable by all."""
    for path in (folder, *(p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())):
        path.chmod(0o755)


def _sources(site: Path, folder: Path) -> None:
    """The folders that ``.pth`` files in ``site`` put on the path from outside the
    environment (an editable install's source), linked under ``folder`` and named there."""
    for number, pth in enumerate(sorted(site.glob("*.pth"))):
        lines = pth.read_text(encoding="utf-8").splitlines()
        placed = []
        for line in lines:
            path = Path(line.strip())
            if line.strip() and not line.startswith(("import", "#")) and path.is_dir():
                target = folder / "sources" / f"{number}-{path.name}"
                _tree(path, target, "__pycache__")
                placed.append(str(target))
            else:
                placed.append(line)
        pth.unlink()  # a link to the original: never written through
        pth.write_text("\n".join(placed) + "\n", encoding="utf-8")


def service_python(folder: Path) -> ServicePython:
    """This interpreter with the running environment's packages, under ``folder``."""
    base = Path(sys.base_prefix)
    version = _VERSION
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    _link(os.path.realpath(base / "bin" / version), str(folder / "bin" / version))
    (folder / "lib").mkdir(exist_ok=True)
    for library in (base / "lib").glob("libpython*.so*"):
        _link(str(library), str(folder / "lib" / library.name))
    _tree(base / "lib" / version, folder / "lib" / version, *_UNUSED)
    site = folder / "lib" / version / "site-packages"
    _tree(Path(sysconfig.get_paths()["purelib"]), site)
    _sources(site, folder)
    _readable(folder)
    return ServicePython.at(folder)
