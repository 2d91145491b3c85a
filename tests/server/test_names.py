"""Account names: what may be a name, and which names are one name to a reader."""

from __future__ import annotations

import pytest

from king.server.people.names import NameError_, check_name, name_keys


def clash(a: str, b: str) -> bool:
    return bool(name_keys(a) & name_keys(b))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Alice", "alice"),
        ("Alice", "ALICE"),
        ("Alice", "\u0430lice"),  # Cyrillic a
        ("Alice", "AIice"),  # capital i for small L
        ("alice", "AIICE"),
        ("Ａｌｉｃｅ", "alice"),  # full-width letters
        ("modern", "rnodern"),  # r n reads as m
        ("Işıl", "IŞIL"),  # Turkish dotless and dotted i, either case
        ("Işıl", "işil"),
        ("İsmail", "ismail"),
        ("Ismail", "ısmaıl"),
        ("Ömer", "ÖMER"),
        ("straße", "STRASSE"),
        ("O0O", "OOO"),  # zero and capital o
    ],
)
def test_names_a_reader_cannot_tell_apart_clash(first: str, second: str) -> None:
    assert clash(first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [("Alice", "Bob"), ("Işıl", "Isil"), ("Şükrü", "Sukru"), ("Ömer", "Omer"), ("ada", "adam")],
)
def test_different_names_do_not_clash(first: str, second: str) -> None:
    assert not clash(first, second)


@pytest.mark.parametrize("name", ["Ayşe", "Şükrü_61", "ali.veli", "O-Ren", "สมชาย", "Ωμέγα", "123"])
def test_names_of_one_script_are_kept_as_written(name: str) -> None:
    assert check_name(name) == name


def test_compatibility_forms_are_kept_in_their_plain_form() -> None:
    assert check_name("Ａｌｉｃｅ") == "Alice"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("ab", "name_length"),
        ("a" * 21, "name_length"),
        ("Ali Veli", "name_chars"),
        ("_ali", "name_chars"),
        ("ali_", "name_chars"),
        ("ali__veli", "name_chars"),
        ("ali\u200bveli", "name_chars"),  # an invisible space
        ("ali<b>", "name_chars"),
        ("\u0301ali", "name_chars"),  # a mark with no letter
        ("p\u0430ypal", "name_script"),  # Latin with one Cyrillic letter
        ("ali\u0663", "name_script"),  # an Arabic-Indic digit among Latin letters
        ("search", "name_reserved"),
        ("RULE", "name_reserved"),
        ("Adm1n", "name_reserved"),  # 1 for i
        ("guest", "name_reserved"),
    ],
)
def test_bad_names_are_refused_with_the_reason(name: str, code: str) -> None:
    with pytest.raises(NameError_) as refused:
        check_name(name)
    assert refused.value.code == code, refused.value.message
    assert refused.value.message
