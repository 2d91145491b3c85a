"""A client message is read alike wherever it arrives: the server's pydantic and the
offline table's standard library check it against its one definition
(:mod:`king.table.protocol`) and accept the same messages, or refuse them with the
same code and the same words."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from king.server.protocol import parse_client_message
from king.table.protocol import CLIENT_MESSAGES, Declare, Play
from king.table.reading import MessageError, read_message

#: Values a field may be sent with: the right kinds and the wrong ones.
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["S", "H", "Z", "normal", "slow", "fast", "QS", "10H", "trumps", ""]),
    st.text(max_size=140),
    st.lists(st.integers(), max_size=2),
)
FIELDS = st.sampled_from(["token", "contract", "trump", "card", "speed", "phrase", "other"])


def _outcome(read: Any, text: str) -> object:
    try:
        return read(text)
    except MessageError as error:
        return (error.code, error.message, error.about)


@settings(max_examples=600, deadline=None)
@given(
    kind=st.sampled_from([*CLIENT_MESSAGES, "fly", 3]),
    version=st.sampled_from([1, 1, 1, 2, "1", True, None]),
    fields=st.dictionaries(FIELDS, VALUES, max_size=4),
)
def test_the_server_and_the_offline_table_read_every_message_alike(
    kind: object, version: object, fields: dict[str, Any]
) -> None:
    text = json.dumps({"v": version, "type": kind, **fields})
    assert _outcome(parse_client_message, text) == _outcome(read_message, text)


def test_a_message_is_its_definition_and_a_wrong_one_says_each_fault() -> None:
    message = read_message('{"v":1,"type":"declare","contract":"trumps","trump":"S"}')
    assert message == Declare("trumps", "S")
    assert parse_client_message('{"v":1,"type":"play","card":"10H"}') == Play("10H")
    text = '{"v":1,"type":"declare","trump":"Q","more":1}'
    for read in (read_message, parse_client_message):
        try:
            read(text)
        except MessageError as error:
            assert (error.code, error.about) == ("invalid", "declare")
            assert error.message == (
                "contract: Field required; trump: Input should be 'S', 'H', 'D' or 'C'; "
                "more: Extra inputs are not permitted"
            )
        else:
            raise AssertionError(f"{read.__name__} accepted {text}")
