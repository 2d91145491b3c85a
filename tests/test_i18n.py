"""The message catalogs: every language has every English message with the same
placeholders, the game's words are named as players say them, and the locale is read
the way gettext reads it."""

from __future__ import annotations

import pytest

from king.i18n import (
    DOMAINS,
    LANGUAGES,
    Translator,
    UnknownLanguageError,
    detect_language,
    language_from_header,
    own_messages,
    parse_language,
    placeholders,
)

OTHERS = [code for code in LANGUAGES if code != "en"]


@pytest.mark.parametrize("language", OTHERS)
def test_every_language_has_every_english_message_with_the_same_placeholders(
    language: str,
) -> None:
    english = own_messages("en")
    theirs = own_messages(language)
    missing = sorted(set(english) - set(theirs))
    assert not missing, f"{language} lacks {missing}"
    extra = sorted(set(theirs) - set(english))
    assert not extra, f"{language} has messages English does not: {extra}"
    for key, text in english.items():
        assert placeholders(theirs[key]) == placeholders(text), (language, key, theirs[key])
        assert theirs[key].strip(), (language, key)


def test_each_catalog_file_is_split_the_same_way_in_every_language() -> None:
    import json
    from importlib import resources

    for domain in DOMAINS:
        english = json.loads(
            (resources.files("king") / "locales" / "en" / f"{domain}.json").read_text("utf-8")
        )
        for language in OTHERS:
            path = resources.files("king") / "locales" / language / f"{domain}.json"
            assert set(json.loads(path.read_text("utf-8"))) == set(english), (language, domain)


@pytest.mark.parametrize(
    ("language", "names"),
    [
        (
            "tr",
            ["Koz", "El Almaz", "Kupa Almaz", "Kız Almaz", "Erkek Almaz", "Rıfkı", "Son İki"],
        ),
        (
            "en",
            ["Trumps", "No Tricks", "No Hearts", "No Queens", "No Boys", "No King", "No Last Two"],
        ),
    ],
)
def test_contracts_are_named_as_players_say_them(language: str, names: list[str]) -> None:
    t = Translator(language)
    values = ["trumps", "no-tricks", "no-hearts", "no-queens", "no-boys", "no-king", "no-last-two"]
    assert [t.contract(value) for value in values] == names


def test_cards_and_reasons_are_worded_in_the_language() -> None:
    assert Translator("en").card("QS") == "queen of spades"
    assert Translator("en").card("10H") == "ten of hearts"
    en = Translator("en")
    assert en.illegal("must_follow", {"seat": "0", "card": "2S", "suit": "D"}) == (
        "You must follow suit: play diamonds."
    )
    assert en.cards("QS KS AS") == "queen of spades, king of spades or ace of spades"
    assert en.refused("played_twice", {"contract": "no-king"}) == (
        "No King has already been played twice this game."
    )
    tr = Translator("tr")
    assert "karo" in tr.illegal("must_follow", {"seat": "0", "card": "2S", "suit": "D"}).lower()
    assert "Rıfkı" in tr.refused("played_twice", {"contract": "no-king"})


def test_the_locale_is_read_as_gettext_reads_it() -> None:
    assert detect_language({"LANG": "tr_TR.UTF-8"}) == "tr"
    assert detect_language({"LC_ALL": "th_TH.UTF-8", "LANG": "fr_FR.UTF-8"}) == "th"
    assert detect_language({"LANGUAGE": "de:es", "LANG": "fr_FR.UTF-8"}) == "es"
    assert detect_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert detect_language({"LANG": "C"}) == "en"
    assert detect_language({}) == "en"


def test_the_browser_header_picks_the_best_shipped_language() -> None:
    assert language_from_header("th-TH,th;q=0.9,en;q=0.8") == "th"
    assert language_from_header("de-DE,fr;q=0.7,tr;q=0.9") == "tr"
    assert language_from_header("de-DE") == "en"
    assert language_from_header("") == "en"


def test_an_unknown_language_is_refused_with_the_choices() -> None:
    assert parse_language("fr_CA.UTF-8") == "fr"
    with pytest.raises(UnknownLanguageError, match=r"unknown language 'de'.*tr \(Türkçe\)"):
        parse_language("de")
