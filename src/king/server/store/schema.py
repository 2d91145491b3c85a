"""The tables that remember people, one schema step on both backends (the event log's
migrations run it, :mod:`king.server.store.sqlite` and :mod:`king.server.store.postgres`).

- ``king_accounts``: a guest (no name), a registered player (a name and an argon2id
  hash, never the password), or the person at the local ``king``; ``king_name_keys``
  holds each name's keys (:func:`king.server.people.names.name_keys`), so that two names a
  reader could not tell apart can never both be taken, whatever the race.
- ``king_sessions``: logins, by the SHA-256 of the cookie's token (never the token).
- ``king_login_failures``: failed logins by name and by address, for the login limit.
- ``king_seats``: which account sits at which seat of which table (the ``join`` event
  says it too; this is its index).
- ``king_results`` and ``king_deal_results``: each finished game's places and points
  per seat, and each deal's declarer, contract and points, for history and statistics.
  ``player`` is an account id, ``bot:<spec>`` for a bot, or NULL for a person of a game
  older than accounts.
- ``king_ratings`` and ``king_rating_changes``: the rating model's state per player and
  each rated game's change (its key makes a game rated once, whoever finishes it).
"""

from __future__ import annotations

__all__ = ["COPIED", "LIMIT_MARKS", "people_schema"]

#: The tables ``king db copy`` carries to another database, parents first, with their
#: columns (failed logins stay behind: they only matter where they happened).
COPIED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("king_accounts", ("id", "name", "kind", "password", "created", "seen")),
    ("king_name_keys", ("key", "account")),
    ("king_sessions", ("id", "account", "created", "seen", "expires")),
    ("king_seats", ("table_id", "seat", "account", "joined")),
    (
        "king_results",
        ("table_id", "seat", "player", "name", "points", "place", "rated", "rules", "finished"),
    ),
    (
        "king_deal_results",
        (
            "table_id",
            "deal",
            "seat",
            "player",
            "declarer",
            "contract",
            "trump",
            "points",
            "finished",
        ),
    ),
    ("king_ratings", ("player", "mu", "sigma", "games", "updated")),
    (
        "king_rating_changes",
        ("table_id", "player", "mu_before", "sigma_before", "mu_after", "sigma_after", "at"),
    ),
)

_SCHEMA = """
CREATE TABLE king_accounts (
    id        TEXT PRIMARY KEY,
    name      TEXT UNIQUE,
    kind      TEXT NOT NULL,
    password  TEXT,
    created   {real} NOT NULL,
    seen      {real} NOT NULL
);
CREATE TABLE king_name_keys (
    key       TEXT PRIMARY KEY,
    account   TEXT NOT NULL REFERENCES king_accounts(id)
);
CREATE TABLE king_sessions (
    id        TEXT PRIMARY KEY,
    account   TEXT NOT NULL REFERENCES king_accounts(id),
    created   {real} NOT NULL,
    seen      {real} NOT NULL,
    expires   {real} NOT NULL
);
CREATE INDEX king_sessions_by_account ON king_sessions(account);
CREATE TABLE king_login_failures (
    subject   TEXT NOT NULL,
    at        {real} NOT NULL
);
CREATE INDEX king_login_failures_by_subject ON king_login_failures(subject, at);
CREATE TABLE king_seats (
    table_id  TEXT NOT NULL,
    seat      INTEGER NOT NULL,
    account   TEXT NOT NULL REFERENCES king_accounts(id),
    joined    {real} NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX king_seats_by_account ON king_seats(account, joined);
CREATE TABLE king_results (
    table_id  TEXT NOT NULL,
    seat      INTEGER NOT NULL,
    player    TEXT,
    name      TEXT NOT NULL,
    points    INTEGER NOT NULL,
    place     INTEGER NOT NULL,
    rated     INTEGER NOT NULL,
    rules     TEXT NOT NULL,
    finished  {real} NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX king_results_by_player ON king_results(player, finished);
CREATE TABLE king_deal_results (
    table_id  TEXT NOT NULL,
    deal      INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    player    TEXT,
    declarer  INTEGER NOT NULL,
    contract  TEXT NOT NULL,
    trump     TEXT,
    points    INTEGER NOT NULL,
    finished  {real} NOT NULL,
    PRIMARY KEY (table_id, deal, seat)
);
CREATE INDEX king_deal_results_by_player ON king_deal_results(player, finished);
CREATE TABLE king_ratings (
    player    TEXT PRIMARY KEY,
    mu        {real} NOT NULL,
    sigma     {real} NOT NULL,
    games     INTEGER NOT NULL,
    updated   {real} NOT NULL
);
CREATE TABLE king_rating_changes (
    table_id      TEXT NOT NULL,
    player        TEXT NOT NULL,
    mu_before     {real} NOT NULL,
    sigma_before  {real} NOT NULL,
    mu_after      {real} NOT NULL,
    sigma_after   {real} NOT NULL,
    at            {real} NOT NULL,
    PRIMARY KEY (table_id, player)
);
CREATE INDEX king_rating_changes_by_player ON king_rating_changes(player, at);
"""


def people_schema(real: str) -> str:
    """The schema step in one backend's words (``real``: its floating-point type)."""
    return _SCHEMA.format(real=real)


#: The next step: each count against a limit (``king_login_failures``, which now holds
#: every attempt until it has succeeded) gets a mark, so that a login that succeeds takes
#: back exactly its own attempts.
LIMIT_MARKS = """
ALTER TABLE king_login_failures ADD COLUMN mark TEXT;
CREATE INDEX king_login_failures_by_mark ON king_login_failures(mark);
"""
