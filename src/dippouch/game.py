"""A game over time: deadlines, submissions checked line by line, missed orders, civil disorder, endings.

This module is the game's *rules of procedure*, kept apart from storage (:mod:`dippouch.store`) and from
the command line so that every decision can be tested with plain values. It never reads the clock: every
function that depends on time takes ``now`` as an argument, which is what lets a coordinator (and the
tests) process a game deterministically with ``--now``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError, NotFound
from dippouch.core.jsonio import JsonInputError, position_from_json, position_to_json
from dippouch.core.lookup import load_rule_modules
from dippouch.core.messages import Msg, as_msg, msg, nmsg, quantity
from dippouch.core.orders import Build, Disband, Order
from dippouch.core.position import Position
from dippouch.core.rules.base import DRAW_HOOKS, VICTORY_HOOKS, hooks_for
from dippouch.core.variant import Variant

__all__ = [
    "DEFAULT_DEADLINES",
    "DRAW_HOOKS",
    "SUBMISSION",
    "TYPED",
    "VICTORY_HOOKS",
    "VOTE_RULES",
    "DrawNeeds",
    "Ending",
    "GameError",
    "LineCheck",
    "OrderBounds",
    "RecordNotFound",
    "Settings",
    "VersionLines",
    "check_orders",
    "check_size",
    "check_victory",
    "civil_disorder_streak",
    "draw_agreed",
    "draw_needs",
    "draw_reached",
    "format_duration",
    "game_end",
    "parse_duration",
    "parse_time",
    "position_from_data",
    "position_to_data",
    "powers_to_act",
    "read_time_zone",
    "read_version_lines",
    "surviving_powers",
]

#: The W3K rulebook's rhythm: twelve days to move, two to retreat, two to adjust.
DEFAULT_DEADLINES: dict[str, str] = {"movement": "12d", "retreats": "2d", "adjustments": "2d"}


class GameError(DippouchError):
    """Something a coordinator or player asked for that the game cannot do (as it stands)."""


class RecordNotFound(GameError, NotFound):
    """A game, person, phase, channel or seat asked for by name or number is not in the database.

    A :class:`GameError` as well, so a caller that turns the game's refusals into its own answer (a mail
    reply, a coordinator's message) answers this one too; the doors read :class:`NotFound` and say 404."""


# --------------------------------------------------------------------------------------------------
# Time


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


VOTE_RULES = ("unanimous", "majority", "unconcerned")
"""The rules a game's proposals may pass by (:attr:`Settings.vote_rule`)."""


@dataclass(frozen=True)
class Settings:
    """How a game runs in time, chosen when it is created (and kept in the game file).

    ``time_of_day`` rounds every deadline up to that local time in ``timezone``: W3K's "calendar days
    end at 7 am GMT the following day" is ``timezone="Europe/London", time_of_day="07:00"``.
    """

    deadlines: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_DEADLINES))
    timezone: str = "UTC"
    time_of_day: str | None = None
    missed_limit: int = 2
    """Movement phases missed in a row that put a power in civil disorder; 0 never does."""
    draws: bool = True
    """Whether the surviving powers may agree a draw (and the variant must allow it too)."""
    disorder_bot: str | None = None
    """A bot level (``heuristic``...) that takes over a power in civil disorder until a person takes the seat
    (docs/bots.md); ``None``: a power in civil disorder holds and is removed from as the rules say."""
    secret_ballot: bool = False
    """Draw votes are secret: nobody but the voter sees a vote until the draw passes or the phase it was cast
    in is processed (others see only how many votes the draw still needs). The rulebooks say nothing of
    secret votes, so votes are public unless the coordinator chooses this."""
    anonymous: bool = False
    """Players' names (and their addresses, person pages, anything that tells who they are) are shown only to
    the coordinator and to each player for their own seat until the game is finished; then to everyone as
    usual. The press rules read it (one truth: :func:`dippouch.store.press` fills ``PressRules.anonymous``
    from here). Off unless the coordinator chooses it, for every variant."""
    practice: str | None = None
    """A practice game against bots started from the web: a tag of the client that started it (a hash, never
    its address), so open practice games can be counted per client and kept out of the public list."""
    when_ready: bool = False
    """A phase goes on when its players are ready, and its deadline only moves a game its players left (a
    practice game at the pace "when I'm ready"): pages show no countdown for it."""
    practice_seen: str | None = None
    """When the person playing a practice game last came to it (ISO time; ``None``: not since it started): a
    practice game they have left is stopped after a while (docs/bots.md)."""
    watched: str | None = None
    """When a signed-in person last looked at a game bots alone play (ISO time; ``None``: not since it came to
    bots alone): such a game nobody looks at is paused after a while (docs/bots.md)."""
    scoring: str | None = None
    """The scoring system its end is scored under (a name of :mod:`dippouch.ranking`'s systems; ``None``: the
    default). The variant's own victory rule still decides the result the system scores."""
    vote_rule: str = "unanimous"
    """How the seated players' proposals pass (:mod:`dippouch.play.votes`): ``unanimous`` (every voter says
    yes), ``majority`` (more than half of the voters) or ``unconcerned`` (every voter not concerned: a
    replacement is not voted on by the seat replaced, a concession not by the power conceded to)."""
    language: str = "en"
    """The language of the game's own mail to everyone (results, reminders, notices): a code of
    :data:`dippouch.i18n.LANGUAGES`. A message to one person is in that person's language when they chose one."""
    fog: bool = False
    """Fog of war: each power is shown only what its units and centres see (:mod:`dippouch.core.sight`), on
    every door, until the game is finished; then the whole game to everyone. Off unless the creator chooses it,
    for any variant: the adjudication is the same, only what is shown is narrowed."""
    newcomers: bool = True
    """Whether people with fewer seats behind them than :data:`dippouch.people.reliability.PROBATION_SEATS` may
    join (and, on probation, get past a minimum reliability). On unless the creator keeps the game for players
    with a record: a newcomer could otherwise never get one (the players' trial, issue 55)."""

    def __post_init__(self) -> None:
        from dippouch.i18n import LANGUAGES

        if self.language not in LANGUAGES:
            raise GameError(
                msg(
                    "no language %(language)s; languages: %(languages)s",
                    language=repr(self.language),
                    languages=", ".join(LANGUAGES),
                )
            )
        for kind, text in self.deadlines.items():
            if kind not in {k.value for k in PhaseKind}:
                raise GameError(
                    msg(
                        "deadline for unknown phase kind %(kind)s; kinds are movement, retreats, adjustments",
                        kind=repr(kind),
                    )
                )
            if parse_duration(text) <= timedelta(0):
                # A phase due the moment it opens would be processed, and the next opened, without end.
                raise GameError(
                    msg(
                        "the time for a %(kind)s phase must be longer than zero (it was %(value)s)",
                        kind=kind,
                        value=repr(text),
                    )
                )
        read_time_zone(self.timezone)
        if self.time_of_day is not None:
            self.local_time()
        if self.missed_limit < 0:
            raise GameError(msg("the missed-phase limit cannot be negative (0 means never)"))
        if self.vote_rule not in VOTE_RULES:
            raise GameError(msg("no such vote rule; the rules are unanimous, majority and unconcerned"))

    def local_time(self) -> time | None:
        if self.time_of_day is None:
            return None
        try:
            return time.fromisoformat(self.time_of_day)
        except ValueError:
            raise GameError(
                msg("cannot read the time of day %(text)s; write it like 07:00", text=repr(self.time_of_day))
            ) from None

    def duration(self, kind: PhaseKind | str) -> timedelta:
        k = PhaseKind(kind).value
        return parse_duration(self.deadlines.get(k, DEFAULT_DEADLINES[k]))

    def deadline(self, kind: PhaseKind | str, start: datetime) -> datetime:
        """When a phase of ``kind`` that opened at ``start`` is due."""
        return self.round_up(as_utc(start) + self.duration(kind))

    def round_up(self, moment: datetime) -> datetime:
        """The first ``time_of_day`` (local) at or after ``moment``; DST-safe because it builds local times."""
        tod = self.local_time()
        if tod is None:
            return as_utc(moment)
        tz = read_time_zone(self.timezone)
        local = as_utc(moment).astimezone(tz)
        day: date = local.date()
        for _ in range(3):
            candidate = datetime.combine(day, tod, tzinfo=tz)
            if candidate >= local:
                return candidate.astimezone(UTC)
            day += timedelta(days=1)
        raise AssertionError("unreachable")  # pragma: no cover

    def describe(self, moment: datetime) -> str:
        """``2026-12-03 07:00 GMT (07:00 UTC)``: the local time the coordinator chose, and UTC."""
        tz = read_time_zone(self.timezone)
        local = as_utc(moment).astimezone(tz)
        text = local.strftime("%Y-%m-%d %H:%M %Z")
        if self.timezone != "UTC":
            text += as_utc(moment).strftime(" (%Y-%m-%d %H:%M UTC)")
        return text

    def to_data(self) -> dict[str, Any]:
        return {
            "deadlines": dict(self.deadlines),
            "timezone": self.timezone,
            "time_of_day": self.time_of_day,
            "missed_limit": self.missed_limit,
            "draws": self.draws,
            **({"secret_ballot": True} if self.secret_ballot else {}),
            **({"anonymous": True} if self.anonymous else {}),
            **({"disorder_bot": self.disorder_bot} if self.disorder_bot else {}),
            **({"practice": self.practice} if self.practice else {}),
            **({"when_ready": True} if self.when_ready else {}),
            **({"practice_seen": self.practice_seen} if self.practice_seen else {}),
            **({"watched": self.watched} if self.watched else {}),
            **({"scoring": self.scoring} if self.scoring else {}),
            **({"language": self.language} if self.language != "en" else {}),
            **({"vote_rule": self.vote_rule} if self.vote_rule != "unanimous" else {}),
            **({"newcomers": False} if not self.newcomers else {}),
            **({"fog": True} if self.fog else {}),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Settings:
        return cls(
            deadlines={**DEFAULT_DEADLINES, **dict(data.get("deadlines", {}))},
            timezone=str(data.get("timezone", "UTC")),
            time_of_day=data.get("time_of_day"),
            missed_limit=int(data.get("missed_limit", 2)),
            draws=bool(data.get("draws", True)),
            secret_ballot=bool(data.get("secret_ballot", False)),
            anonymous=bool(data.get("anonymous", False)),
            disorder_bot=str(data["disorder_bot"]) if data.get("disorder_bot") else None,
            practice=str(data["practice"]) if data.get("practice") else None,
            when_ready=bool(data.get("when_ready", False)),
            practice_seen=str(data["practice_seen"]) if data.get("practice_seen") else None,
            watched=str(data["watched"]) if data.get("watched") else None,
            scoring=str(data["scoring"]) if data.get("scoring") else None,
            language=str(data.get("language") or "en"),
            vote_rule=str(data.get("vote_rule") or "unanimous"),
            newcomers=bool(data.get("newcomers", True)),
            fog=bool(data.get("fog", False)),
        )


def seen_position(variant: Variant, position: Position, power: str, settings: Settings) -> Position:
    """The position ``power``'s orders are checked on when they arrive: in a fog-of-war game only what the power
    sees (:mod:`dippouch.core.sight`), so that neither the check's verdicts nor its suggestions tell of a unit out of
    sight (a support of a unit the power cannot see is refused as of no unit there); else the position itself."""
    if not settings.fog:
        return position
    from dippouch.core.sight import sight, veil

    return veil(position, sight(variant, position, power))


def in_fog(record: Mapping[str, Any]) -> bool:
    """Whether a stored phase (with its game's ``settings`` and ``ending``, as the store's phase record has them)
    is of a fog-of-war game still running (:attr:`Settings.fog`): what it tells each power must then be narrowed
    to their sight (:func:`dippouch.render.fog.fog_record`)."""
    settings = record.get("settings") or {}
    return bool(isinstance(settings, Mapping) and settings.get("fog")) and not record.get("ending")


# --------------------------------------------------------------------------------------------------
# Positions as stored data (the adjudication contract's shape, with names, so a game file is readable)


def position_to_data(variant: Variant, position: Position) -> dict[str, Any]:
    """A position as games store it: the adjudication contract's JSON shape, so there is one serialisation."""
    return position_to_json(variant, position)


# What a stored position leaves out is empty, not the variant's start (the contract's reading default).
_STORED_DEFAULTS: dict[str, Any] = {"units": [], "supply_centers": {}, "home_centers": {}, "state": {}}


def position_from_data(variant: Variant, data: Mapping[str, Any]) -> Position:
    """Read a stored or imported position; wrong names give a :class:`GameError`, not a traceback."""
    if not isinstance(data, Mapping):
        raise GameError(msg("a position is a JSON object with 'phase', 'units', 'supply_centers' and 'home_centers'"))
    if data.get("phase") is None:
        raise GameError(msg("position: bad or missing phase (no 'phase')"))
    try:
        return position_from_json(variant, {**_STORED_DEFAULTS, **data})
    except JsonInputError as e:
        raise GameError(msg("position: %(reason)s", reason=e.msg)) from None


# --------------------------------------------------------------------------------------------------
# Submissions


@dataclass(frozen=True)
class LineCheck:
    """One line of a submission and what will happen to it: the order as it will be carried out, or why it
    was refused; and, for an order the other powers' orders decide (W3K hand-overs and supply), a note."""

    line: int
    text: str
    order: str | None = None
    error: Msg | None = None
    """Why the line was refused, said in the reader's language where it is shown (``str()``: its English)."""
    note: Msg | None = None

    @property
    def accepted(self) -> bool:
        return self.error is None

    @property
    def said_no_orders(self) -> bool:
        """The line "no orders": no order, but the player's word that the submission stands with none."""
        return self.error is None and self.order is None

    def to_data(self) -> dict[str, Any]:
        """The line as stored: the refusal and the note as message values (``error_msg``, ``note_msg``: id and
        values, said in any language later), and their English beside them (``error``, ``note``) for the
        programs, the JSON answers and the game files that read a line's text."""
        data: dict[str, Any] = {"line": self.line, "text": self.text, "order": self.order, "error": None}
        if self.error is not None:
            data["error"] = str(self.error)
            data["error_msg"] = self.error.to_data()
        if self.note is not None:
            data["note"] = str(self.note)
            data["note_msg"] = self.note.to_data()
        return data

    @classmethod
    def from_data(cls, d: Mapping[str, Any]) -> LineCheck:
        """A stored line, written as :meth:`to_data` writes it or before messages were values (the English
        text alone: a message whose id is that text, said as it is)."""
        return cls(
            int(d["line"]),
            str(d["text"]),
            d.get("order"),
            stored_msg(d.get("error_msg"), d.get("error")),
            stored_msg(d.get("note_msg"), d.get("note")),
        )


def stored_msg(data: Any, text: Any = None) -> Msg | None:
    """A message kept in a record: its data (:meth:`Msg.to_data`), or a text kept before messages were values
    (or that no template read), which is said as it is; ``None`` when there is neither."""
    if isinstance(data, Mapping) and "id" in data:
        return Msg.from_data(data)
    if isinstance(text, Mapping) and "id" in text:
        return Msg.from_data(text)
    if text is None or text == "":
        return None
    return as_msg(str(text))


# Version instructions. The W3K rulebook asks players to add "any version instructions you may wish to
# give, to guide the Coordinator in selecting the correct submission": post and e-mail cross, so a player
# numbers their own versions ("Version 2") or says which one counts ("Version 2 stands"). These lines are
# read here, in one place, by every way orders come in (the command line, post, e-mail, transcriptions).

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10,
}  # fmt: skip
_VERSION_NUMBER = (
    r"(?:version|vers\.?|ver\.?|v\.?|revision|rev\.?|draft)\s*(?:no\.?|number|#)?\s*[:#]?\s*(\d{1,3}|"
    + "|".join(_NUMBER_WORDS)
    + r")\b"
)
_LABEL_RE = re.compile(r"^\W*(?:this\s+is\s+)?(?:my\s+)?" + _VERSION_NUMBER + r"\W*$", re.IGNORECASE)
_ORDINAL_LABEL_RE = re.compile(
    r"^\W*(?:this\s+is\s+)?(?:my\s+|the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,3}(?:st|nd|rd|th))\s+(?:version|revision|draft)\W*$",
    re.IGNORECASE,
)
_STANDS_RE = re.compile(
    r"^\W*(?:please\s+)?(?:use|keep|revert\s+to|go\s+back\s+to|reinstate|restore|apply)?\s*(?:my\s+|the\s+)?"
    + _VERSION_NUMBER
    + r"\s*(?:\(.*?\)\s*)?(?:stands|standing|counts|is\s+(?:my\s+)?(?:final|valid|the\s+one)|should\s+stand|applies|is\s+to\s+be\s+used)?\W*(?:\s*[,;.]?\s*(?:ignore|disregard|cancel)\b.*)?$",
    re.IGNORECASE,
)
_STANDS_VERB_RE = re.compile(
    r"\b(?:stands|standing|counts|final|valid|should\s+stand|applies|use|keep|revert|go\s+back|reinstate|restore|apply|the\s+one)\b",
    re.IGNORECASE,
)
_NOTE_RE = re.compile(
    r"^\W*(?:this\s+)?(?:replaces|supersedes|cancels|overrides|amends|revises)\s+(?:all\s+)?(?:my\s+|the\s+)?(?:earlier|previous|prior|former)?\s*(?:"
    + _VERSION_NUMBER
    + r"|versions?|orders|submissions?)?.*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class VersionLines:
    """What a submission's version lines said, and the text left for the order check."""

    text: str
    """The submission with its version lines blanked (line numbers stay those the player wrote)."""
    label: str | None = None
    """The player's own number for this version ("Version 2" -> ``"2"``)."""
    reinstates: int | None = None
    """"Version 2 stands": the player's number of the version that is to count instead of this one."""
    notes: tuple[str, ...] = ()
    """Lines read as version instructions, for the receipt."""
    ready: bool = False
    """A line "Ready" (or "I am ready", "Ready to process"): the web's ready box, for mail, post and files."""
    votes: tuple[tuple[str, int | None], ...] = ()
    """Lines "Vote draw", "Vote yes 3", "Vote no 3", "Vote withdraw 3": the table's proposals voted on from a
    mail (:func:`dippouch.play.votes.from_lines`), each as (what, the proposal's number or None)."""


def _number(text: str) -> int:
    t = text.lower()
    if t in _NUMBER_WORDS:
        return _NUMBER_WORDS[t]
    return int(re.sub(r"\D", "", t))


_VOTE_RE = re.compile(r"^\W*vote\s+(draw|yes|no|withdraw)(?:\s+(?:on\s+)?(?:proposal\s+)?#?(\d+))?\W*$", re.I)
_READY_RE = re.compile(r"^\W*(?:i\s+am\s+|i'm\s+|we\s+are\s+)?ready(?:\s+to\s+(?:process|go|adjudicate))?\W*$", re.I)


def read_version_lines(text: str) -> VersionLines:
    """Find the version lines of a submission: "Version 2" names it, "Version 2 stands" names the one that
    counts, "This replaces version 1" is a note (the newest counts anyway), "Ready" marks the power ready as the
    web's box does (every door takes it, so a letter or a mail can say it too). Other lines are left as they
    are."""
    out: list[str] = []
    label: str | None = None
    reinstates: int | None = None
    notes: list[str] = []
    ready = False
    votes: list[tuple[str, int | None]] = []
    for raw in str(text).splitlines():
        line = raw.strip()
        if _READY_RE.match(line):
            ready = True
            notes.append(line)
            out.append("")
            continue
        m = _VOTE_RE.match(line)
        if m:
            votes.append((m.group(1).lower(), int(m.group(2)) if m.group(2) else None))
            notes.append(line)
            out.append("")
            continue
        m = _LABEL_RE.match(line)
        if m:
            label = str(_number(m.group(1)))
            notes.append(line)
            out.append("")
            continue
        m = _ORDINAL_LABEL_RE.match(line)
        if m:
            label = str(_number(m.group(1)))
            notes.append(line)
            out.append("")
            continue
        m = _STANDS_RE.match(line)
        if m and _STANDS_VERB_RE.search(line):
            reinstates = _number(m.group(1))
            notes.append(line)
            out.append("")
            continue
        if line and _NOTE_RE.match(line):
            notes.append(line)
            out.append("")
            continue
        out.append(raw)
    return VersionLines("\n".join(out), label, reinstates, tuple(notes), ready, tuple(votes))


def _legal_table(variant: Variant, position: Position, power: str) -> Mapping[int, Sequence[Order]]:
    from dippouch.core.legal_orders import legal_orders

    return legal_orders(variant, position, power)


MAX_TEXT = 1_000_000
"""Characters a submission may have in all, quoted e-mail history included."""
MAX_ORDER_TEXT = 64_000
"""Characters of order lines (not blank, not quoted with ``>``) one submission may have; the contract's limit."""
MAX_ORDER_LINES = 1_000
"""Order lines one submission may have: ten times the largest army of any variant."""


@dataclass(frozen=True)
class OrderBounds:
    """How much order text a door takes in one submission, checked before a line is read: each misspelt line
    costs a search for the closest names (40,000 of them took half a minute), so every door bounds the text,
    each as tightly as what people send through it allows.

    ``total``: characters in all (quoted mail history included); ``chars`` and ``lines``: characters and lines
    of orders (not blank, not quoted with ``>``); ``line``: characters in one line, where a door takes one
    order a line (None: no bound of its own)."""

    total: int = MAX_TEXT
    chars: int = MAX_ORDER_TEXT
    lines: int = MAX_ORDER_LINES
    line: int | None = None


SUBMISSION = OrderBounds()
"""A mail, a letter or a command line: quoted history is read past, not checked."""
TYPED = OrderBounds(total=20_000, chars=20_000, lines=100, line=300)
"""Text typed into a page or sent to the JSON API: a W3K power's every order is a few dozen lines of under
150 characters, and each check of this text answers while the player types."""


def check_size(text: str, bounds: OrderBounds = SUBMISSION) -> None:
    """Refuse order text beyond ``bounds``, or text that is not text (NUL, a lone surrogate: no database keeps
    it), with a message naming the limit; the one size check of every door."""
    if len(text) > bounds.total:
        raise GameError(
            msg(
                "the order text is %(length)s characters long; at most %(most)s are accepted",
                length=quantity(len(text)),
                most=quantity(bounds.total),
            )
        )
    if "\x00" in text or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise GameError(msg("the order text contains characters that are not text (NUL or lone surrogates)"))
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(">")]
    if len(lines) > bounds.lines:
        raise GameError(
            msg(
                "%(count)s lines of orders; at most %(most)s lines are sent or checked at once",
                count=quantity(len(lines)),
                most=quantity(bounds.lines),
            )
        )
    size = sum(len(ln) for ln in lines)
    if size > bounds.chars:
        raise GameError(
            msg(
                "%(count)s characters of orders besides quoted lines; at most %(most)s characters are accepted",
                count=quantity(size),
                most=quantity(bounds.chars),
            )
        )
    if bounds.line is not None:
        for n, line in enumerate(text.splitlines(), 1):
            if len(line) > bounds.line:
                raise GameError(
                    msg(
                        "line %(line)s is %(length)s characters long; an order line has at most %(most)s "
                        "(one order a line)",
                        line=n,
                        length=quantity(len(line)),
                        most=bounds.line,
                    )
                )


def check_orders(
    variant: Variant, position: Position, power: str, text: str, bounds: OrderBounds = SUBMISSION
) -> list[LineCheck]:
    """Check a submission line by line, as it arrives, so the player sees at once what will be executed.

    Every order line is judged by :func:`dippouch.core.order_checks.check_submission`, the adjudicator's own
    rules applied to this power's orders in the order given: a line is refused when it cannot be read, is
    headed for another power, or the adjudicator would not carry it out (illegal, a second order for a unit,
    a build beyond the count, a failure certain from the board). An accepted line is echoed as it will be
    carried out (unit type and coasts from the board). A refused movement order gets the closest legal
    orders as a hint.
    """
    from dippouch.core.notation import format_order, parse_orders
    from dippouch.core.order_checks import check_submission

    check_size(text, bounds)
    kind = variant.calendar.kind(position.phase)
    power = variant.power(power).name
    out: list[LineCheck | None] = []
    pending: list[tuple[int, int, str, Order]] = []  # (index in out, line, text, order)
    said: list[LineCheck] = []
    rows = text.splitlines()
    for number, row in enumerate(rows, start=1):
        if _NO_ORDERS.match(row):
            said.append(LineCheck(number, row.strip(), note=NO_ORDERS_NOTE))
            rows[number - 1] = ""
    if said:
        text = "\n".join(rows)
    for pl in parse_orders(variant, text, phase_kind=kind):
        if pl.error is not None:
            out.append(LineCheck(pl.line, pl.text, error=pl.error.msg))
        elif pl.power is not None and pl.power != power:
            headed = msg("this line is headed %(power)s, but these are %(own)s's orders", power=pl.power, own=power)
            out.append(LineCheck(pl.line, pl.text, error=headed))
        else:
            assert pl.order is not None
            pending.append((len(out), pl.line, pl.text, pl.order))
            out.append(None)
    verdicts = check_submission(variant, position, power, [o for _, _, _, o in pending])
    legal: Mapping[int, Sequence[Order]] | None = None
    for (slot, line, text_, _), v in zip(pending, verdicts, strict=True):
        canonical = format_order(variant, v.order, phase_kind=kind)
        error = v.problem
        if error is not None:
            if v.first is not None:
                again = msg("%(unit)s already has an order", unit=error.args.get("unit", ""))
                error = msg(
                    "%(reason)s on line %(line)d (the first order counts)", reason=again, line=pending[v.first][1]
                )
            elif kind == PhaseKind.MOVEMENT and v.order.unit_loc is not None:
                if legal is None:
                    legal = _legal_table(variant, position, power)
                close = _closest(variant, kind, v.order, legal)
                if close:
                    error = msg("%(reason)s; closest legal: %(orders)s", reason=error, orders=close)
        out[slot] = LineCheck(line, text_, canonical, error, v.note)
    return sorted([*(c for c in out if c is not None), *said], key=lambda c: c.line)


_NO_ORDERS = re.compile(r"^\s*no\s+orders?(\s+(for\s+)?this\s+(season|phase|turn))?\s*[.!]*\s*$", re.IGNORECASE)
NO_ORDERS_NOTE = msg("no orders: this submission replaces the earlier orders with none")
"""The note on a line that says "no orders": the player's word that an empty submission replaces the earlier one."""


def submission_stands(lines: Sequence[LineCheck], replace_with_nothing: bool = False) -> bool:
    """Whether a submission replaces the power's earlier orders (the rule for partial submissions).

    A submission with at least one accepted order replaces the earlier version in full: its accepted orders
    are the power's orders, its refused lines are dropped (the earlier version's orders are not merged in).
    One with no accepted order (nothing but chat, an empty file, or only lines that were refused) is kept
    for the record but replaces nothing, unless the sender says so: a line "no orders", or
    ``replace_with_nothing`` (``submit --replace-with-nothing``).
    """
    if any(ln.accepted and ln.order is not None for ln in lines):
        return True
    return replace_with_nothing or any(ln.said_no_orders for ln in lines)


def ready_refusal(lines: Sequence[LineCheck], replace_with_nothing: bool = False) -> Msg | None:
    """Why a submission may not mark its power ready, or ``None``: ready needs an accepted order (or the
    player's word that there are none)."""
    if submission_stands(lines, replace_with_nothing):
        return None
    refused = sum(1 for ln in lines if not ln.accepted)
    what = msg("all %(count)d line(s) were refused", count=refused) if refused else msg("it has no order line")
    return msg(
        "not marked ready: %(reason)s, so this submission replaces nothing; send orders, or a line 'no orders' to "
        "be ready with none",
        reason=what,
    )


def unordered(
    variant: Variant, position: Position, power: str, lines: Sequence[LineCheck]
) -> list[tuple[list[str], Msg]]:
    """What happens to what the standing orders ``lines`` leave out: ``(units, what happens)`` pairs, the
    units in canonical text (``A par``; none for builds and removals): units hold (movement), are disbanded
    (retreats), builds are waived and removals made by the rules (adjustments)."""
    from dippouch.core.notation import format_unit, parse_order

    kind = variant.calendar.kind(position.phase)
    m = variant.map
    ordered: set[int] = set()
    orders = []
    for ln in lines:
        if ln.accepted and ln.order is not None:
            o = parse_order(variant, ln.order, phase_kind=kind)
            orders.append(o)
            if o.unit_loc is not None:
                ordered.add(m.province_of(o.unit_loc))
    if kind == PhaseKind.MOVEMENT:
        left = sorted(
            format_unit(variant, u.kind, u.loc) for u in position.units_of(power) if m.province_of(u.loc) not in ordered
        )
        return [(left, msg("no order, they hold") if len(left) > 1 else msg("no order, it holds"))] if left else []
    if kind == PhaseKind.RETREATS:
        left = sorted(
            format_unit(variant, d.unit.kind, d.unit.loc)
            for p, d in position.dislodged.items()
            if d.unit.power == power and p not in ordered
        )
        gone = msg("no order, they are disbanded") if len(left) > 1 else msg("no order, it is disbanded")
        return [(left, gone)] if left else []
    delta = adjustment_delta(variant, position, power)
    hooks = hooks_for(variant)
    if delta > 0:
        used = sum(hooks.builds_used(o) for o in orders)
        if used < delta:
            return [([], msg("%(count)d build(s) not ordered: waived", count=delta - used))]
    elif delta < 0:
        owed = -delta - sum(1 for o in orders if isinstance(o, Disband))
        if owed > 0:
            return [
                ([], msg("%(count)d removal(s) not ordered: made for %(power)s by the rules", count=owed, power=power))
            ]
    return []


def _closest(variant: Variant, kind: PhaseKind, order: Order, legal: Mapping[int, Sequence[Order]]) -> str:
    """The closest legal orders of the unit (``A Paris - Burgundy, A Paris H``), when some are close to the
    refused one; ``""`` when none is."""
    from dippouch.core.notation import format_order

    m = variant.map
    loc = order.unit_loc
    assert loc is not None
    options = next((os_ for lloc, os_ in legal.items() if m.province_of(lloc) == m.province_of(loc)), ())
    texts = {format_order(variant, o, phase_kind=kind): o for o in options}
    close = difflib.get_close_matches(format_order(variant, order, phase_kind=kind), list(texts), n=3, cutoff=0.5)
    # Matched on the short forms (closer in spelling), shown with full names like the rest of the message.
    shown = [format_order(variant, texts[c], phase_kind=kind, full=True) for c in close]
    return ", ".join(shown)


def adjustment_delta(variant: Variant, position: Position, power: str) -> int:
    """Builds (positive) or removals owed (negative), as the adjudicator counts them: the variant's
    ``adjustment_delta`` hook (centres minus unit costs by default; 1897's opening winter gives one build
    to powers that own nothing yet)."""
    return hooks_for(variant).adjustment_delta(position, power)


def powers_to_act(variant: Variant, position: Position) -> list[str]:
    """The powers that must send orders before a phase can be processed early (everyone ready)."""
    kind = variant.calendar.kind(position.phase)
    hooks = hooks_for(variant)
    # A power the rules keep from giving orders (1000 AD's civil disorder), or whose units they let nobody
    # order, has nothing to send: its removals are made for it.
    refused = {p for p in variant.power_names if hooks.orders_refused(position, p) is not None}
    may_order = hooks.may_order
    if kind == PhaseKind.MOVEMENT:
        return [
            p
            for p in variant.power_names
            if p not in refused and any(may_order(position, p, u) for u in position.units_of(p))
        ]
    if kind == PhaseKind.RETREATS:
        return sorted(
            {
                d.unit.power
                for d in position.dislodged.values()
                if d.unit.power not in refused and may_order(position, d.unit.power, d.unit)
            }
        )
    out = []
    for p in variant.power_names:
        if p in refused:
            continue
        delta = adjustment_delta(variant, position, p)
        if delta < 0:
            out.append(p)
        elif delta > 0:
            table = _legal_table(variant, position, p)
            if any(isinstance(o, Build) for os_ in table.values() for o in os_):
                out.append(p)
    return out


def may_submit(variant: Variant, position: Position, power: str) -> bool:
    """Whether ``power`` may send orders now: it must act (:func:`powers_to_act`), or, in an adjustment
    phase, it could build with supply another power sends it (W3K: a power with no builds of its own may
    be sent supply, and must be able to order the builds)."""
    if power in powers_to_act(variant, position):
        return True
    hooks = hooks_for(variant)
    if variant.calendar.kind(position.phase) != PhaseKind.ADJUSTMENTS or hooks.orders_refused(position, power):
        return False
    alive = bool(position.units_of(power) or position.centres_of(power))
    return alive and hooks.supply_note(position, power) is not None


def civil_disorder_streak(missed: Iterable[bool]) -> int:
    """How many of the most recent movement phases (oldest first in ``missed``) were missed in a row."""
    streak = 0
    for m in missed:
        streak = streak + 1 if m else 0
    return streak


# --------------------------------------------------------------------------------------------------
# Endings


@dataclass(frozen=True)
class Ending:
    kind: str
    """``victory``, ``draw``, ``last_year``, ``ranked`` (few powers left, ranked by size) or ``no_powers``."""
    powers: tuple[str, ...]
    text: str
    """The ending in English: what logs, the command line and endings stored before messages were values read."""
    why: Msg | None = None
    """The ending as a message value, said in each reader's language where it is shown (:attr:`message`)."""

    @classmethod
    def of(cls, kind: str, powers: tuple[str, ...], why: Msg) -> Ending:
        """An ending told by ``why``, its English kept beside it."""
        return cls(kind, powers, str(why), why)

    @property
    def message(self) -> Msg:
        """What a door says (``saying.say(ending.message, lang)``): the value, or an old stored ending's text."""
        return self.why if self.why is not None else Msg(self.text)

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "powers": list(self.powers), "text": self.text}
        if self.why is not None:
            out["why"] = self.why.to_data()
        return out

    @classmethod
    def from_data(cls, d: Mapping[str, Any]) -> Ending:
        why = d.get("why")
        return cls(
            str(d["kind"]),
            tuple(d.get("powers", ())),
            str(d.get("text", "")),
            Msg.from_data(why) if isinstance(why, Mapping) else None,
        )


# Victory tests and draw conditions a variant names with ``[victory] hook``/``draw_hook`` live in the core's
# registry (``dippouch.core.rules.base.register_victory``), where the variant schema checks the names too.


def check_victory(variant: Variant, position: Position) -> str | None:
    hook = variant.victory.get("hook")
    if hook:
        load_rule_modules()  # they register the victory tests
        fn = VICTORY_HOOKS.get(str(hook))
        if fn is None:
            raise GameError(
                msg("variant %(variant)s names an unknown victory hook %(hook)s", variant=variant.name, hook=repr(hook))
            )
        return fn(variant, position)
    need = variant.victory.get("centres")
    by_power = variant.victory.get("by_power", {})
    if need is None and not by_power:
        return None
    counts = {p: len(position.centres_of(p)) for p in variant.power_names}
    # ``[victory] by_power`` gives a power its own target (1000 AD: 25, 28 or 31); ``centres`` the rest.
    reached = [
        p for p in variant.power_names if by_power.get(p, need) is not None and counts[p] >= int(by_power.get(p, need))
    ]
    best = max((counts[p] for p in reached), default=0)
    leaders = [p for p in reached if counts[p] == best]
    if len(leaders) == 1:
        return leaders[0]
    return None


def surviving_powers(variant: Variant, position: Position) -> list[str]:
    return [p for p in variant.power_names if position.units_of(p) or position.centres_of(p)]


def game_end(variant: Variant, position: Position) -> Ending | None:
    """Does the game end on reaching ``position``? Victory first, then the variant's last year."""
    winner = check_victory(variant, position)
    if winner is not None:
        n = len(position.centres_of(winner))
        return Ending.of(
            "victory",
            (winner,),
            nmsg(
                "%(power)s wins with %(num)d supply centre.",
                "%(power)s wins with %(num)d supply centres.",
                n,
                power=winner,
            ),
        )
    remaining = variant.victory.get("remaining")
    if remaining is not None:
        # ``[victory] remaining = 3`` (1000 AD rule 12e): with that many powers left the game ends and
        # they rank by size. A power counts while it owns a centre, in civil disorder or not.
        left = [p for p in variant.power_names if position.centres_of(p)]
        if len(left) <= int(remaining):
            ranked = tuple(sorted(left, key=lambda p: (-len(position.centres_of(p)), p)))
            listing = ", ".join(f"{p} ({len(position.centres_of(p))})" for p in ranked)
            return Ending.of(
                "ranked",
                ranked,
                msg(
                    "Only %(count)s powers remain; they rank by size: %(listing)s.", count=len(ranked), listing=listing
                ),
            )
    if not surviving_powers(variant, position):
        # No power has a unit or a centre (1897 when nobody placed a first unit): nothing can ever happen
        # again, and every phase after this one would be processed at once with nobody to act.
        return Ending.of(
            "no_powers", (), msg("No power has a unit or a supply centre left: the game ends with no winner.")
        )
    last = variant.calendar.last_year
    if last is not None and position.phase.year > last:
        survivors = tuple(surviving_powers(variant, position))
        return Ending.of(
            "last_year",
            survivors,
            msg(
                "The game ends after %(year)s, its last year; surviving: %(powers)s.",
                year=last,
                powers=", ".join(survivors),
            ),
        )
    return None


@dataclass(frozen=True)
class DrawNeeds:
    """Where a draw stands: whether one is possible now (and why not), who votes, who has not voted yes."""

    possible: bool
    why_not: Msg | None
    """Why no draw is possible now, said in the reader's language where it is shown."""
    voters: tuple[str, ...]
    """The surviving powers not in civil disorder: every one must vote yes."""
    missing: tuple[str, ...]
    """Voters without a yes vote (a secret ballot shows others only how many)."""

    @property
    def reached(self) -> bool:
        return self.possible and bool(self.voters) and not self.missing


def draw_needs(
    variant: Variant, position: Position, settings: Settings, votes: Mapping[str, bool], excused: Iterable[str] = ()
) -> DrawNeeds:
    """What a draw needs now: a yes from every surviving power (powers in civil disorder have no vote), if
    the game and the variant allow one, and the variant's draw condition holds (W3K: only between kingdoms,
    its ``draw_hook``). ``why_not`` says, in the rule's own registered words, why none is possible now."""
    from dippouch.core.rules.base import description

    excused_set = set(excused)
    voters = tuple(p for p in surviving_powers(variant, position) if p not in excused_set)
    missing = tuple(p for p in voters if not votes.get(p, False))
    why: Msg | None = None
    if not settings.draws:
        why = msg("this game does not allow draws")
    elif not variant.victory.get("draws", True):
        why = msg("%(variant)s does not allow draws", variant=variant.title)
    else:
        draw_hook = variant.victory.get("draw_hook")
        if draw_hook:
            load_rule_modules()  # they register the draw conditions
        if draw_hook and DRAW_HOOKS[str(draw_hook)](variant, position) is None:
            rule = description("draw", str(draw_hook))
            why = (
                msg("the variant's draw condition is not met. %(rule)s", rule=Msg(rule))
                if rule
                else msg("the variant's draw condition (%(hook)s) is not met", hook=str(draw_hook))
            )
    return DrawNeeds(why is None, why, voters, missing)


def draw_reached(
    variant: Variant, position: Position, settings: Settings, votes: Mapping[str, bool], excused: Iterable[str] = ()
) -> Ending | None:
    """A draw needs a yes from every surviving power (powers in civil disorder have no vote): see :func:`draw_needs`."""
    needs = draw_needs(variant, position, settings, votes, excused)
    if needs.reached:
        survivors = tuple(surviving_powers(variant, position))
        return Ending.of(
            "draw",
            survivors,
            draw_agreed(needs.voters, survivors),
        )
    return None


def draw_agreed(voters: Iterable[str], sharing: Iterable[str]) -> Msg:
    """How a draw's ending reads, the same whichever door voted it: the powers named once when those who
    agreed are those who share it (the usual draw of all survivors), both lists when they differ."""
    voting, shared = list(voters), list(sharing)
    if sorted(voting) == sorted(shared):
        return msg("Draw agreed and shared by %(powers)s.", powers=", ".join(shared))
    return msg("Draw agreed by %(voters)s; shared by %(powers)s.", voters=", ".join(voting), powers=", ".join(shared))
