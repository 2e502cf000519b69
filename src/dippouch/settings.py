"""Where the installation is: its public address, the host names it answers to, and the proxies it believes.

Every link dippouch sends or shows (sign-in links, players' links, the coordinator's link, calendar feeds,
notifications, mail) is made from one configured public address, never from a request's ``Host`` or
``X-Forwarded-*`` headers: those are written by whoever sends the request, and a sign-in link mailed to Bob
that points at the sender's host hands Bob's account to the sender. Requests naming any other host are
refused, which also keeps a page elsewhere from reaching a server on this machine by rebinding its own name
to 127.0.0.1.

Read once from the environment:

``DIPPOUCH_PUBLIC_URL``
    The address people open, e.g. ``https://diplomacy.example.org`` (a path is allowed when a proxy serves the
    site under one). Unset: the address ``dippouch serve`` prints (``http://localhost:PORT``).
``DIPPOUCH_ALLOWED_HOSTS``
    Comma-separated host names the server answers to besides the public address's own (``*.example.org``
    allows the subdomains). Unset: the public address's host, and when that is a loopback name, all of them
    (``localhost``, ``127.0.0.1``, ``::1``), as a browser on the same machine may use any.
``DIPPOUCH_METRICS_FROM``
    Comma-separated networks whose clients may read ``/metrics`` (request counts by route and status are for
    the operator's Prometheus, not the world). Unset: this machine only (``127.0.0.0/8,::1``).
``DIPPOUCH_FORWARDED_ALLOW_IPS``
    The reverse proxy's addresses, whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed (read by
    uvicorn in ``dippouch serve``); unset, those headers are ignored.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from dippouch.core.errors import DippouchError

__all__ = [
    "DEFAULT_PUBLIC_URL",
    "LOOPBACK_NAMES",
    "Site",
    "default_site",
    "metrics_networks",
    "networks",
    "reread",
    "site",
    "use_default_site",
]

DEFAULT_PUBLIC_URL = "http://localhost:8000"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def _host_of(netloc_host: str) -> str:
    """A host as compared here: lower case, no trailing dot, IPv6 without brackets."""
    return netloc_host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Site:
    """The installation's public address and the hosts it answers to."""

    public_url: str
    """Scheme, host, optional port and path, without a trailing slash: links are this plus a path."""
    allowed_hosts: tuple[str, ...]
    configured: bool = True
    """False when the address is the embedded default rather than a setting (the pages then say how to set it)."""

    @classmethod
    def at(cls, public_url: str, allowed_hosts: str | None = None, *, configured: bool = True) -> Site:
        """The site at ``public_url``, or a :class:`DippouchError` saying what is wrong with the setting."""
        url = public_url.strip().rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DippouchError(
                f"DIPPOUCH_PUBLIC_URL {public_url!r} is not a web address; give the address people open, "
                "e.g. https://diplomacy.example.org"
            )
        if parts.query or parts.fragment or parts.username or parts.password:
            raise DippouchError(
                f"DIPPOUCH_PUBLIC_URL {public_url!r} has a query, fragment or user name; give only "
                f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}"
            )
        try:
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            raise DippouchError(f"DIPPOUCH_PUBLIC_URL {public_url!r} has a port that is not a number") from None
        own = _host_of(parts.hostname)
        hosts = [own]
        if _is_loopback(own):
            hosts += [h for h in LOOPBACK_NAMES if h != own]
        for extra in (allowed_hosts or "").split(","):
            name = _host_of(extra)
            if not name:
                continue
            if name == "*":
                raise DippouchError(
                    f"DIPPOUCH_ALLOWED_HOSTS may not be '*': name the hosts this site answers to, e.g. {own},www.{own}"
                )
            if name not in hosts:
                hosts.append(name)
        return cls(url, tuple(hosts), configured)

    @property
    def origin(self) -> str:
        """Scheme, host and port: what a browser sends as ``Origin`` from our own pages."""
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def host(self) -> str:
        """The public address's host name (a passkey's relying-party id)."""
        return _host_of(urlsplit(self.public_url).hostname or "")

    @property
    def https(self) -> bool:
        return self.public_url.startswith("https://")

    def link(self, path: str) -> str:
        """The absolute address of ``path`` (``/k/...``) on this site."""
        return self.public_url + ("" if path.startswith("/") else "/") + path

    def allows(self, host_header: str) -> bool:
        """Whether a request's ``Host`` names this site (its port is not compared: the proxy or the listening
        socket decided that)."""
        value = host_header.strip()
        if value.startswith("["):  # [::1]:8000
            name = value[1:].split("]", 1)[0]
        else:
            name = value.rsplit(":", 1)[0] if value.count(":") == 1 else value
        name = _host_of(name)
        if not name:
            return False
        for allowed in self.allowed_hosts:
            if name == allowed or (allowed.startswith("*.") and name.endswith(allowed[1:])):
                return True
        return False


_site: Site | None = None
_default = DEFAULT_PUBLIC_URL


def use_default_site(public_url: str) -> Site:
    """Make ``public_url`` the address used when ``DIPPOUCH_PUBLIC_URL`` is unset (``dippouch serve`` calls this
    with the address it prints, before anything reads the site), and return the site now in force."""
    global _site, _default
    _default = public_url
    _site = None
    return site()


def reread() -> Site:
    """Read the environment again (a test that sets it, a process told its settings changed)."""
    global _site, _metrics
    _site, _metrics = None, None
    return site()


def default_site() -> Site:
    """The site when nothing is configured and nothing was served: the embedded default's address."""
    return Site.at(_default, None, configured=False)


def site() -> Site:
    """The installation's site, read from the environment once per process (see the module's docstring)."""
    global _site
    if _site is None:
        configured = os.environ.get("DIPPOUCH_PUBLIC_URL", "").strip()
        extra = os.environ.get("DIPPOUCH_ALLOWED_HOSTS")
        _site = Site.at(configured, extra) if configured else Site.at(_default, extra, configured=False)
    return _site


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(text: str, what: str) -> tuple[Network, ...]:
    """Comma-separated addresses or networks, or a :class:`DippouchError` naming the one that is not."""
    out: list[Network] = []
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            out.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise DippouchError(f"{what}: {part.strip()!r} is not an address or network (e.g. 10.0.0.0/8)") from None
    return tuple(out)


_metrics: tuple[Network, ...] | None = None


def metrics_networks() -> tuple[Network, ...]:
    """Who may read ``/metrics`` (``DIPPOUCH_METRICS_FROM``; this machine by default)."""
    global _metrics
    if _metrics is None:
        _metrics = networks(os.environ.get("DIPPOUCH_METRICS_FROM") or "127.0.0.0/8,::1", "DIPPOUCH_METRICS_FROM")
    return _metrics
