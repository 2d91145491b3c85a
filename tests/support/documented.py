"""The blocks of docs/deploy.md that tests run as written (a server's configuration, a
systemd unit, a proxy's site): each found by the HTML comment just before its fence
(``<!-- deploy: nginx -->``), so that the documented text is the tested one; and the
programs such a test needs, which CI installs (``.ci/run``)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support import ROOT

DEPLOY = ROOT / "docs" / "deploy.md"


def documented_block(marker: str, document: Path = DEPLOY) -> str:
    """The fenced block of ``document`` (docs/deploy.md) right after
    ``<!-- deploy: MARKER -->``."""
    text = document.read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- deploy: {re.escape(marker)} -->\n```[\w-]*\n(.*?)\n```", text, re.DOTALL
    )
    assert found is not None, f"{document.name} has no block marked {marker!r}"
    return found.group(1) + "\n"


def need(program: Path, package: str) -> None:
    """Fail under CI (which installs it: .ci/run), else skip, when a program is missing."""
    if program.exists():
        return
    message = f"{program} is missing: apt-get install -y {package}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
