"""Where notifications may be sent: the check every webhook address and push endpoint passes, when it is
given and again before each delivery (server-side request forgery).

A webhook address is typed by a person, and a push endpoint is sent by their browser: either could point
the worker at the installation's own services (``http://127.0.0.1:5432``, a cloud's metadata address,
the intranet). So by default only ``https`` addresses whose every resolved address is public are taken.
``DIPPOUCH_NOTIFY_ALLOW_PRIVATE=1`` lifts both rules: for an installation whose chat server is on its own
network, and for the tests' local receivers.

An address is judged by where it leads, not by its form: an IPv6 address that carries an IPv4 one (NAT64's
``64:ff9b::/96``, 6to4's ``2002::/16``, SIIT's ``::ffff:0:0:0/96``, the old IPv4-compatible ``::/96``) is
judged by the IPv4 address inside, which a translator or relay on the way would reach; Python counts those
prefixes as global whatever they carry. Prefixes whose inner address cannot be read reliably (local-use
NAT64 ``64:ff9b:1::/48``, whose layout each network chooses; Teredo ``2001::/32``) and multicast are
refused outright.

The address is resolved again before each delivery (a name may be pointed elsewhere after it was checked),
and the delivery connects to the addresses that check approved (:func:`resolve_url`), never to a second
lookup's answer.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from dippouch.core.messages import Msg, msg, quantity
from dippouch.game import GameError
from dippouch.settings import current, site

I18N_DOMAIN = "rules"
"""The catalogue of the address checks' refusals, said in the reader's language where they are shown
(dippouch.saying)."""

__all__ = [
    "MAX_URL",
    "IPAddress",
    "Resolved",
    "allow_private",
    "check_url",
    "public_url",
    "refusal",
    "resolve_url",
    "vapid_subject",
]

MAX_URL = 2000


def allow_private() -> bool:
    return current().notify_allow_private


def public_url() -> str:
    """The web app's address as people reach it, to make links in chat and mail absolute: the installation's
    one public address (:func:`dippouch.settings.site`), the same the web's own links are made from."""
    return site().public_url


def vapid_subject() -> str:
    """The contact push services may write to about our pushes (RFC 8292: a mailto: or https: address)."""
    got = current().vapid_subject
    if got:
        return got
    return public_url() if public_url().startswith("https://") else "mailto:admin@dippouch.invalid"


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
_SIIT = ipaddress.IPv6Network("::ffff:0:0:0/96")
_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _inner_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries where its prefix says it carries one (the last 32 bits, or
    for 6to4 bits 16 to 48)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or address in _SIIT or (address in _COMPATIBLE and int(address) > 1):  # not :: nor ::1
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal(address: IPAddress) -> Msg | None:
    """Why notifications may not go to ``address`` (words to follow "a"/"an"), or None if they may."""
    if address.is_multicast:
        return msg("a multicast address")
    if isinstance(address, ipaddress.IPv6Address):
        if address in _NAT64_LOCAL or address.teredo is not None:
            return msg("an address translation or tunnel prefix whose destination cannot be checked")
        inner = _inner_ipv4(address)
        if inner is not None:
            why = refusal(inner)
            if why is not None:
                return msg("%(why)s (%(inner)s) written as IPv6", why=why, inner=str(inner))
        if address.is_site_local:  # fec0::/10: deprecated, yet Python counts it as global
            return msg("a private, local or reserved address")
    if not address.is_global:
        return msg("a private, local or reserved address")
    return None


@dataclass(frozen=True)
class Resolved:
    """A checked address and what its host resolved to when checked: the only addresses a delivery may
    connect to (``addresses`` in the resolver's order of preference)."""

    url: str
    host: str
    port: int
    addresses: tuple[IPAddress, ...]


def check_url(url: str, what: Msg | str, *, private: bool | None = None, resolve: bool = True) -> str:
    """``url`` if notifications may go there, else a refusal saying why. ``private``: allow http and private
    addresses (default: :func:`allow_private`)."""
    if not resolve:
        return _check_form(url, what, private=private)[0]
    return resolve_url(url, what, private=private).url


def _check_form(url: str, what: Msg | str, *, private: bool | None) -> tuple[str, str, int, bool]:
    """(url, host, port, private) once the address's form is acceptable."""
    private = allow_private() if private is None else private
    url = str(url).strip()
    if not url:
        raise GameError(msg("the %(what)s is empty", what=what))
    if len(url) > MAX_URL:
        raise GameError(
            msg(
                "the %(what)s is %(size)s characters long; at most %(most)s are taken",
                what=what,
                size=quantity(len(url)),
                most=quantity(MAX_URL),
            )
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise GameError(msg("the %(what)s is not a web address (%(why)s)", what=what, why=str(e))) from None
    schemes = ("https", "http") if private else ("https",)
    if parts.scheme not in schemes:
        raise GameError(
            msg(
                "the %(what)s must start with https:// (got %(scheme)s)",
                what=what,
                scheme=repr(parts.scheme or "no scheme"),
            )
        )
    if parts.username or parts.password:
        raise GameError(msg("the %(what)s must not carry a user name or password before the host", what=what))
    host = parts.hostname
    if not host:
        raise GameError(msg("the %(what)s names no host", what=what))
    return url, host, port or (443 if parts.scheme == "https" else 80), private


def resolve_url(url: str, what: Msg | str, *, private: bool | None = None) -> Resolved:
    """``url`` checked as :func:`check_url` checks it, with the addresses its host resolved to; every one of
    them passed (unless ``private``), so a connection to any of them goes where the check allowed."""
    url, host, port, private = _check_form(url, what, private=private)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise GameError(msg("the host of the %(what)s (%(host)s) cannot be found", what=what, host=host)) from None
    addresses: list[IPAddress] = []
    for info in infos:
        # A scope id (fe80::1%eth0) names an interface, not an address: the address is judged without it,
        # and link-local addresses are refused anyway.
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if not private:
            why = refusal(address)
            if why is not None:
                raise GameError(
                    msg(
                        "the %(what)s points at %(host)s (%(address)s), %(why)s; notifications go only to public "
                        "addresses",
                        what=what,
                        host=host,
                        address=str(address),
                        why=why,
                    )
                )
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise GameError(msg("the host of the %(what)s (%(host)s) cannot be found", what=what, host=host))
    return Resolved(url=url, host=host, port=port, addresses=tuple(addresses))
