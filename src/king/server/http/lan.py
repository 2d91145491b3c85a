"""Playing on a phone from the computer that runs ``king``: the address on the home
network a phone can reach (the machine's LAN IP, never its host name, which phones
cannot look up), and that address as a QR code to scan, for the terminal and the page.

The addresses to choose from are the machine's own (:func:`interface_addresses`), or
those of ``KING_LAN_ADDRESSES`` (comma-separated): a seam for tests, which must connect
only to 127.0.0.1, and for machines whose best address cannot be told from outside.
"""

from __future__ import annotations

import io
import ipaddress
import os
import socket

import segno

__all__ = [
    "ADDRESSES_VARIABLE",
    "choose_address",
    "interface_addresses",
    "qr_svg",
    "qr_terminal",
]

#: The environment variable that replaces the machine's addresses (tests, odd networks).
ADDRESSES_VARIABLE = "KING_LAN_ADDRESSES"


def interface_addresses() -> list[str]:
    """The machine's IPv4 addresses: the one its default route leaves by (a UDP socket
    "connected" to a private address sends nothing, but learns its source address) and
    those its host name resolves to; or ``KING_LAN_ADDRESSES``'s."""
    given = os.environ.get(ADDRESSES_VARIABLE)
    if given is not None:
        return [part.strip() for part in given.split(",") if part.strip()]
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 9))  # no packet leaves: UDP connect only routes
            found.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    return list(dict.fromkeys(found))


def _rank(text: str) -> int | None:
    """How good an address is for a phone on the same network (lower is better), or
    ``None`` for one a phone cannot use (loopback, link-local, not an IPv4 address)."""
    try:
        address = ipaddress.IPv4Address(text)
    except ValueError:
        return None
    if address.is_loopback or address.is_link_local or address.is_unspecified:
        return None
    if address in ipaddress.IPv4Network("192.168.0.0/16"):
        return 0  # the usual home router's network
    if address in ipaddress.IPv4Network("10.0.0.0/8"):
        return 1
    if address in ipaddress.IPv4Network("172.16.0.0/12"):
        return 2
    return 3 if address.is_private else 4


def choose_address(addresses: list[str]) -> str | None:
    """The address a phone on the same network should use, or ``None`` when there is
    none (the machine has no network)."""
    ranked = [(rank, n, a) for n, a in enumerate(addresses) if (rank := _rank(a)) is not None]
    return min(ranked)[2] if ranked else None


def qr_terminal(text: str) -> str:
    """``text`` as a QR code drawn with block characters (two rows of modules a line),
    for a terminal: light modules are blocks, so it reads on a dark background."""
    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def qr_svg(text: str) -> str:
    """``text`` as a QR code in SVG, dark on light, sized by its container."""
    out = io.BytesIO()
    segno.make(text, error="m").save(
        out, kind="svg", border=2, dark="#111", light="#fff", xmldecl=False, omitsize=True
    )
    return out.getvalue().decode()
