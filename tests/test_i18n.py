"""The message catalogs: every language has every English message with the same
placeholders, the game's words are named as players say them, and the locale is read
the way gettext reads it."""

from __future__ import annotations

import re

import pytest

from king.i18n import (
    DOMAINS,
    LANGUAGES,
    PLURAL_CATEGORIES,
    Translator,
    UnknownLanguageError,
    detect_language,
    language_from_header,
    own_messages,
    parse_language,
    placeholders,
    plural_categories,
)

OTHERS = [code for code in LANGUAGES if code != "en"]


def plural_base(key: str) -> str | None:
    """The counted message a plural form belongs to (``tui.tricks`` of ``….one``)."""
    head, _, tail = key.rpartition(".")
    return head if tail in PLURAL_CATEGORIES else None


def plain(messages: dict[str, str]) -> dict[str, str]:
    """The messages with each counted one's forms folded into its ``other`` form."""
    out = {}
    for key, text in messages.items():
        base = plural_base(key)
        if base is None:
            out[key] = text
        elif key.endswith(".other"):
            out[base] = text
    return out


@pytest.mark.parametrize("language", ["en", *OTHERS])
def test_every_counted_message_has_the_plural_forms_its_language_uses(language: str) -> None:
    """CLDR decides the forms: English and Turkish one/other, Spanish and French
    one/many/other, Thai other alone; each form keeps the English placeholders."""
    english = own_messages("en")
    theirs = own_messages(language)
    bases = {plural_base(key) for key in english} - {None}
    assert bases >= {"tui.tricks", "table.tricksWon", "table.waiting", "summary.auto"}
    for base in bases:
        forms = {key.rpartition(".")[2] for key in theirs if plural_base(key) == base}
        assert forms == plural_categories(language), (language, base, forms)
        for form in forms:
            wanted = placeholders(english[f"{base}.other"])
            assert placeholders(theirs[f"{base}.{form}"]) == wanted, (language, base, form)


@pytest.mark.parametrize(
    ("language", "counts"),
    [
        ("en", ["0 tricks", "1 trick", "2 tricks", "5 tricks"]),
        ("tr", ["0 el", "1 el", "2 el", "5 el"]),
        ("es", ["0 bazas", "1 baza", "2 bazas", "5 bazas"]),
        ("fr", ["0 pli", "1 pli", "2 plis", "5 plis"]),
        ("th", ["0 กอง", "1 กอง", "2 กอง", "5 กอง"]),
    ],
)
def test_counts_take_their_languages_plural_forms(language: str, counts: list[str]) -> None:
    t = Translator(language)
    assert [t.plural("tui.tricks", n) for n in (0, 1, 2, 5)] == counts
    one = "table.tricksWon.other" if language == "th" else "table.tricksWon.one"
    assert t.plural("table.tricksWon", 1) == t(one, n=1)
    if language in ("es", "fr"):
        assert "de" in t.plural("tui.tricks", 1_000_000)  # « 1 000 000 de plis »


@pytest.mark.parametrize("language", OTHERS)
def test_every_language_has_every_english_message_with_the_same_placeholders(
    language: str,
) -> None:
    english = plain(own_messages("en"))
    theirs_all = own_messages(language)
    theirs = plain(theirs_all)
    missing = sorted(set(english) - set(theirs))
    assert not missing, f"{language} lacks {missing}"
    extra = sorted(set(theirs) - set(english))
    assert not extra, f"{language} has messages English does not: {extra}"
    for key, text in english.items():
        assert placeholders(theirs[key]) == placeholders(text), (language, key, theirs[key])
        assert theirs[key].strip(), (language, key)
    assert all(text.strip() for text in theirs_all.values())


def test_each_catalog_file_is_split_the_same_way_in_every_language() -> None:
    import json
    from importlib import resources

    for domain in DOMAINS:
        english = json.loads(
            (resources.files("king") / "locales" / "en" / f"{domain}.json").read_text("utf-8")
        )
        for language in OTHERS:
            path = resources.files("king") / "locales" / language / f"{domain}.json"
            theirs = json.loads(path.read_text("utf-8"))
            assert set(plain(theirs)) == set(plain(english)), (language, domain)


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


#: Each language's words for a deal (one of the twenty) and a trick (four cards), as its
#: King players say them: a message about deals never uses the trick's word, one about
#: tricks never the deal's (Turkish says "el" for a trick, as in "El Almaz", and
#: "dağıtım" for a deal; Thai "กอง" for a trick and "รอบ" for a deal).  Where the deal's
#: word has another meaning too (Spanish "mano" is also the cards held, French "donne"
#: also "gives"), only the first is checked.
VOCABULARY: dict[str, tuple[str | None, str]] = {
    "tr": (r"[Dd]ağıtım", r"\b[Ee]l(?:i|e|de|den|in|ler|leri|lerin|lerde|lerden|deki)?\b|[Ll]öve"),
    "es": (None, r"\b[Bb]azas?\b"),
    "fr": (None, r"\b[Pp]lis?\b"),
    "th": (r"รอบ", r"กอง"),
}
#: Contract names that hold the trick's word in their own name ("El Almaz").
NAMED_CONTRACTS = {"tr": ["El Almaz"]}


@pytest.mark.parametrize("language", sorted(VOCABULARY))
def test_one_word_for_a_deal_and_another_for_a_trick(language: str) -> None:
    deal_word, trick_word = VOCABULARY[language]
    mixed = []
    english = own_messages("en")
    for key, message in own_messages(language).items():
        said = english.get(key, "")
        text = message
        for name in NAMED_CONTRACTS.get(language, []):
            text = text.replace(name, "")
        deals = re.search(r"\bdeals?\b", said, re.IGNORECASE)
        tricks = re.search(r"\btricks?\b", said, re.IGNORECASE)
        if deals and not tricks and re.search(trick_word, text):
            mixed.append(f"{key} (a deal): {text[:80]}")
        if tricks and not deals and deal_word and re.search(deal_word, text):
            mixed.append(f"{key} (a trick): {text[:80]}")
    assert not mixed, "\n".join(mixed)


@pytest.mark.parametrize("language", ["en", *OTHERS])
def test_no_message_names_an_engine(language: str) -> None:
    """Players choose levels (Medium, Hard…): the engines behind them (``rule``,
    ``search``, ``net``) are for the command line, never a player's screen (the page
    names a bot by :func:`king.bots.levels.level_word`)."""
    engines = re.compile(r"\b(rule|search1?|net|random)\b")
    named = [key for key, text in own_messages(language).items() if engines.search(text)]
    assert not named, named
