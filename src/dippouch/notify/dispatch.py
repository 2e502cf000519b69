"""One way of telling people what happened: events read once, handed to every channel that takes them.

What happened comes from three sources, each read once per look and shared by all the channels:

- **the game's event log** (``events``), written in the transaction that made the change: a phase
  processed (``processed``, with the phase read once for every channel), a pause, a resumption, an
  extension, a rollback, a game started (``started``, see :data:`ROW_KINDS`);
- **what no event row records yet**, found by :mod:`dippouch.notify.unlogged` (a game's first phase open,
  press a power may read, a seat in the replacement pool), on the slow looks;
- **the clock**: deadlines near, by the one reminder policy (:mod:`dippouch.notify.reminders`), on the
  slow looks.

A channel is one module and one registration, like the core's order kinds (:func:`register` or the
:func:`channel` decorator): its ``name``, the event kinds it takes (:data:`KINDS`) and ``handle(event, look)``
returning how many messages it queued. ``handle`` must queue each occurrence once however often it is
called (two workers may hand it the same event at the same moment): the channels here queue under a key
(``notify_marks``, the mail record), which the database keeps unique.

Each channel has its own mark in the database (the last event id it has had with everything before it,
:func:`dippouch.store.notify.events.dispatch_mark`), so a channel registered late, or missing from one process,
still gets every event; the log is read from the lowest mark, once, for all of them. An event id can commit
after a higher one (two processing transactions on PostgreSQL), so a mark stays :data:`GRACE` behind the
clock, and what was handled past it is recorded per event and channel so that it is not handed over again.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import quote

from dippouch.game import GameSettings, as_utc
from dippouch.notify import channels, reminders, unlogged
from dippouch.notify.registry import (
    KINDS,
    LOOK_BACK,
    ROW_KINDS,
    Channel,
    Event,
    Look,
    Reader,
    channel,
    register,
    registered,
    seated_readers,
    starting,
    unregister,
    when,
)
from dippouch.store import votes as stored_votes
from dippouch.store.db import DatabaseError
from dippouch.store.notify import events as logged
from dippouch.store.notify.events import LoggedEvent
from dippouch.store.repository import GameStore
from dippouch.store.votes import Proposal, describe_proposal

__all__ = [
    "BUILT_IN",
    "GRACE",
    "KINDS",
    "LOOK_BACK",
    "ROW_KINDS",
    "Channel",
    "Dispatched",
    "Event",
    "Look",
    "Reader",
    "channel",
    "dispatch",
    "register",
    "registered",
    "unregister",
]

log = logging.getLogger("dippouch.notify")

BUILT_IN = channels.__all__
"""notify's own channels (e-mail, push, webhooks), registered as the dispatcher is loaded."""

HEADS = 5000
"""Event heads read at a time (ids, kinds and moments: a few hundred kilobytes)."""
GRACE = timedelta(minutes=10)
"""How far behind the clock a channel's mark stays: longer than any transaction that writes an event."""
PAGE = 500


@dataclass
class Dispatched:
    """What one pass queued: messages by (channel, kind), and the events it read."""

    queued: Counter[tuple[str, str]] = field(default_factory=Counter)
    events: int = 0
    failed: list[str] = field(default_factory=list)
    more: bool = False
    """The pass was stopped (``stop``) with events left: the next one goes on where it stopped."""
    progress: int = 0
    """Events the pass did something with: a log row handed on, or a message queued. The stop is not asked
    before the first: the scans find what they have told already again on every pass, and a pass stopped
    before its first new event would stop there on every pass after it too."""

    def of(self, kind: str) -> int:
        return sum(n for (_, k), n in self.queued.items() if k == kind)

    @property
    def total(self) -> int:
        return sum(self.queued.values())


def _from_rows(look: Look, rows: Sequence[LoggedEvent]) -> list[tuple[int, list[Event]]]:
    """The log's rows as events; a processed phase is read here, once, for every channel. Readers are found
    only for events recent enough to be told (:meth:`Look.recent`): a first look on a database with years
    of history reads no one's choices for them."""
    phases = logged.processed_phases_of(look.store, rows)
    # The seats (and their people's choices) of every game the page names, in a few queries for the lot.
    look.prefetch_seated(r.game_id for r in rows if ROW_KINDS[r.kind] in ("phase_processed", "game_starting"))
    out: list[tuple[int, list[Event]]] = []
    for r in rows:
        kind = ROW_KINDS[r.kind]
        if kind == "seat_lost":
            out.append((r.id, [seat_lost(look, r)]))
            continue
        if kind == "proposal":
            out.append((r.id, [proposal_made(look, r)]))
            continue
        if kind != "phase_processed" and kind != "game_starting":
            out.append((r.id, [Event(kind, r.at, r.game_id, r.game, r.detail, (), f"event:{r.id}", row=r)]))
            continue
        recent = look.recent(r.at)
        if kind == "phase_processed":
            ph = phases.get(r.id)
            if ph is None:
                out.append((r.id, []))  # set aside by a rollback since: its results are no longer the game's
                continue
            facts = {
                "game": r.game,
                "phase": ph.name,
                "next": ph.next_name,
                "deadline": when(r.settings, ph.next_deadline),
            }
            mark = f"phase_processed:{ph.phase_id}"
            events = []
            if ph.seq == 0:
                # A first phase processed before any look saw it open (a worker that was down, a game whose
                # players were all ready at once): its start is told first, so nobody gets results of a game
                # they were never told began. Its deadline has passed: none is given.
                events.append(starting(look, r.game_id, r.game, ph.name, "", r.at, readers=recent))
            readers = seated_readers(look, r.game_id, str(ph.phase_id), facts, None) if recent else []
            events.append(Event(kind, r.at, r.game_id, r.game, facts, tuple(readers), mark, ph, r))
            out.append((r.id, events))
        elif kind == "game_starting":
            raw = r.detail.get("deadline")
            deadline = when(r.settings, as_utc(datetime.fromisoformat(raw))) if isinstance(raw, str) else ""
            ev = starting(look, r.game_id, r.game, str(r.detail.get("phase", "")), deadline, r.at, readers=recent)
            out.append((r.id, [Event(ev.kind, ev.at, ev.game_id, ev.game, ev.detail, ev.readers, row=r)]))
    return out


def seat_lost(look: Look, r: LoggedEvent) -> Event:
    """A seat freed by the coordinator or taken by a replacement, told to the person whose seat it was (named
    in the row; a row without one, from a seat nobody held by an account, tells no one)."""
    facts = {
        "game": r.game,
        "power": str(r.detail.get("power", "")),
        "how": r.kind,
        "reason": str(r.detail.get("reason", "")),
        "url": "/me",
    }
    person = r.detail.get("person")
    readers: tuple[Reader, ...] = ()
    if isinstance(person, int) and look.recent(r.at):
        readers = (Reader(person, str(facts["power"]), str(r.id), facts, look.prefs(person)),)
    return Event("seat_lost", r.at, r.game_id, r.game, facts, readers, f"seat_lost:{r.id}", row=r)


def proposal_made(look: Look, r: LoggedEvent) -> Event:
    """A proposal the table votes on, told to the players who vote on it but made none of it (the proposer
    voted yes in proposing), while it is open: what is proposed, by which power unless the game's ballots are
    secret or its players anonymous, and until when; the link opens the reader's own page where they vote on it."""
    readers: list[Reader] = []
    facts: dict[str, object] = {"game": r.game}
    found = None
    if look.recent(r.at):
        found = next(
            (
                p
                for p in look.once(f"proposals:{r.game}", lambda: _open_proposals(look, r.game))
                if p.id == r.detail.get("proposal")
            ),
            None,
        )
    if found is not None:
        settings = GameSettings.from_data(dict(r.settings))
        secret = settings.secret_ballot or settings.anonymous
        facts = {
            "game": r.game,
            "what": describe_proposal(found.kind, found.values),
            "proposer": "" if secret else found.proposer,
            "until": when(r.settings, found.expires_at),
        }
        # The draw of every survivor is voted on in the page's draw box; the others in the proposals' list.
        part = "draw" if found.kind == "draw" and not found.values.get("powers") else "proposals"
        for pid, power in look.seated(r.game_id):
            # Who has voted by the time this is sent (the proposer in proposing) has nothing left to do here.
            if power in found.voters and power != found.proposer and power not in found.ballots:
                url = f"/games/{quote(r.game, safe='')}/play/{quote(power, safe='')}#{part}"
                readers.append(
                    Reader(pid, power, str(found.id), {**facts, "power": power, "url": url}, look.prefs(pid))
                )
    return Event("proposal", r.at, r.game_id, r.game, facts, tuple(readers), f"proposal:{r.id}", row=r)


def _open_proposals(look: Look, game: str) -> list[Proposal]:
    return [p for p in stored_votes.proposals(look.store, game, now=look.now) if p.status == "open"]


def _takes(ch: Channel, kind: str) -> bool:
    """Whether a log row read as ``kind`` concerns ``ch`` (a processed first phase also tells the start)."""
    return kind in ch.kinds or (kind == "phase_processed" and "game_starting" in ch.kinds)


def _hand(ch: Channel, ev: Event, look: Look, report: Dispatched) -> bool:
    try:
        n = ch.handle(ev, look)
    except Exception as e:  # one channel's trouble must not keep the others from the event
        if isinstance(e, DatabaseError):
            raise
        log.error("channel %s could not take %s (%s): %s: %s", ch.name, ev.kind, ev.game, type(e).__name__, e)
        report.failed.append(f"{ch.name}: {ev.kind} {ev.game}: {type(e).__name__}: {e}")
        return False
    report.queued[(ch.name, ev.kind)] += n
    return True


def dispatch(
    store: GameStore,
    now: datetime,
    *,
    slow: bool = True,
    only: Sequence[Channel] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Dispatched:
    """Hand what happened to every registered channel (``only``: to these alone, leaving every channel's mark
    where it is, as the mail's and the scan's own commands do). ``slow``: also the unlogged scan and the
    scans for what the event log does not record yet (games starting, press, seats offered), which read every
    seated person's choices, so the worker runs them less often; the deadline reminders run every look.

    ``stop`` is asked between events (never before the pass has made :attr:`~Dispatched.progress`, so every
    pass gets on): once it says yes the pass ends there (``more`` set), having handed each channel every event
    before that one, so the next pass goes on in order from the channels' marks and records (a worker gives a
    backlog of notifications a slice of its look, and due phases go first)."""
    look = Look(store, as_utc(now))
    report = Dispatched()
    full = only is None
    chans = registered() if only is None else list(only)
    if not chans:
        return report
    halt = _after_progress(stop, report)
    wanted = {k for ch in chans for k in ch.kinds}
    row_kinds = [rk for rk, k in ROW_KINDS.items() if k in wanted]
    if row_kinds:
        _dispatch_log(look, chans, row_kinds, full, report, halt)
    # Reminders every look: a short phase's reminder (a lead of minutes) a look late may come after its
    # deadline. What has no log row yet is scanned on the slow looks only. Each is marked per reader as it is
    # queued, so a pass stopped among them finds the rest again next time (and not the ones it handed).
    # After the scan: a game found starting is told before anyone is reminded of its first deadline.
    sources: list[Callable[[], list[Event]]] = [lambda: unlogged.found(look, wanted) if slow else []]
    if "deadline" in wanted:
        sources.append(lambda: reminders.due(look))
    for source in sources:
        if report.more:
            break
        for ev in source():
            if halt():
                report.more = True
                break
            queued = report.total
            for ch in chans:
                if ev.kind in ch.kinds:
                    _hand(ch, ev, look, report)
            report.progress += report.total > queued
    return report


def _after_progress(stop: Callable[[], bool] | None, report: Dispatched) -> Callable[[], bool]:
    """``stop``, answered no without asking until the pass has made :attr:`Dispatched.progress`."""

    def halt() -> bool:
        return stop is not None and report.progress > 0 and stop()

    return halt


def _dispatch_log(
    look: Look,
    chans: Sequence[Channel],
    row_kinds: Sequence[str],
    full: bool,
    report: Dispatched,
    halt: Callable[[], bool],
) -> None:
    store = look.store
    marks = {ch.name: logged.dispatch_mark(store, ch.name) or 0 for ch in chans}
    done = logged.dispatched(store) if full else set()
    after = min(marks.values())
    ok_upto = dict(marks)
    stuck: set[str] = set()
    """Channels whose mark can go no further this look: an event failed, or is too recent to pass."""
    while not report.more:
        # The heads alone (id, kind, moment): the events of the last GRACE minutes are read every look, and
        # those every channel has had already are not read whole again (their detail and their game's settings).
        rows = logged.event_heads_after(store, after, row_kinds, limit=HEADS)
        if not rows:
            break
        handled: list[tuple[str, int]] = []
        due = {
            ch.name: {
                r.id
                for r in rows
                if r.id > marks[ch.name] and (ch.name, r.id) not in done and _takes(ch, ROW_KINDS[r.kind])
            }
            for ch in chans
        }
        wanted = set().union(*due.values())
        order = [r.id for r in rows if r.id in wanted]
        made: dict[int, list[Event]] = {}
        built = 0
        for row in rows:
            if row.id in wanted and halt():
                report.more = True  # the rest of the page, and the pages after it, wait for the next pass
                break
            if row.id in wanted and built < len(order) and row.id >= order[built]:
                # The next PAGE of the wanted events, read whole and made into events (seats read for all).
                chunk = order[built : built + PAGE]
                built += len(chunk)
                made.update(_from_rows(look, logged.events_by_id(store, chunk)))
            report.events += 1
            before = len(handled)
            for ch in chans:
                if row.id in due[ch.name]:
                    mine = [ev for ev in made.get(row.id, []) if ev.kind in ch.kinds]
                    if not all([_hand(ch, ev, look, report) for ev in mine]):
                        stuck.add(ch.name)
                        continue
                    handled.append((ch.name, row.id))
                if row.at > look.now - GRACE:
                    stuck.add(ch.name)
                if ch.name not in stuck:
                    ok_upto[ch.name] = max(ok_upto[ch.name], row.id)
            report.progress += len(handled) > before
        if full:
            logged.mark_dispatched(store, handled, now=look.now)
        after = rows[-1].id
        if len(rows) < HEADS:
            break
    if full:
        for ch in chans:
            if ok_upto[ch.name] > marks[ch.name]:
                logged.advance_mark(store, ch.name, ok_upto[ch.name], now=look.now)
