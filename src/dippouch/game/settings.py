"""A game's own settings (deadlines, press, fog, votes, language, the clock's rhythm), read from and written to the stored data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import msg
from dippouch.game.clock import as_utc, parse_duration, read_time_zone
from dippouch.game.errors import GameError

I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""


#: The W3K rulebook's rhythm: twelve days to move, two to retreat, two to adjust.
DEFAULT_DEADLINES: dict[str, str] = {"movement": "12d", "retreats": "2d", "adjustments": "2d"}


VOTE_RULES = ("unanimous", "majority", "unconcerned")
"""The rules a game's proposals may pass by (:attr:`GameSettings.vote_rule`)."""


@dataclass(frozen=True)
class GameSettings:
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
    usual. The press rules read it (one truth: :func:`dippouch.store.press.messages` fills ``PressRules.anonymous``
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
    def from_data(cls, data: Mapping[str, Any]) -> GameSettings:
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
