"""What the worker finds on its own, every look: phases processed, deadlines near with a seated person's
orders missing, games starting. Each becomes notifications for the people seated in the game, by their
choices; each occurrence is recorded (``notify_marks``) with its deliveries, so it is queued once however
many workers scan.

Results are notified for phases processed after notifications started on this database (its first scan)
and in the last two days: turning notifications on does not send a game's whole history. A game starting
is one whose first phase opened (or whose held clock started) in the last two days and is still open (its
players have yet to order); a first phase found processed before a look saw it open has its game's start
told just before its results, so the start never depends on the look's timing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from urllib.parse import quote

from dippouch.game import as_utc
from dippouch.notify.events import DEFAULT_DEADLINE_HOURS, preferences
from dippouch.notify.queue import items_for
from dippouch.store import notify as stored
from dippouch.store import openings, press
from dippouch.store.repository import GameStore

__all__ = ["LOOK_BACK", "ScanReport", "scan"]

LOOK_BACK = timedelta(days=2)


@dataclass
class ScanReport:
    processed: int = 0
    deadline: int = 0
    starting: int = 0
    messages: int = 0
    offers: int = 0

    @property
    def queued(self) -> int:
        return self.processed + self.deadline + self.starting + self.messages + self.offers


def _when(store: GameStore, at: datetime | None, game: str) -> str:
    if at is None:
        return ""
    try:
        return store.status(game, now=at, drift=False, due=False).settings.describe(at)
    except Exception:  # the game's settings cannot describe it: UTC is always right
        return f"{as_utc(at):%Y-%m-%d %H:%M} UTC"


def _left(td: timedelta) -> str:
    hours = int(td.total_seconds() // 3600)
    if hours >= 48:
        return f"{hours // 24} days"
    if hours >= 1:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{max(1, int(td.total_seconds() // 60))} minutes"


def scan(store: GameStore, now: datetime, *, slow: bool = True) -> ScanReport:
    """Queue what is found at ``now``. ``slow=False``: only processed phases (one indexed query when there
    is nothing new), for every look; games starting and deadlines ask each seated person's choices, so the
    worker looks for them less often (:class:`dippouch.notify.task.NotifyTask`)."""
    now = as_utc(now)
    since = max(stored.first_mark(store, "notify:started", now), now - LOOK_BACK)
    report = ScanReport()
    _processed(store, now, since, report)
    if slow:
        _starting(store, now, report)
        _deadlines(store, now, report)
        _messages(store, now, since, report)
        _offers(store, now, since, report)
    return report


EXCERPT = 200
"""Characters of a message quoted in its notification."""

POOL_LOOK_BACK = timedelta(days=60)
"""A seat in the replacement pool is offered to people who signed up for an open game this recently."""


def _messages(store: GameStore, now: datetime, since: datetime, report: ScanReport) -> None:
    """A message received: each seated person, for each message their power may read (the press rules,
    mutes and postal release decide, through :func:`dippouch.store.press.messages_since`), not their own."""
    for game, game_id, first in press.games_with_press_since(store, since):
        for pid, power in stored.seated_people(store, game_id):
            for m in press.messages_since(store, game, power, first - 1):
                mark = f"message_received:{m.id}:{pid}"
                if m.mine or stored.marked(store, mark):
                    continue
                facts = {
                    "game": game,
                    "power": power,
                    "sender": m.sender,
                    "excerpt": " ".join(m.text.split())[:EXCERPT],
                    "url": f"/games/{quote(game, safe='')}/play/{quote(power, safe='')}/press/{m.channel_id}",
                }
                items = items_for(store, pid, "message_received", key=str(m.id), facts=facts, game_id=game_id)
                if any(i["channel"] == "email" for i in items) and press.copied(store, m.id, power):
                    # The copy with its reply code is this message's e-mail: never two for one message.
                    items = [i for i in items if i["channel"] != "email"]
                report.messages += stored.queue_deliveries(store, items, now=now, mark=mark)


def _offers(store: GameStore, now: datetime, since: datetime, report: ScanReport) -> None:
    """A seat offered: each seat in the replacement pool, to the people who want to play
    (:func:`dippouch.store.openings.pool_people`), once per vacancy and person. A vacancy is the player's
    row given up (``offer.seat``): a seat claimed and abandoned again is offered again, to the same people."""
    for offer in openings.offered_seats(store):
        people = openings.pool_people(store, offer.game, since=now - POOL_LOOK_BACK, minimum=offer.min_reliability)
        for pid in people:
            mark = f"seat_offered:{offer.game}:{offer.power}:{offer.reason}:{offer.seat}:{pid}"
            if stored.marked(store, mark):
                continue
            facts = {
                "game": offer.game,
                "power": offer.power,
                "note": "Its player stopped sending orders." if offer.reason == "disorder" else "",
                "deadline": _when(store, offer.deadline, offer.game),
                "url": "/open",
            }
            key = f"{offer.game}:{offer.power}:{offer.reason}:{offer.seat}"
            items = items_for(store, pid, "seat_offered", key=key, facts=facts)
            report.offers += stored.queue_deliveries(store, items, now=now, mark=mark)


def _processed(store: GameStore, now: datetime, since: datetime, report: ScanReport) -> None:
    for ph in stored.processed_phases(store, since):
        if ph.seq == 0:
            # A first phase processed before any slow look saw it open (a worker that was down, a game whose
            # players were all ready at once, ``worker --once`` run now and then): the game's start is told
            # first, once per person as ever, so nobody gets results of a game they were never told began.
            _tell_starting(store, now, replace(ph, deadline=None), report)  # its deadline has passed
        items = []
        nxt = store.status(ph.game, now=now, drift=False, due=False)
        facts = {
            "game": ph.game,
            "phase": ph.phase,
            "next": nxt.phase or "",
            "deadline": _when(store, nxt.deadline, ph.game) if nxt.phase else "",
        }
        for pid, power in stored.seated_people(store, ph.game_id):
            items += items_for(
                store, pid, "phase_processed", key=str(ph.phase_id), facts={**facts, "power": power}, game_id=ph.game_id
            )
        report.processed += stored.queue_deliveries(store, items, now=now, mark=f"phase_processed:{ph.phase_id}")


def _starting(store: GameStore, now: datetime, report: ScanReport) -> None:
    for ph in stored.starting_games(store, now - LOOK_BACK):
        _tell_starting(store, now, ph, report)


def _tell_starting(store: GameStore, now: datetime, ph: stored.PhaseFact, report: ScanReport) -> None:
    """Tell each person seated in ``ph``'s game (``ph``: its first phase) that it started, once."""
    for pid, power in stored.seated_people(store, ph.game_id):
        mark = f"game_starting:{ph.game_id}:{pid}"
        if stored.marked(store, mark):
            continue
        facts = {"game": ph.game, "power": power, "phase": ph.phase, "deadline": _when(store, ph.deadline, ph.game)}
        items = items_for(store, pid, "game_starting", key=str(ph.game_id), facts=facts, game_id=ph.game_id)
        report.starting += stored.queue_deliveries(store, items, now=now, mark=mark)


def _deadlines(store: GameStore, now: datetime, report: ScanReport) -> None:
    horizon = timedelta(hours=stored.longest_lead(store, DEFAULT_DEADLINE_HOURS))
    for ph in stored.phases_due_within(store, now, horizon):
        assert ph.deadline is not None
        missing: set[str] | None = None
        for pid, power in stored.seated_people(store, ph.game_id):
            prefs = preferences(store, pid)
            hours = prefs.deadline_hours
            if ph.deadline - timedelta(hours=hours) > now:
                continue
            mark = f"deadline:{ph.phase_id}:{pid}:{power}:{hours}"
            if stored.marked(store, mark):
                continue
            if missing is None:
                st = store.status(ph.game, now=now, drift=False, due=False)
                missing = {p.power for p in st.powers if p.must_act and not p.accepted and not p.ready}
            if power not in missing:
                continue
            facts = {
                "game": ph.game,
                "power": power,
                "phase": ph.phase,
                "deadline": _when(store, ph.deadline, ph.game),
                "left": _left(ph.deadline - now),
            }
            key = f"{ph.phase_id}:{power}:{hours}"
            items = items_for(store, pid, "deadline", key=key, facts=facts, game_id=ph.game_id, prefs=prefs)
            report.deadline += stored.queue_deliveries(store, items, now=now, mark=mark)
