"""The protocol is written once: its version in one definition, which the pages read
from the page; each client message in one definition (:mod:`king.table.protocol`), which
both tables check against; and the JSON Schemas in docs/protocol/ are what the
definitions generate."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

from pydantic import BaseModel

from king.server import protocol as server_protocol
from king.table.answers import SERVER_MESSAGES
from king.table.protocol import CLIENT_MESSAGES
from scripts.protocol_schema import FOLDER, schema_texts

SOURCES = Path(__file__).resolve().parents[2] / "src" / "king"


def _python() -> dict[str, str]:
    return {str(p.relative_to(SOURCES)): p.read_text() for p in SOURCES.rglob("*.py")}


def test_the_version_is_defined_once_and_the_pages_read_it_from_the_page() -> None:
    defined = [
        name
        for name, text in _python().items()
        if re.search(r"^(PROTOCOL_VERSION\b.*=|ProtocolVersion\s*=)", text, re.M)
        or re.search(r"\bv: Literal\[", text)
    ]
    assert defined == ["table/protocol.py"]
    scripts = {str(p.relative_to(SOURCES)): p.read_text() for p in SOURCES.rglob("*.js")}
    written = [name for name, text in scripts.items() if re.search(r"PROTOCOL = \d", text)]
    assert written == []
    reading = [name for name, text in scripts.items() if "dataset.protocol" in text]
    assert sorted(reading) == ["web/js/connection.js", "web/js/offline/connection.js"]


def test_each_client_message_is_defined_once() -> None:
    for kind in CLIENT_MESSAGES:
        pattern = rf'(ClassVar\[str\] = "{kind}"|"{kind}": \{{)'
        where = [name for name, text in _python().items() if re.search(pattern, text)]
        assert where == ["table/protocol.py"], (kind, where)
    models = [
        value
        for value in vars(server_protocol).values()
        if isinstance(value, type) and issubclass(value, BaseModel)
    ]
    for model in models:  # a server's answer may share a name (hint), never the fields
        kind = model.model_fields.get("type")
        if kind is None:
            continue
        client = CLIENT_MESSAGES.get(typing.get_args(kind.annotation)[0])
        if client is not None:
            fields = {f.name for f in dataclasses.fields(client)}
            assert set(model.model_fields) - {"v", "type"} != fields, model


def test_each_server_message_is_defined_once_and_built_by_its_builder() -> None:
    for kind in SERVER_MESSAGES:
        pattern = rf'(type: Literal\["{kind}"\]|_head\("{kind}"\))'
        where = [name for name, text in _python().items() if re.search(pattern, text)]
        assert where == ["table/answers.py"], (kind, where)
    # The server's models are derived from the definitions, not written again.
    models = [
        value
        for value in vars(server_protocol).values()
        if isinstance(value, type) and issubclass(value, BaseModel)
    ]
    assert not [m for m in models if "type" in m.model_fields], models


def test_the_schemas_are_what_the_definitions_generate() -> None:
    for name, text in schema_texts().items():
        kept = (FOLDER / name).read_text(encoding="utf-8")
        assert kept == text, f"docs/protocol/{name} is stale: python scripts/protocol_schema.py"
