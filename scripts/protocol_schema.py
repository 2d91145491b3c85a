"""Write the table protocol's JSON Schemas, generated from its one definition
(:mod:`king.table.protocol` for what a client sends, :mod:`king.server.protocol` for what
a table answers), to ``docs/protocol/``; ``tests/table/test_protocol_once.py`` checks the
files are what the definitions generate, and the browser tests check every WebSocket
frame against them.

    python scripts/protocol_schema.py
"""

from __future__ import annotations

import json
from pathlib import Path

from king.server.protocol import client_schema, server_schema

#: Where the schemas are kept.
FOLDER = Path(__file__).resolve().parent.parent / "docs" / "protocol"


def schema_texts() -> dict[str, str]:
    """Each schema file's name and text."""
    return {
        name: json.dumps(schema, indent=2, sort_keys=True) + "\n"
        for name, schema in (
            ("client.schema.json", client_schema()),
            ("server.schema.json", server_schema()),
        )
    }


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for name, text in schema_texts().items():
        (FOLDER / name).write_text(text, encoding="utf-8")
        print(f"wrote {FOLDER / name}")


if __name__ == "__main__":
    main()
