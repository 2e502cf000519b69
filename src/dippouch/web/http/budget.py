"""The work budget: what keeps cheap pages fast while some people ask for expensive work (line checks of many
misspelt orders, sandbox adjudications, drawings of whole games, a coordinator's "process now").

Each asker (the signed-in person, by their id, wherever they come from; else the address) has a share of the
server's CPU time, refilled at :attr:`WorkBudget.seconds` per :attr:`WorkBudget.window` up to a full share: a
token bucket, as lichess and Diplicity bound what one account may cost. A request names its estimate; the
estimate is taken from the share *before* the work runs, and a request whose estimate does not fit is refused
(429, with how long to wait) without running. When the work ends the reservation is replaced by the CPU time it
measured: the thread's own, and what the work pool's processes spent on its jobs (:func:`spent_elsewhere`,
:mod:`dippouch.web.http.pool`), so a job that overran its estimate leaves its asker in debt and their next request
waits for the debt to be refilled too. A job estimated above a whole share runs only on a full share; one
estimated above :attr:`WorkBudget.longest` never runs (what it is, and what to ask for instead, is the caller's
refusal to write).

Work runs in lanes by kind (:data:`LANES`), each with its own places, its own queue and its own share of the
installation's CPU time for everyone together: a line check never waits behind a drawing, and a crowd of
askers (many addresses) cannot give all the server's time to one kind of work. A lane whose places and
queue are full, or whose installation share is spent, answers 503 at once (with Retry-After), so waiting
requests never take the threads the cheap pages need. The work itself runs in the work pool's processes, a lane's
own, niced below the server (:mod:`dippouch.web.http.pool`): in the server's threads, pure Python work would share the
interpreter lock with every page.

The shares are kept where every server process sees them (a :class:`Ledger`: the database, through
:mod:`dippouch.store.work_spent`), so two processes on one database (``--workers 2``, or two servers) never give
an asker two shares: before it decides, a process reads the asker's share (one read), and what it charges is sent
in batches, once an asker's (or a lane's) unsent charges reach :data:`SEND_AT` of their share, so a cheap page writes
nothing and an expensive job's reservation is seen by the other processes while it runs. A process may thus
give away at most :data:`SEND_AT` of a share the others have not heard of. The places and queues of the
lanes are each process's own (its work pool's). Without a ledger (the budget's own tests) everything is kept in
the process.

The figures are settings (``DIPPOUCH_WORK_SECONDS``, ``DIPPOUCH_WORK_SITE_SECONDS``, ``DIPPOUCH_WORK_JOB_SECONDS``:
docs/settings.md).
"""

from __future__ import annotations

import contextvars
import functools
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

from dippouch.core.messages import N_, Msg, msg, quantity
from dippouch.store.db import DatabaseError
from dippouch.store.work_spent import StoreLedger
from dippouch.web.http.metrics import WORK_CHARGED
from dippouch.web.http.security import BadInput, Busy, TooMany

log = logging.getLogger(__name__)

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = [
    "BOOK_PAGE",
    "FRAME",
    "LANES",
    "ON_LOOP_BASE",
    "PDF_MAP",
    "PREVIEW",
    "REQUEST_COST",
    "SEND_AT",
    "WINDOW",
    "Lane",
    "Ledger",
    "OnLoop",
    "StoreLedger",
    "WorkBudget",
    "handled",
    "handling",
    "spent_elsewhere",
    "timed_endpoint",
]

T = TypeVar("T")

REQUEST_COST = 0.01
"""The CPU seconds :meth:`WorkBudget.charge_request` charges when not told what the request cost (the server's
requests are told: :func:`handled`): about what a game page, a sandbox page or a refusal costs the server
(benchmarks/bench_hostile.py measured 3-12 ms)."""

ON_LOOP_BASE = 0.0025
"""What the event loop spends on a request outside any Python step of it, charged beside what :class:`OnLoop`
measures: reading its head and body and writing its answer, in the server's C code (uvloop, httptools). A
sampling profiler (py-spy, ``bench_hostile.py``'s hostile run) found the loop's thread in that code for 5 s of
60, over some 2,000 requests: 2.5 ms each."""

_HANDLING: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("dippouch_handling", default=None)
"""The CPU seconds a request's endpoint spent in its thread, beyond what the budget charged as expensive work:
set by the request's pace (dippouch.web.http.middleware.Pace), added to by :func:`timed_endpoint` (the thread the
endpoint runs in sees the same list: the thread pool runs it in a copy of the request's context)."""


def handling() -> contextvars.Token[list[float] | None]:
    """Begin measuring a request's handling (its endpoint's CPU time); :func:`handled` ends it."""
    return _HANDLING.set([])


def handled(token: contextvars.Token[list[float] | None], on_loop: float) -> float:
    """What the request begun when :func:`handling` gave ``token`` is charged: the CPU time its endpoint and
    dependencies took in their threads, ``on_loop``, what the event loop spent on its steps (:class:`OnLoop`: the
    layers around the endpoint, routing, a refusal, compressing the answer), and :data:`ON_LOOP_BASE`."""
    spent = _HANDLING.get()
    _HANDLING.reset(token)
    return ON_LOOP_BASE + max(0.0, on_loop + sum(spent or ()))


class OnLoop(Generic[T]):
    """Awaits ``awaited`` and adds up the CPU time of the event loop's thread while it runs its steps
    (``seconds``), and nothing of what the loop does for other requests between them.

    The loop runs one request's step at a time, so the thread's CPU time from one resumption of this request to
    its next wait is this request's: its ASGI layers, the routing, its async code, and compressing a megabyte's
    answer (bench_hostile.py's hostile requests: 1.7 ms each on average, more for a large page; a flat allowance
    undercharged those and charged cheap ones too much)."""

    def __init__(self, awaited: Awaitable[T]) -> None:
        self.awaited = awaited
        self.seconds = 0.0

    def __await__(self) -> Generator[Any, Any, T]:
        steps = self.awaited.__await__()
        given: Any = None
        thrown: BaseException | None = None
        while True:
            started = time.thread_time()
            try:
                asked = steps.send(given) if thrown is None else steps.throw(thrown)
            except StopIteration as done:
                return cast(T, done.value)
            finally:
                self.seconds += time.thread_time() - started
            try:
                given, thrown = (yield asked), None
            except GeneratorExit:
                steps.close()
                raise
            except BaseException as e:  # a cancellation, passed on to the request's own code as asyncio would
                given, thrown = None, e


def timed_endpoint(call: Callable[..., T]) -> Callable[..., T]:
    """``call`` (a route's synchronous endpoint, run in a thread) with its thread's CPU time added to the request's
    handling: a request is charged what its page cost, not a flat guess (a sandbox's page of 64,000 characters
    costs many times a game's)."""

    @functools.wraps(call)
    def timed(*args: Any, **kwargs: Any) -> T:
        spent = _HANDLING.get()
        if spent is None:
            return call(*args, **kwargs)
        started = time.thread_time()
        try:
            return call(*args, **kwargs)
        finally:
            spent.append(time.thread_time() - started)

    timed.timed = True  # type: ignore[attr-defined]  # wrapped once, however many apps share the route
    return timed


def _charged_apart(seconds: float) -> None:
    """CPU time of this thread the budget charged as expensive work: not the request's handling too."""
    spent = _HANDLING.get()
    if spent is not None:
        spent.append(-seconds)


WINDOW = 60.0
"""The seconds over which a share is given (a share of 10 s is 10 s of computing a minute)."""

SEND_AT = 0.05
"""The part of a share a process may charge and keep to itself, per asker and per lane, before it writes it to
the :class:`Ledger`: of the default share of 10 s, 0.5 s, 50 cheap pages (:data:`REQUEST_COST`) a write; an
expensive job's reservation is written at once."""

FORGET_EVERY = 300.0
"""Seconds between two sweeps of the ledger's rows of shares full again (askers who spent and never came back)."""


class Ledger(Protocol):
    """Where the shares are kept for every process: by key, the clock time at which that share is full again."""

    def full_again(self, keys: Iterable[str]) -> dict[str, float]:
        """The full-again times of ``keys`` that have one (the others are full)."""
        ...

    def advance(self, moves: Mapping[str, float], now: float) -> dict[str, float]:
        """Move each key's full-again time by ``moves[key]`` seconds from ``max(its time, now)``, at once for
        every process, and answer the new times."""
        ...

    def forget(self, now: float) -> None:
        """Drop what is kept of shares full again by ``now``."""
        ...


@dataclass(frozen=True)
class Lane:
    """A kind of expensive work: ``runs`` jobs at once, at most ``queue`` more waiting, each waiting at most
    ``patience`` seconds for its place; ``counted`` is what its refusal calls the work."""

    runs: int
    queue: int
    patience: float
    counted: str


LANES: Mapping[str, Lane] = {
    # Line checks, sandbox checks and adjudications, the adjudication contract, move searches: each answers in
    # milliseconds to a few seconds, while a player types. Two at once, so a long one never holds the other.
    "check": Lane(runs=2, queue=8, patience=20.0, counted=N_("line checks and adjudications")),
    # Replays as GIF or WebP, game books, PDF maps, previews: seconds to minutes each, made once and kept.
    "draw": Lane(runs=1, queue=4, patience=30.0, counted=N_("drawings")),
    # A coordinator's "process now" (with its bots' moves): seconds each.
    "process": Lane(runs=1, queue=2, patience=30.0, counted=N_("processing games")),
}
"""The lanes, by the name a caller gives :meth:`WorkBudget.run`."""

# What a drawing is estimated at, in CPU seconds: each figure the dearest of the standard map, W3K, Imperial and
# 1000 AD, measured on the shared 2-CPU test machine (2026-11-25, load under 1) by drawing each from a fresh site
# (no map kept) and reading the process's CPU time around the one request: a replay of 12 processed phases
# (25 frames) took 8.8 s as GIF on the standard map, 16.3 s on W3K (0.65 s a frame, the dearest; Imperial 0.58,
# 1000 AD 0.54), as WebP 7.8 and 14.7 s; the game book 7.5 and 14.0 s for its 13 maps; a PDF map 0.7 and 1.1 s,
# a link's preview 0.7 s on each. A standard map costs about half of W3K's, and the CPU time a drawing really
# took replaces its estimate once it ends, so the estimate errs on the side of a long wait, never of a long job.
FRAME = {"gif": 0.65, "webp": 0.6}
"""CPU seconds a frame of an animated replay, by format."""
BOOK_PAGE = 1.1
"""CPU seconds a map of the game book (its atlas pages and its results)."""
PDF_MAP = 1.5
"""CPU seconds a PDF map (its atlas), with the phase's picture drawn first."""
PREVIEW = 1.0
"""CPU seconds a link's preview picture."""


_elsewhere = threading.local()


def spent_elsewhere(seconds: float) -> None:
    """Report CPU seconds another process spent for the calling thread (a job of the work pool), which
    :meth:`WorkBudget.run` charges with the thread's own time."""
    _elsewhere.seconds = _away() + seconds


def _away() -> float:
    return getattr(_elsewhere, "seconds", 0.0)


class _Bucket:
    """A share: ``level`` seconds left at clock time ``at`` (below zero: a debt), refilled as time passes."""

    __slots__ = ("at", "level")

    def __init__(self, level: float, at: float) -> None:
        self.level, self.at = level, at


class _Share:
    """Seconds of CPU time per window, refilled continuously up to ``seconds`` (infinite: unlimited); ``kind``
    names its keys in the ledger (``asker``, ``lane``). ``unsent``: what was taken here and not yet written to
    the ledger, by key."""

    def __init__(self, seconds: float, window: float, kind: str) -> None:
        self.seconds, self.window, self.kind = seconds, window, kind
        self.rate = seconds / window
        self.send_at = SEND_AT * seconds
        """Seconds of unsent charges of one key that are written to the ledger at once."""
        self.buckets: dict[str, _Bucket] = {}
        self.unsent: dict[str, float] = {}
        self.tracks = False
        """Whether what is taken is kept in :attr:`unsent` (a budget with a ledger)."""

    def shared(self, key: str) -> str:
        """``key``'s name in the ledger."""
        return f"{self.kind} {key}"

    def heard(self, key: str, full_at: float | None, now: float) -> None:
        """Set ``key``'s level from the ledger's full-again time (``None``: full), less what was taken here since
        the ledger was asked."""
        level = self.seconds - max(0.0, (full_at or now) - now) * self.rate - self.unsent.get(key, 0.0)
        if level >= self.seconds:
            self.buckets.pop(key, None)
        else:
            self.buckets[key] = _Bucket(level, now)

    @property
    def unlimited(self) -> bool:
        return math.isinf(self.seconds)

    def level(self, key: str, now: float) -> float:
        b = self.buckets.get(key)
        if b is None:
            return self.seconds
        return min(self.seconds, b.level + (now - b.at) * self.rate)

    def wait(self, key: str, need: float, now: float) -> float | None:
        """Seconds until ``need`` fits (``None``: it fits now). A need above the whole share waits for a full
        one; no need at all waits for anything left."""
        if self.unlimited:
            return None
        need = min(need, self.seconds)
        level = self.level(key, now)
        if level >= need and level > 0:
            return None
        if self.rate <= 0:
            return self.window
        return max(need - level, 0.0) / self.rate + (0.0 if need > 0 else 0.05)

    def take(self, key: str, amount: float, now: float) -> None:
        """Take ``amount`` (a negative amount gives back), forgetting askers whose share is full again."""
        if self.unlimited:
            return
        level = self.level(key, now) - amount
        if self.tracks:
            self.unsent[key] = self.unsent.get(key, 0.0) + amount
        if level >= self.seconds:
            self.buckets.pop(key, None)
        else:
            self.buckets[key] = _Bucket(level, now)
        if len(self.buckets) > 100_000:  # forget the askers whose share is full again rather than grow
            for k in [k for k in self.buckets if self.level(k, now) >= self.seconds][:50_000]:
                del self.buckets[k]


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


class WorkBudget:
    """The askers' shares, the installation's share of each lane, and the lanes themselves.

    ``seconds``: an asker's share (CPU seconds per ``window``); ``site_seconds``: what everyone together may
    spend in one lane per ``window``; ``longest``: the largest estimate one job may have; ``lanes``: the
    lanes (:data:`LANES` by default); ``per_client``: expensive requests one asker may have in hand at once;
    ``ledger``: where the shares are kept for every process (None: in this one only), ``clock`` then a clock
    every process shares (the epoch's seconds). Infinite ``seconds`` and ``site_seconds`` (a load test's or a
    test's site) charge nothing; the lanes still hold."""

    def __init__(
        self,
        seconds: float = 10.0,
        window: float = WINDOW,
        *,
        site_seconds: float = math.inf,
        longest: float = math.inf,
        lanes: Mapping[str, Lane] = LANES,
        per_client: int = 2,
        clock: Callable[[], float] = time.time,
        ledger: Ledger | None = None,
    ) -> None:
        self.seconds, self.window, self.site_seconds, self.longest = seconds, window, site_seconds, longest
        self.per_client = per_client
        self.clock = clock
        self.lanes = dict(lanes)
        self.asker_share = _Share(seconds, window, "asker")
        self.site_share = _Share(site_seconds, window, "lane")
        self.ledger = ledger
        for share in self.shares:
            share.tracks = ledger is not None and not share.unlimited
        self.forgot_at = clock()
        self.places = {name: threading.BoundedSemaphore(lane.runs) for name, lane in self.lanes.items()}
        self.waiting = dict.fromkeys(self.lanes, 0)
        self.active: dict[str, int] = {}
        self.lock = threading.Lock()

    @property
    def shares(self) -> tuple[_Share, _Share]:
        return self.asker_share, self.site_share

    def _pairs(self, client: str, lane: str) -> list[tuple[_Share, str]]:
        return [(share, key) for share, key in ((self.asker_share, client), (self.site_share, lane)) if share.tracks]

    def _sync(self, pairs: Iterable[tuple[_Share, str]], *, write: bool) -> None:
        """Hear the ledger on ``pairs`` (share, key): with ``write``, after sending what was taken here for them;
        else by a read alone, what is still unsent here counted on top (kept until it is due, so a request that
        spent little writes nothing). A ledger that fails leaves the process on its own figures (logged), its
        unsent charges kept for the next time: an asker is never refused for a database's fault."""
        pairs = list(pairs)
        if self.ledger is None or not pairs:
            return
        with self.lock:
            moves = {
                share.shared(key): (share.unsent.pop(key, 0.0) if write else 0.0) / share.rate for share, key in pairs
            }
        now = self.clock()
        try:
            got = self.ledger.advance(moves, now) if write else self.ledger.full_again(moves)
        except DatabaseError:
            log.exception("the work budget's ledger could not be %s", "written" if write else "read")
            with self.lock:
                for share, key in pairs:
                    share.unsent[key] = share.unsent.get(key, 0.0) + moves[share.shared(key)] * share.rate
            return
        with self.lock:
            for share, key in pairs:
                share.heard(key, got.get(share.shared(key)), now)

    def _due(self, share: _Share, key: str) -> bool:
        return share.tracks and (abs(share.unsent.get(key, 0.0)) >= share.send_at or len(share.unsent) > 10_000)

    def send(self) -> None:
        """Write to the ledger every asker's and lane's charges of :data:`SEND_AT` of their share or more (all of them
        when very many askers have some), and now and then forget the ledger's shares full again. Called off
        the server's event loop: it waits for the database."""
        if self.ledger is None:
            return
        with self.lock:
            pairs = [
                (share, key)
                for share in self.shares
                if share.tracks
                for key in list(share.unsent)
                if len(share.unsent) > 10_000 or abs(share.unsent[key]) >= share.send_at
            ]
        for start in range(0, len(pairs), 500):
            self._sync(pairs[start : start + 500], write=True)
        now = self.clock()
        if now - self.forgot_at >= FORGET_EVERY:
            self.forgot_at = now
            try:
                self.ledger.forget(now)
            except DatabaseError:
                log.exception("the work budget's ledger could not forget full shares")

    def _lane(self, lane: str) -> Lane:
        try:
            return self.lanes[lane]
        except KeyError:
            raise ValueError(f"no work lane {lane!r}; the lanes are {', '.join(self.lanes)}") from None

    def _refuse(self, client: str, lane: str, estimate: float, now: float) -> None:
        """Raise the refusal of a request that does not fit now (called under the lock)."""
        if estimate > self.longest:
            raise BadInput(
                msg(
                    "this would take about %(need)s s of the server's computing; one request may take at most "
                    "%(most)s s",
                    need=quantity(estimate, 0),
                    most=quantity(self.longest),
                )
            )
        self._refuse_asker(client, estimate, now)
        wait = self.site_share.wait(lane, estimate, now)
        if wait is not None:
            raise Busy(
                msg(
                    "the server has spent its share of work on %(counted)s for now (at most %(most)s s of computing "
                    "in %(window)s s for everyone); try again in %(wait)s s",
                    counted=Msg(self._lane(lane).counted),
                    most=quantity(self.site_seconds),
                    window=quantity(self.window),
                    wait=_seconds(wait),
                ),
                _seconds(wait),
            )

    def _refuse_asker(self, client: str, estimate: float, now: float) -> None:
        """Raise the 429 of an asker whose share does not hold ``estimate`` now (called under the lock)."""
        wait = self.asker_share.wait(client, estimate, now)
        if wait is not None:
            if self.asker_share.level(client, now) > 0:  # some is left, but not enough for this
                raise TooMany(
                    msg(
                        "this would take about %(need)s s of the server's computing, more than is left of your share "
                        "of its work (at most %(most)s s in %(window)s s); try again in %(wait)s s",
                        need=quantity(estimate, 1),
                        most=quantity(self.seconds),
                        window=quantity(self.window),
                        wait=_seconds(wait),
                    ),
                    _seconds(wait),
                )
            used = self.seconds - self.asker_share.level(client, now)  # more than the share: a debt
            raise TooMany(
                msg(
                    "you have used your share of the server's work (%(used)s s of computing in %(window)s s, at most "
                    "%(most)s); try again in %(wait)s s",
                    used=quantity(used, 1),
                    window=quantity(self.window),
                    most=quantity(self.seconds),
                    wait=_seconds(wait),
                ),
                _seconds(wait),
            )

    def check(self, client: str, *, lane: str = "check", estimate: float = 0.0) -> None:
        """Refuse (429, or 503 for the installation's share) a request of ``client`` whose ``estimate`` does not
        fit now, without reserving anything: for a caller that would otherwise read a large body first."""
        self._lane(lane)
        self._sync(self._pairs(client, lane), write=False)
        with self.lock:
            self._refuse(client, lane, estimate, self.clock())

    def run(self, client: str, work: Callable[[], T], *, lane: str = "check", estimate: float = 0.0) -> T:
        """Run ``work`` (in the calling thread) in ``lane``, charged to ``client``: ``estimate`` seconds of CPU
        time are reserved before it runs (refused, with the wait, when they do not fit), then replaced by the
        CPU time it took: the thread's, and what it sent to the work pool took there (:func:`spent_elsewhere`)."""
        spec = self._lane(lane)
        places = self.places[lane]
        pairs = self._pairs(client, lane)
        self._sync(pairs, write=False)
        with self.lock:
            now = self.clock()
            self._refuse(client, lane, estimate, now)
            if self.active.get(client, 0) >= self.per_client:
                raise TooMany(
                    msg(
                        "you already have %(count)s expensive requests in hand; wait for their answers",
                        count=self.per_client,
                    ),
                    1,
                )
            if self.waiting[lane] >= spec.queue:
                raise Busy(msg("the server is busy with other expensive requests; try again in a few seconds"), 2)
            self.asker_share.take(client, estimate, now)
            self.site_share.take(lane, estimate, now)
            self.waiting[lane] += 1
            self.active[client] = self.active.get(client, 0) + 1
        cost = 0.0
        reserved = any(self._due(share, key) for share, key in pairs)
        try:
            if reserved:
                self._sync(pairs, write=True)  # a reservation the other processes must see while the job runs
            try:
                got = places.acquire(timeout=spec.patience)
            finally:
                with self.lock:
                    self.waiting[lane] -= 1
            if not got:
                raise Busy(msg("the server is busy with other expensive requests; try again in a few seconds"), 2)
            started, away = time.thread_time(), _away()
            try:
                return work()
            finally:
                here = time.thread_time() - started
                cost = here + _away() - away
                places.release()
                WORK_CHARGED.labels("work").inc(cost)
                _charged_apart(here)
        finally:
            with self.lock:
                now = self.clock()
                self.asker_share.take(client, cost - estimate, now)
                self.site_share.take(lane, cost - estimate, now)
                self.active[client] -= 1
                if not self.active[client]:
                    del self.active[client]
                # A reservation the others saw is settled for them too (else they would keep counting it).
                due = reserved or any(self._due(share, key) for share, key in pairs)
            if due:
                self._sync(pairs, write=True)

    def metered(self, client: str, work: Callable[[], T]) -> T:
        """Run ``work`` (cheap as a rule, dearer on a bad input: a submission's line checks, a refused
        submission's page) in the calling thread and charge its CPU time to ``client`` afterwards: refused (429)
        only when nothing is left of their share, and in no lane, so a player's submission never waits for a
        place behind other people's checks nor is refused for the installation's share."""
        pairs = [(self.asker_share, client)] if self.asker_share.tracks else []  # the asker's share only
        self._sync(pairs, write=False)
        with self.lock:
            self._refuse_asker(client, 0.0, self.clock())
        started = time.thread_time()
        try:
            return work()
        finally:
            cost = time.thread_time() - started
            WORK_CHARGED.labels("metered").inc(cost)
            _charged_apart(cost)
            with self.lock:
                self.asker_share.take(client, cost, self.clock())
                due = any(self._due(share, key) for share, key in pairs)
            if due:
                self._sync(pairs, write=True)

    def charge_request(self, client: str, cost: float = REQUEST_COST) -> bool:
        """Take a request's handling, ``cost`` seconds, from ``client``'s share, never refusing it: a page stays
        readable to someone in debt, but the pages someone asks for, as fast as the pace of requests allows
        (dippouch.web.http.middleware.Pace), leave that much less for their expensive work, so all they cost together
        stays within their share. Nothing is written here (the caller may be the event loop): answers whether
        charges are due to be sent (:meth:`send`, from a thread)."""
        if self.asker_share.unlimited:
            return False
        WORK_CHARGED.labels("request").inc(cost)
        with self.lock:
            self.asker_share.take(client, cost, self.clock())
            return self._due(self.asker_share, client)

    def left(self, client: str) -> float:
        """Seconds of ``client``'s share left now (below zero: their debt)."""
        with self.lock:
            return self.asker_share.level(client, self.clock())
