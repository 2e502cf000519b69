"""Where notifications may be sent: the check every webhook address and push endpoint passes, when it is
given and again before each delivery (server-side request forgery).

A webhook address is typed by a person, and a push endpoint is sent by their browser: either could point
the worker at the installation's own services (``http://127.0.0.1:5432``, a cloud's metadata address,
the intranet). So by default only ``https`` addresses whose every resolved address is public are taken.
``DIPPOUCH_NOTIFY_ALLOW_PRIVATE=1`` lifts both rules: for an installation whose chat server is on its own
network, and for the tests' local receivers.

The address is resolved again before each delivery (a name may be pointed elsewhere after it was checked);
what remains is a name re-pointed between that check and the connection, milliseconds wide.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlsplit

from dippouch.game import GameError

__all__ = ["MAX_URL", "allow_private", "check_url", "public_url", "vapid_subject"]

MAX_URL = 2000


def allow_private() -> bool:
    return os.environ.get("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "").strip().lower() in ("1", "true", "yes", "on")


def public_url() -> str:
    """The web app's address as people reach it (``DIPPOUCH_PUBLIC_URL``), to make links in chat and mail
    absolute; empty when not set (links stay paths)."""
    return os.environ.get("DIPPOUCH_PUBLIC_URL", "").strip().rstrip("/")


def vapid_subject() -> str:
    """The contact push services may write to about our pushes (RFC 8292: a mailto: or https: address)."""
    got = os.environ.get("DIPPOUCH_VAPID_SUBJECT", "").strip()
    if got:
        return got
    return public_url() if public_url().startswith("https://") else "mailto:admin@dippouch.invalid"


def check_url(url: str, what: str, *, private: bool | None = None, resolve: bool = True) -> str:
    """``url`` if notifications may go there, else a refusal saying why. ``private``: allow http and private
    addresses (default: :func:`allow_private`)."""
    private = allow_private() if private is None else private
    url = str(url).strip()
    if not url:
        raise GameError(f"the {what} is empty")
    if len(url) > MAX_URL:
        raise GameError(f"the {what} is {len(url):,} characters long; at most {MAX_URL:,} are taken")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise GameError(f"the {what} is not a web address ({e})") from None
    schemes = ("https", "http") if private else ("https",)
    if parts.scheme not in schemes:
        raise GameError(f"the {what} must start with https:// (got {parts.scheme or 'no scheme'!r})")
    if parts.username or parts.password:
        raise GameError(f"the {what} must not carry a user name or password before the host")
    host = parts.hostname
    if not host:
        raise GameError(f"the {what} names no host")
    if not resolve:
        return url
    try:
        infos = socket.getaddrinfo(host, port or (443 if parts.scheme == "https" else 80), type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise GameError(f"the host of the {what} ({host}) cannot be found") from None
    if not private:
        for info in infos:
            address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
            if not address.is_global:
                raise GameError(
                    f"the {what} points at {host} ({address}), a private, local or reserved address; "
                    "notifications go only to public addresses"
                )
    return url
