"""The game's event log as the dispatcher reads it (:mod:`dippouch.notify.dispatch`): events after its mark,
the phases the ``processed`` ones name, and the mark itself.

The mark is kept in ``notify_marks`` rather than a table of its own: one row per position the mark has
reached per channel (``dispatch:after:<channel>:<id, zero-padded>``), so moving it is an insert that cannot
collide with another worker's (the highest wins, as the keys sort as the ids do). Each event a channel has
had past its mark is recorded there too (``dispatched:<channel>:<id>``), so a look hands over only what is
new even while the mark waits behind a transaction that may still commit an older id.

Only the store speaks SQL; nothing here reads the clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.game import LineCheck, as_utc, position_from_data, powers_to_act
from dippouch.store.db import Database
from dippouch.store.models import EventRow, GameRow, PhaseRow
from dippouch.store.notify.models import NotifyMarkRow

__all__ = [
    "EventHead",
    "LoggedEvent",
    "ProcessedPhase",
    "advance_mark",
    "dispatch_mark",
    "dispatched",
    "event_heads_after",
    "events_after",
    "events_by_id",
    "mark_dispatched",
    "missing_orders",
    "processed_phases_of",
]

_DONE = "dispatched:"
_WIDTH = 15


@dataclass(frozen=True)
class LoggedEvent:
    """One row of the game's event log, with the game's name and settings (what the words need)."""

    id: int
    game_id: int
    game: str
    kind: str
    at: datetime
    detail: dict[str, Any]
    settings: dict[str, Any]


@dataclass(frozen=True)
class ProcessedPhase:
    """A processed phase as every channel needs it, read once for all of them."""

    phase_id: int
    game_id: int
    game: str
    name: str
    kind: str
    seq: int
    next_name: str
    """The phase that followed it ("" when the game ended there)."""
    next_deadline: datetime | None
    """That phase's deadline while it is open (None when paused, processed since, or none)."""


def _prefix(name: str) -> str:
    return f"dispatch:after:{name}:"


def dispatch_mark(db: Database, name: str) -> int | None:
    """The id of the last event the dispatcher ``name`` has handled with everything before it (None: it never
    ran on this database)."""
    prefix = _prefix(name)
    with db.session() as s:
        got = s.scalar(
            sa.select(sa.func.max(NotifyMarkRow.key)).where(
                NotifyMarkRow.key >= prefix, NotifyMarkRow.key < prefix + "~"
            )
        )
    return int(got[len(prefix) :]) if got else None


def advance_mark(db: Database, name: str, to: int, *, now: datetime) -> None:
    """Move the mark forward to ``to`` (never back: a worker with an older view changes nothing), dropping
    the positions it passed and the channel's per-event records at or below it."""
    prefix = _prefix(name)
    key = f"{prefix}{to:0{_WIDTH}d}"
    done = f"{_DONE}{name}:"
    with db.session() as s, s.begin():
        try:
            with s.begin_nested():
                s.add(NotifyMarkRow(key=key, at=as_utc(now)))
                s.flush()
        except IntegrityError:
            return
        s.execute(sa.delete(NotifyMarkRow).where(NotifyMarkRow.key >= prefix, NotifyMarkRow.key < key))
        keys = s.scalars(sa.select(NotifyMarkRow.key).where(NotifyMarkRow.key >= done, NotifyMarkRow.key < done + "~"))
        passed = [k for k in keys if k[len(done) :].isdigit() and int(k[len(done) :]) <= to]
        if passed:
            s.execute(sa.delete(NotifyMarkRow).where(NotifyMarkRow.key.in_(passed)))


def events_after(db: Database, after: int, kinds: Iterable[str], *, limit: int = 500) -> list[LoggedEvent]:
    """Events of ``kinds`` after ``after``, oldest first (one query)."""
    q = (
        sa.select(
            EventRow.id, EventRow.game_id, GameRow.name, EventRow.kind, EventRow.at, EventRow.detail, GameRow.settings
        )
        .join(GameRow, GameRow.id == EventRow.game_id)
        .where(EventRow.id > after, EventRow.kind.in_(list(kinds)))
        .order_by(EventRow.id)
        .limit(limit)
    )
    with db.read_session() as s:
        return [
            LoggedEvent(int(i), int(gid), str(game), str(kind), as_utc(at), dict(detail or {}), dict(settings or {}))
            for i, gid, game, kind, at, detail, settings in s.execute(q)
        ]


@dataclass(frozen=True)
class EventHead:
    """An event's id, kind and moment: what the dispatcher needs to know whether it has had it."""

    id: int
    kind: str
    at: datetime


def event_heads_after(db: Database, after: int, kinds: Iterable[str], *, limit: int = 5000) -> list[EventHead]:
    """The heads of the events of ``kinds`` after ``after``, oldest first (one query, no JSON read: the
    dispatcher reads again every look the events of the last minutes it has had, and decodes only the new)."""
    q = (
        sa.select(EventRow.id, EventRow.kind, EventRow.at)
        .where(EventRow.id > after, EventRow.kind.in_(list(kinds)))
        .order_by(EventRow.id)
        .limit(limit)
    )
    with db.read_session() as s:
        return [EventHead(int(i), str(kind), as_utc(at)) for i, kind, at in s.execute(q)]


def events_by_id(db: Database, ids: Iterable[int]) -> list[LoggedEvent]:
    """The events of ``ids`` whole (with their games' names and settings), oldest first."""
    wanted = sorted(set(ids))
    out: list[LoggedEvent] = []
    with db.read_session() as s:
        for part in range(0, len(wanted), 500):
            q = (
                sa.select(
                    EventRow.id,
                    EventRow.game_id,
                    GameRow.name,
                    EventRow.kind,
                    EventRow.at,
                    EventRow.detail,
                    GameRow.settings,
                )
                .join(GameRow, GameRow.id == EventRow.game_id)
                .where(EventRow.id.in_(wanted[part : part + 500]))
                .order_by(EventRow.id)
            )
            out += [
                LoggedEvent(
                    int(i), int(gid), str(game), str(kind), as_utc(at), dict(detail or {}), dict(settings or {})
                )
                for i, gid, game, kind, at, detail, settings in s.execute(q)
            ]
    return out


def dispatched(db: Database) -> set[tuple[str, int]]:
    """(channel, event id) of the events handled past the channels' marks (a few minutes' worth)."""
    with db.session() as s:
        keys = s.scalars(
            sa.select(NotifyMarkRow.key).where(NotifyMarkRow.key >= _DONE, NotifyMarkRow.key < _DONE + "~")
        )
        out = set()
        for k in keys:
            name, _, i = k[len(_DONE) :].rpartition(":")
            if name and i.isdigit():
                out.add((name, int(i)))
        return out


def mark_dispatched(db: Database, handled: Sequence[tuple[str, int]], *, now: datetime) -> None:
    """Record that these channels have had these events (another worker's record of one is kept as it is)."""
    if not handled:
        return
    keys = sorted({f"{_DONE}{name}:{i}" for name, i in handled})
    with db.session() as s, s.begin():
        # Those another worker recorded are left out first, so the rest go in one statement (a look that
        # tells a thousand events records them in one round trip, not a savepoint each).
        kept: set[str] = set()
        for part in range(0, len(keys), 500):
            chunk = keys[part : part + 500]
            kept.update(s.scalars(sa.select(NotifyMarkRow.key).where(NotifyMarkRow.key.in_(chunk))))
        new = [k for k in keys if k not in kept]
        try:
            with s.begin_nested():
                s.add_all([NotifyMarkRow(key=k, at=as_utc(now)) for k in new])
                s.flush()
            return
        except IntegrityError:
            pass  # another worker recorded some meanwhile: one at a time, keeping theirs
        for k in new:
            try:
                with s.begin_nested():
                    s.add(NotifyMarkRow(key=k, at=as_utc(now)))
                    s.flush()
            except IntegrityError:
                continue


def processed_phases_of(db: Database, events: Sequence[LoggedEvent]) -> dict[int, ProcessedPhase]:
    """Event id -> the phase its ``processed`` event names, with the phase after it, in one query for the
    lot. A phase set aside since (a rollback) is left out: its results are no longer the game's."""
    wanted = [e for e in events if e.kind == "processed"]
    if not wanted:
        return {}
    q = sa.select(
        PhaseRow.id,
        PhaseRow.game_id,
        PhaseRow.name,
        PhaseRow.kind,
        PhaseRow.seq,
        PhaseRow.branch,
        PhaseRow.status,
        PhaseRow.deadline,
    ).where(PhaseRow.game_id.in_(sorted({e.game_id for e in wanted})))
    seqs = {int(e.detail["seq"]) for e in wanted if isinstance(e.detail.get("seq"), int)}
    if len(seqs) == len(wanted):  # every event names its place: only those phases and the ones after them
        q = q.where(PhaseRow.seq.in_(sorted(seqs | {x + 1 for x in seqs})))
    with db.session() as s:
        rows = list(s.execute(q))
    by_game: dict[int, list[Any]] = {}
    for r in rows:  # a page names hundreds of games: each event looks among its own game's rows only
        by_game.setdefault(int(r.game_id), []).append(r)
    out: dict[int, ProcessedPhase] = {}
    for e in wanted:
        seq, branch = e.detail.get("seq"), e.detail.get("branch")
        game_rows = by_game.get(e.game_id, [])
        mine = [
            r
            for r in game_rows
            if r.status == "processed"
            and r.name == e.detail.get("phase")
            and (seq is None or r.seq == seq)
            and (branch is None or r.branch == branch)
        ]
        if not mine:
            continue
        ph = mine[-1]
        nxt = next((r for r in game_rows if r.seq == ph.seq + 1 and r.branch == ph.branch), None)
        out[e.id] = ProcessedPhase(
            int(ph.id),
            e.game_id,
            e.game,
            str(ph.name),
            str(ph.kind),
            int(ph.seq),
            str(nxt.name) if nxt is not None else "",
            nxt.deadline if nxt is not None and nxt.status == "open" else None,
        )
    return out


def missing_orders(db: Database, phase_id: int) -> frozenset[str]:
    """The powers that must act in the open phase and have done nothing on time a reminder would spare them
    for: no accepted order standing, not ready, no photograph waiting for the coordinator's review."""
    from dippouch.store.mail.review import photo_powers
    from dippouch.store.rows import game_variant
    from dippouch.store.standing import standing_versions

    with db.session() as s:
        ph = s.get(PhaseRow, phase_id)
        if ph is None or ph.status != "open":
            return frozenset()
        g = s.get(GameRow, ph.game_id)
        assert g is not None
        v = game_variant(g)
        acted = {
            p
            for p, sub in standing_versions(ph, on_time_only=True).items()
            if sub.ready or any(LineCheck.from_data(d).accepted for d in sub.lines)
        }
        photographed = photo_powers(s, ph)
        return frozenset(
            p for p in powers_to_act(v, position_from_data(v, ph.position)) if p not in acted and p not in photographed
        )
