"""Durations and times as coordinators type them (``12d``, ``2026-05-01 18:00``), time zones, and UTC. Nothing here reads the clock: every function that depends on time takes ``now``."""

from __future__ import annotations

import difflib
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dippouch.core.messages import msg
from dippouch.game.errors import GameError

I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""


_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(w|d|h|m|s)", re.IGNORECASE)


_UNIT_SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}


MAX_DURATION = timedelta(days=366)
"""The longest time a duration may name (a phase's time, an extension): a year, which is more than any game
gives a phase, and far enough from the end of the calendar that adding it to a deadline is always a date."""


def parse_duration(text: str) -> timedelta:
    """``12d``, ``36h``, ``1d12h``, ``90m``, ``2w`` -> timedelta; anything else is a clear error."""
    t = str(text).strip().replace(" ", "")
    pos, seconds = 0, 0.0
    for m in _DURATION_RE.finditer(t):
        if m.start() != pos:
            break
        seconds += float(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()]
        pos = m.end()
    if not t or pos != len(t):
        raise GameError(
            msg("cannot read the duration %(text)s; write it like 12d, 36h, 1d12h, 90m or 2w", text=repr(text))
        )
    if seconds > MAX_DURATION.total_seconds():
        raise GameError(
            msg(
                "the duration %(text)s is too long; it may be at most %(most)sd",
                text=repr(text),
                most=MAX_DURATION.days,
            )
        )
    return timedelta(seconds=seconds)


def format_duration(td: timedelta) -> str:
    total = int(td.total_seconds())
    sign = "-" if total < 0 else ""
    total = abs(total)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if total >= size:
            parts.append(f"{total // size}{unit}")
            total %= size
    return sign + ("".join(parts) or "0s")


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``2026-11-21T07:00``, ``...Z``, ``...+01:00``); without an offset it is UTC."""
    t = str(text).strip()
    if t.endswith(("Z", "z")):
        t = t[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(t)
    except ValueError:
        raise GameError(
            msg(
                "cannot read the time %(text)s; write it like 2026-11-21T07:00 or 2026-11-21T07:00+01:00",
                text=repr(text),
            )
        ) from None
    return as_utc(dt)


def as_utc(dt: datetime) -> datetime:
    """Naive datetimes (what SQLite hands back) are UTC by convention everywhere in dippouch."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


MAX_ZONE_NAME = 64
"""Longest time zone name accepted (the longest IANA name has 32 characters)."""


def read_time_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name``, or a clear error naming the closest one: the one reader of a zone someone
    chose (a game's, a person's). A folder of the zone database (``Europe``), a path or a name of hundreds of
    characters is an unknown zone, never an OSError."""
    text = str(name)
    if not text or len(text) > MAX_ZONE_NAME:
        raise GameError(
            msg(
                "unknown time zone %(zone)s (%(length)s characters); use an IANA name such as UTC, Europe/London or "
                "America/Mexico_City",
                zone=repr(text[:40]) + ("..." if len(text) > 40 else ""),
                length=len(text),
            )
        )
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError, UnicodeError):
        from zoneinfo import available_timezones

        zones = sorted(z for z in available_timezones() if z not in ("localtime", "posixrules", "Factory"))
        close = difflib.get_close_matches(text, zones, n=1, cutoff=0.5)
        if close:
            raise GameError(
                msg(
                    "unknown time zone %(zone)s; did you mean %(close)s? Use an IANA name such as UTC, Europe/London "
                    "or America/Mexico_City",
                    zone=repr(text),
                    close=repr(close[0]),
                )
            ) from None
        raise GameError(
            msg(
                "unknown time zone %(zone)s. Use an IANA name such as UTC, Europe/London or America/Mexico_City",
                zone=repr(text),
            )
        ) from None
