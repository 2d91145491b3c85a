"""The ``king`` command run by its console script's entry point (:func:`king.cli.run`)
inside the test's own process: the same parsing, messages, output and exit statuses as
``python -m king`` without the 0.3 s of a new interpreter and its imports a call.  What
only a process shows (the installed script, a pipe on standard input, a fresh
interpreter's first deal) stays with a real process (:func:`subprocess.run`)."""

from __future__ import annotations

import io
import subprocess
import sys

from king.cli import run

#: What the standard streams of a ``king`` process are here: UTF-8, not a terminal.
ENCODING = "utf-8"


def king_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``king ARGS`` to its end in this process, standard input empty, its output
    captured; answered as :func:`subprocess.run` answers for the process.  An exception
    the command does not turn into a message is raised here, failing the test."""
    out, err = io.BytesIO(), io.BytesIO()
    # Held until the end: a wrapper that goes away closes the bytes under it.
    streams = (
        io.TextIOWrapper(io.BytesIO(), encoding=ENCODING),
        io.TextIOWrapper(out, encoding=ENCODING, write_through=True),
        io.TextIOWrapper(err, encoding=ENCODING, write_through=True),
    )
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    code: object = 0
    try:
        run(list(args))
    except SystemExit as exit_:
        code = exit_.code
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    assert code is None or isinstance(code, int), f"king exited with {code!r}, not a status"
    return subprocess.CompletedProcess(["king", *args], code or 0, _text(out), _text(err))


def _text(written: io.BytesIO) -> str:
    """What was written, decoded as a pipe's reader decodes it."""
    return written.getvalue().decode(ENCODING)
