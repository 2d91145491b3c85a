"""Who may do what, from where: the owner of the local game, and everyone else.

The local ``king`` has an owner: the person at the machine it runs on, whose requests
come from 127.0.0.1 or ::1.  They keep every freedom: their account without a login,
any bot the package has (those that read a file included) at any strength, as many
tables as they like, kept until they close them.  Everyone else (a phone or a stranger
on the home network under ``king --lan``, every visitor of ``king serve``, which has no
owner) gets the limits of a server for many, the settings' ``max_bot_*``,
``tables_per_address`` and ``idle_close``, and never seats a bot that names a file or a
program: what such a bot would read is the owner's, and a refusal to anyone else never
depends on what exists on the owner's disk.  A table a visitor made plays its bots only
while someone is connected to it (:mod:`king.server.engine.autoplay`), each move within
those limits, so its bots stop within one move's thinking of its last socket closing.

docs/web-protocol.md ("Who may do what") lists every route and message with who may use it.
"""

from __future__ import annotations

from dataclasses import dataclass

from king.server.config import ServerSettings

__all__ = ["THIS_MACHINE", "Access", "is_owner"]

#: The addresses of the machine the server runs on: only they are the local game's owner
#: (a second loopback address, such as 127.0.0.2, is somebody else's: a test's visitor).
THIS_MACHINE = ("127.0.0.1", "::1")


def is_owner(settings: ServerSettings, address: str | None) -> bool:
    """Whether a request from ``address`` is the local game's owner's: the server is the
    local ``king`` and the request comes from the machine itself."""
    return settings.local_player is not None and address in THIS_MACHINE


@dataclass(frozen=True, slots=True)
class Access:
    """What one request may ask of the server: ``owner``'s freedom, or the visitor
    ``limits`` of the settings (the limits that a table or a bot is checked against)."""

    owner: bool
    limits: ServerSettings

    @classmethod
    def of(cls, settings: ServerSettings, address: str | None) -> Access:
        """The access of a request from ``address`` (None: not known, a visitor)."""
        if is_owner(settings, address):
            return cls.owners(settings)
        return cls(False, settings)

    @classmethod
    def owners(cls, settings: ServerSettings) -> Access:
        """The owner's: no limits at all."""
        return cls(True, settings.unbounded())

    @classmethod
    def of_maker(cls, settings: ServerSettings, by_visitor: bool) -> Access:
        """The access of whoever made a table (``by_visitor``: a visitor)."""
        return cls(False, settings) if by_visitor else cls.owners(settings)

    @property
    def reads_files(self) -> bool:
        """Whether a bot that reads a file (``policy:file=``, ``net:file=``) may be seated."""
        return self.owner
