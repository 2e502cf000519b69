"""What the dispatcher hands its channels, and how a channel joins: the event kinds, an :class:`Event` with
its :class:`Reader` s, the :class:`Look` the channels share, and the registry (:func:`register`,
:func:`channel`), kept apart from the dispatcher so the sources it reads (:mod:`dippouch.notify.unlogged`,
:mod:`dippouch.notify.reminders`) and the channels build on it without importing the dispatcher back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from dippouch.game import GameSettings, as_utc
from dippouch.notify.events import NoticePreferences, preferences_of
from dippouch.store.notify import stored
from dippouch.store.notify.events import LoggedEvent, ProcessedPhase
from dippouch.store.repository import GameStore

__all__ = [
    "KINDS",
    "LOOK_BACK",
    "ROW_KINDS",
    "Channel",
    "Event",
    "Look",
    "Reader",
    "channel",
    "register",
    "registered",
    "seated_readers",
    "starting",
    "unregister",
    "when",
]

KINDS: dict[str, str] = {
    "phase_processed": "a phase was processed (the event log's `processed`)",
    "game_starting": "a game began (its first phase open; the event log's `started`, else the unlogged scan)",
    "seat_offered": "a seat is in the replacement pool (the unlogged scan)",
    "message_received": "press a seated power may read (the unlogged scan)",
    "deadline": "a deadline is near and orders are missing (the reminder policy, by the clock)",
    "pause": "the coordinator paused the game (the event log)",
    "resume": "the game resumed (the event log)",
    "extend": "the deadline was extended (the event log)",
    "rollback": "the coordinator rolled the game back (the event log)",
    "game_ended": "a game finished: a solo, a draw or a concession (the unlogged scan)",
    "proposal": "a seated player proposed something the table votes on (the event log's `proposal`, told to "
    "the other players who vote on it)",
    "seat_lost": "a person's seat was freed by the coordinator or taken by a replacement (the event log's "
    "`freed` and `seat_replaced`, told to that person alone)",
}
"""Every kind of event a channel may take."""

ROW_KINDS: dict[str, str] = {
    "processed": "phase_processed",
    "started": "game_starting",
    "pause": "pause",
    "resume": "resume",
    "extend": "extend",
    "rollback": "rollback",
    "freed": "seat_lost",
    "seat_replaced": "seat_lost",
    "proposal": "proposal",
}
"""Event log kind -> the kind channels are handed. ``started`` (detail: ``phase``, ``deadline`` as ISO text or
None) is for the transaction that starts a game (an opening's last seat taken, a game's first phase opened)."""

LOOK_BACK = timedelta(days=2)
"""Notifications tell only what happened this recently: a worker back after a week does not send a week."""


@dataclass(frozen=True)
class Reader:
    """A person an event is told to by the notification channels, with the words' facts for them."""

    person_id: int
    power: str
    key: str
    """The occurrence as the person's deliveries name it (their keys are unique per person and channel)."""
    facts: Mapping[str, Any]
    prefs: NoticePreferences | None = None
    mark: str | None = None
    """The occurrence for this person alone (``game_starting:<game>:<person>``); None: the event's mark."""


@dataclass(frozen=True)
class Event:
    """One thing that happened, as every channel is handed it."""

    kind: str
    at: datetime
    game_id: int | None = None
    game: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    readers: tuple[Reader, ...] = ()
    """Who the notification channels tell (the seated people, by their choices)."""
    mark: str | None = None
    """The occurrence's name for the whole event (``phase_processed:<phase id>``)."""
    phase: ProcessedPhase | None = None
    row: LoggedEvent | None = None
    """The event log's row, for an event that has one."""


class Channel(Protocol):
    """A way of telling people. ``handle`` returns how many messages it queued."""

    @property
    def name(self) -> str: ...

    @property
    def kinds(self) -> frozenset[str]: ...

    def handle(self, event: Event, look: Look) -> int: ...


C = TypeVar("C", bound=Channel)

_CHANNELS: dict[str, Channel] = {}


def register(ch: C) -> C:
    """Add a channel: from the next look it is handed every event of its kinds."""
    if not ch.name or ":" in ch.name:
        raise ValueError(f"a channel's name is a word without ':' (got {ch.name!r})")
    unknown = sorted(set(ch.kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"channel {ch.name!r}: no event kind {', '.join(unknown)}; kinds: {', '.join(KINDS)}")
    if ch.name in _CHANNELS and _CHANNELS[ch.name] is not ch:
        raise ValueError(f"a channel named {ch.name!r} is registered already; choose another name")
    _CHANNELS[ch.name] = ch
    return ch


def unregister(name: str) -> None:
    _CHANNELS.pop(name, None)


@dataclass(frozen=True)
class _FunctionChannel:
    name: str
    kinds: frozenset[str]
    fn: Callable[[Event, Look], int]

    def handle(self, event: Event, look: Look) -> int:
        return self.fn(event, look)


def channel(name: str, kinds: Iterable[str]) -> Callable[[Callable[[Event, Look], int]], Callable[[Event, Look], int]]:
    """Register a module's ``handle(event, look)`` as the channel ``name`` taking ``kinds``."""

    def wrap(fn: Callable[[Event, Look], int]) -> Callable[[Event, Look], int]:
        register(_FunctionChannel(name, frozenset(kinds), fn))
        return fn

    return wrap


def registered() -> list[Channel]:
    """Every channel registered, in the order they were (notify's own are registered when the dispatcher is
    loaded, :mod:`dippouch.notify.channels`; others when their module is)."""
    return list(_CHANNELS.values())


@dataclass
class Look:
    """One pass of the dispatcher: the store, the moment, and what the channels share within it."""

    store: GameStore
    now: datetime
    shared: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()`` the first time ``key`` is asked in this look, then the same answer (the mail's games,
        the moment notifications started): each read once however many channels ask."""
        if key not in self.shared:
            self.shared[key] = make()
        return self.shared[key]

    def _cache(self, name: str) -> dict[Any, Any]:
        got: dict[Any, Any] = self.shared.setdefault(f"cache:{name}", {})
        return got

    def settings(self, game: str) -> GameSettings:
        """The game's settings, read once a look (the column alone: a notice needs its time zone and language,
        not the game's state). A look is one pass, so a setting changed since (a deadline extended, a time
        zone set) is read afresh by the next. Raises when they cannot be read (no such game, or settings this
        version does not know)."""
        cache = self._cache("settings")
        if game not in cache:
            self.prefetch_settings([game])
        got = cache[game]
        if isinstance(got, Exception):
            raise got
        return got  # type: ignore[no-any-return]

    def prefetch_settings(self, games: Iterable[str]) -> None:
        """Read the settings of ``games`` not read yet this look, in one query."""
        cache = self._cache("settings")
        wanted = [g for g in set(games) if g and g not in cache]
        if not wanted:
            return
        found = stored.game_settings_of(self.store, wanted)
        for game in wanted:
            try:
                cache[game] = GameSettings.from_data(found[game])
            except Exception as e:  # no such game, or settings this version cannot read: the caller decides
                cache[game] = e

    def describe(self, game: str, at: datetime) -> str:
        """``at`` as the game's settings say it (its time zone; the settings read once a look per game)."""
        try:
            return self.settings(game).describe(at)
        except Exception:  # the game's settings cannot describe it: UTC is always right
            return f"{as_utc(at):%Y-%m-%d %H:%M} UTC"

    def seated(self, game_id: int) -> list[tuple[int, str]]:
        """(person id, power) of the game's seats played now by a person, read once a look per game."""
        cache = self._cache("seated")
        if game_id not in cache:
            self.prefetch_seated([game_id])
        got: list[tuple[int, str]] = cache[game_id]
        return got

    def prefetch_seated(self, game_ids: Iterable[int]) -> None:
        """Read the seats of ``game_ids`` not read yet this look, and their people's choices, in a few queries
        for them all (a page of the event log names hundreds of games)."""
        cache = self._cache("seated")
        wanted = [g for g in set(game_ids) if g not in cache]
        if not wanted:
            return
        cache.update(stored.seated_people_of(self.store, wanted))
        self.prefetch_prefs(pid for g in wanted for pid, _ in cache[g])

    def prefs(self, person_id: int) -> NoticePreferences:
        """The person's notification choices, read once a look."""
        cache = self._cache("prefs")
        if person_id not in cache:
            self.prefetch_prefs([person_id])
        got: NoticePreferences = cache[person_id]
        return got

    def prefetch_prefs(self, person_ids: Iterable[int]) -> None:
        cache = self._cache("prefs")
        wanted = [p for p in set(person_ids) if p not in cache]
        if wanted:
            cache.update(preferences_of(self.store, wanted))

    def targets(self, person_id: int) -> list[stored.Target]:
        """The person's push subscriptions and webhooks, read once a look (with every reader of the look's
        events not read yet, in one query)."""
        cache = self._cache("targets")
        if person_id not in cache:
            people = set(self._cache("prefs")) | {person_id}
            cache.update(stored.targets_of(self.store, [p for p in people if p not in cache]))
        got: list[stored.Target] = cache[person_id]
        return got

    def recent(self, at: datetime) -> bool:
        """Whether something that happened ``at`` may still be told (:meth:`notify_since`), without starting
        notifications on this database by asking."""
        started = self.once("notify:started?", lambda: stored.mark_time(self.store, "notify:started"))
        return at >= max(started or at, self.now - LOOK_BACK)

    def notify_since(self) -> datetime:
        """Events before this are not notified: older than :data:`LOOK_BACK`, or from before notifications
        started on this database (its first look), so turning them on does not send the games' history."""
        started: datetime = self.once(
            "notify:started", lambda: stored.first_mark(self.store, "notify:started", self.now)
        )
        return max(started, self.now - LOOK_BACK)


def when(settings: Mapping[str, Any], at: datetime | None) -> str:
    """A moment as the game's settings say it (its time zone), or in UTC when they cannot."""
    if at is None:
        return ""
    try:
        return GameSettings.from_data(dict(settings)).describe(at)
    except Exception:  # settings this version cannot read: UTC is always right
        return f"{as_utc(at):%Y-%m-%d %H:%M} UTC"


def seated_readers(look: Look, game_id: int, key: str, facts: Mapping[str, Any], mark: str | None) -> list[Reader]:
    out = []
    for pid, power in look.seated(game_id):
        person_mark = mark.replace("{person}", str(pid)) if mark else None
        out.append(Reader(pid, power, key, {**facts, "power": power}, look.prefs(pid), person_mark))
    return out


def starting(
    look: Look, game_id: int, game: str, phase: str, deadline: str, at: datetime, *, readers: bool = True
) -> Event:
    """A game began: told once per person (``game_starting:<game>:<person>``), whichever source found it
    (``readers=False``: to no one, for an event too old to be told)."""
    facts = {"game": game, "phase": phase, "deadline": deadline}
    found = seated_readers(look, game_id, str(game_id), facts, f"game_starting:{game_id}:{{person}}") if readers else []
    return Event("game_starting", at, game_id, game, facts, tuple(found))
