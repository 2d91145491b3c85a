"""Vendor Pyodide (CPython compiled to WebAssembly) for the page's offline game: fetch
the npm package ``pyodide`` at the pinned version with ``npm pack``, check it against
the registry's integrity hash recorded here, and copy the runtime's files into
``src/king/web/pyodide/`` with a lock file that lists no packages, the licence texts,
and ``VENDOR.json`` (each file's sha256, which ``tests/web/test_vendored.py`` checks).

    python scripts/vendor_pyodide.py

Nothing is fetched at run time: the page loads these files from its own server.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.29.3"
#: ``npm view pyodide@0.29.3 dist.integrity``: the tarball must hash to this.
INTEGRITY = (
    "sha512-22UBuhOJawj7vKUnS7/F3xK+515LJdjiMAHoCfuS6/PbHiOrSQVnYwDe+2sb"
    "VwiOZ3sMMexdXICew6NqOMQGgA=="
)
#: The runtime: the loader, the compiled interpreter and its standard library.
FILES = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
TARGET = Path(__file__).resolve().parent.parent / "src" / "king" / "web" / "pyodide"
#: The licences of what the runtime holds: Pyodide's own (MPL-2.0, Debian's copy of the
#: text), CPython's (the interpreter and its standard library) and Emscripten's.
LICENCES = {
    "MPL-2.0.txt": Path("/usr/share/common-licenses/MPL-2.0"),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            ["npm", "pack", f"pyodide@{VERSION}", "--pack-destination", work],
            check=True,
            capture_output=True,
        )
        tarball = Path(work) / f"pyodide-{VERSION}.tgz"
        digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
        if f"sha512-{digest}" != INTEGRITY:
            raise SystemExit(f"pyodide-{VERSION}.tgz does not match the recorded integrity")
        with tarfile.open(tarball) as archive:
            archive.extractall(work, filter="data")
        package = Path(work) / "package"
        TARGET.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            shutil.copyfile(package / name, TARGET / name)
        lock = json.loads((package / "pyodide-lock.json").read_text(encoding="utf-8"))
        mine = {"info": lock["info"], "packages": {}}
        (TARGET / "pyodide-lock.json").write_text(
            json.dumps(mine, indent=1) + "\n", encoding="utf-8"
        )
    licences = TARGET / "licences"
    licences.mkdir(exist_ok=True)
    for name, source in LICENCES.items():
        shutil.copyfile(source, licences / name)
    hashes = {
        path.relative_to(TARGET).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(TARGET.rglob("*"))
        if path.is_file() and path.name != "VENDOR.json"
    }
    vendor = {"package": "pyodide", "version": VERSION, "integrity": INTEGRITY, "sha256": hashes}
    (TARGET / "VENDOR.json").write_text(json.dumps(vendor, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
