"""Fair play between people, as pure rules: whether a person may join a game others already joined (blocks and
shared devices), and the signals that two accounts may be one person (a mailbox written two ways, one network,
one side supporting the other far more than chance).

Nothing here reads the database: the store gathers the facts (:mod:`dippouch.store.moderation.stored`) and the use
cases decide with these functions (:mod:`dippouch.play.blocks`, :mod:`dippouch.play.moderation`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "DOTLESS_DOMAINS",
    "JoinCheck",
    "SupportSignal",
    "join_refusal",
    "mailbox",
    "network_of",
    "unusual_supports",
]

DOTLESS_DOMAINS = frozenset({"gmail.com", "googlemail.com"})
"""Mail domains whose boxes ignore dots in the name: ``a.b.c@gmail.com`` reaches ``abc@gmail.com``."""


def mailbox(address: str) -> str:
    """The mailbox an address reaches: its ``+tag`` dropped, and for :data:`DOTLESS_DOMAINS` its dots and the
    domain's two names made one. Two accounts whose addresses share a mailbox are one person's, or a joke."""
    local, _, domain = address.strip().lower().rpartition("@")
    if not local:
        return address.strip().lower()
    local = local.split("+", 1)[0]
    if domain in DOTLESS_DOMAINS:
        local, domain = local.replace(".", ""), "gmail.com"
    return f"{local}@{domain}"


def network_of(address: str) -> str | None:
    """The network a client address is in, as people share one: an IPv4 address's /24, an IPv6 address's /64
    (a household's prefix); ``None`` for what is no address (a test client's name)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


@dataclass(frozen=True)
class JoinCheck:
    """What a join must know of the people in the game already."""

    blocked_by_them: bool
    """Someone in the game blocks the joiner."""
    blocking: bool
    """The joiner blocks someone in the game."""
    same_device: bool
    """Another account signed in on one of the joiner's devices is in the game."""


def join_refusal(check: JoinCheck, *, despite_block: bool = False) -> str | None:
    """Why the join is refused, or ``None``: ``same-device`` (a second account from one device: refused
    outright, one person one seat), ``blocked`` (someone in the game blocks the joiner: they are told only that
    the game cannot take them, the block is never shown to the blocked), ``blocking`` (the joiner blocks someone
    there: warned, and may join anyway with ``despite_block``; no press passes between the two)."""
    if check.same_device:
        return "same-device"
    if check.blocked_by_them:
        return "blocked"
    if check.blocking and not despite_block:
        return "blocking"
    return None


@dataclass(frozen=True)
class SupportSignal:
    """Power ``by`` gave ``count`` of its ``total`` supports to ``to``'s units, against ``chance`` expected."""

    by: str
    to: str
    count: int
    total: int
    chance: float


MIN_SUPPORTS = 4
"""Fewer supports than this say nothing about a preference."""
SHARE = 0.6
"""At least this share of a power's supports going to one other power is unusual..."""
OVER_CHANCE = 2.0
"""...when it is also at least this many times what an even spread over the other powers would give."""


def unusual_supports(
    supports: Iterable[tuple[str, str]], powers: Sequence[str], watched: Mapping[str, object] | None = None
) -> list[SupportSignal]:
    """The pairs of powers where one supported the other far more than chance: each ``(by, to)`` is one support
    order given by power ``by`` to a unit of power ``to`` (supports of one's own units are left out by the
    caller). ``watched``: only powers named here count (those played by people)."""
    given: dict[str, dict[str, int]] = {}
    for by, to in supports:
        if by == to:
            continue
        given.setdefault(by, {}).setdefault(to, 0)
        given[by][to] += 1
    others = max(1, len(powers) - 1)
    chance = 1.0 / others
    out = []
    for by, counts in sorted(given.items()):
        total = sum(counts.values())
        if total < MIN_SUPPORTS:
            continue
        for to, n in sorted(counts.items()):
            if watched is not None and (by not in watched or to not in watched):
                continue
            share = n / total
            if share >= SHARE and share >= OVER_CHANCE * chance:
                out.append(SupportSignal(by, to, n, total, chance))
    return out
