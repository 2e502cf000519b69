"""The work budget: what keeps cheap pages fast while some people ask for expensive work (line checks of many
misspelt orders, sandbox adjudications, drawings of whole games, a coordinator's "process now").

Each asker (the signed-in person, by their id, wherever they come from; else the address) has a share of the
server's CPU time, refilled at :attr:`WorkBudget.seconds` per :attr:`WorkBudget.window` up to a full share: a
token bucket, as lichess and Diplicity bound what one account may cost. A request names its estimate; the
estimate is taken from the share *before* the work runs, and a request whose estimate does not fit is refused
(429, with how long to wait) without running. When the work ends the reservation is replaced by the CPU time it
measured: the thread's own, and what the work pool's processes spent on its jobs (:func:`spent_elsewhere`,
:mod:`dippouch.web.pool`), so a job that overran its estimate leaves its asker in debt and their next request
waits for the debt to be refilled too. A job estimated above a whole share runs only on a full share; one
estimated above :attr:`WorkBudget.longest` never runs (what it is, and what to ask for instead, is the caller's
refusal to write).

Work runs in lanes by kind (:data:`LANES`), each with its own places, its own queue and its own share of the
installation's CPU time for everyone together: a line check never waits behind a drawing, and a crowd of
askers (many addresses) cannot give all the server's time to one kind of work. A lane whose places and
queue are full, or whose installation share is spent, answers 503 at once (with Retry-After), so waiting
requests never take the threads the cheap pages need. The work itself runs in the work pool's processes, a lane's
own, niced below the server (:mod:`dippouch.web.pool`): in the server's threads, pure Python work would share the
interpreter lock with every page.

The figures are settings (``DIPPOUCH_WORK_SECONDS``, ``DIPPOUCH_WORK_SITE_SECONDS``, ``DIPPOUCH_WORK_JOB_SECONDS``:
docs/settings.md); everything is kept in memory, per server process.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from dippouch.core.messages import Msg, msg
from dippouch.web.security import BadInput, Busy, TooMany

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = [
    "BOOK_PAGE",
    "FRAME",
    "LANES",
    "PDF_MAP",
    "PREVIEW",
    "REQUEST_COST",
    "WINDOW",
    "Lane",
    "WorkBudget",
    "spent_elsewhere",
]

T = TypeVar("T")

REQUEST_COST = 0.01
"""The CPU seconds a request's handling is charged (:meth:`WorkBudget.charge_request`): about what a game page,
a sandbox page or a refusal costs the server (benchmarks/bench_hostile.py measured 3-12 ms)."""

WINDOW = 60.0
"""The seconds over which a share is given (a share of 10 s is 10 s of computing a minute)."""


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
    "check": Lane(runs=2, queue=8, patience=20.0, counted="line checks and adjudications"),
    # Replays as GIF or WebP, game books, PDF maps, previews: seconds to minutes each, made once and kept.
    "draw": Lane(runs=1, queue=4, patience=30.0, counted="drawings"),
    # A coordinator's "process now" (with its bots' moves): seconds each.
    "process": Lane(runs=1, queue=2, patience=30.0, counted="processing games"),
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
    """Seconds of CPU time per window, refilled continuously up to ``seconds`` (infinite: unlimited)."""

    def __init__(self, seconds: float, window: float) -> None:
        self.seconds, self.window = seconds, window
        self.rate = seconds / window
        self.buckets: dict[str, _Bucket] = {}

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
    lanes (:data:`LANES` by default); ``per_client``: expensive requests one asker may have in hand at once.
    Infinite ``seconds`` and ``site_seconds`` (a load test's or a test's site) charge nothing; the lanes
    still hold."""

    def __init__(
        self,
        seconds: float = 10.0,
        window: float = WINDOW,
        *,
        site_seconds: float = math.inf,
        longest: float = math.inf,
        lanes: Mapping[str, Lane] = LANES,
        per_client: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds, self.window, self.site_seconds, self.longest = seconds, window, site_seconds, longest
        self.per_client = per_client
        self.clock = clock
        self.lanes = dict(lanes)
        self.asker_share = _Share(seconds, window)
        self.site_share = _Share(site_seconds, window)
        self.places = {name: threading.BoundedSemaphore(lane.runs) for name, lane in self.lanes.items()}
        self.waiting = dict.fromkeys(self.lanes, 0)
        self.active: dict[str, int] = {}
        self.lock = threading.Lock()

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
                    need=f"{estimate:.0f}",
                    most=f"{self.longest:g}",
                )
            )
        wait = self.asker_share.wait(client, estimate, now)
        if wait is not None:
            if self.asker_share.level(client, now) > 0:  # some is left, but not enough for this
                raise TooMany(
                    msg(
                        "this would take about %(need)s s of the server's computing, more than is left of your share "
                        "of its work (at most %(most)s s in %(window)s s); try again in %(wait)s s",
                        need=f"{estimate:.1f}",
                        most=f"{self.seconds:g}",
                        window=f"{self.window:g}",
                        wait=_seconds(wait),
                    ),
                    _seconds(wait),
                )
            used = self.seconds - self.asker_share.level(client, now)  # more than the share: a debt
            raise TooMany(
                msg(
                    "you have used your share of the server's work (%(used)s s of computing in %(window)s s, at most "
                    "%(most)s); try again in %(wait)s s",
                    used=f"{used:.1f}",
                    window=f"{self.window:g}",
                    most=f"{self.seconds:g}",
                    wait=_seconds(wait),
                ),
                _seconds(wait),
            )
        wait = self.site_share.wait(lane, estimate, now)
        if wait is not None:
            raise Busy(
                msg(
                    "the server has spent its share of work on %(counted)s for now (at most %(most)s s of computing "
                    "in %(window)s s for everyone); try again in %(wait)s s",
                    counted=Msg(self._lane(lane).counted),
                    most=f"{self.site_seconds:g}",
                    window=f"{self.window:g}",
                    wait=_seconds(wait),
                ),
                _seconds(wait),
            )

    def check(self, client: str, *, lane: str = "check", estimate: float = 0.0) -> None:
        """Refuse (429, or 503 for the installation's share) a request of ``client`` whose ``estimate`` does not
        fit now, without reserving anything: for a caller that would otherwise read a large body first."""
        self._lane(lane)
        with self.lock:
            self._refuse(client, lane, estimate, self.clock())

    def run(self, client: str, work: Callable[[], T], *, lane: str = "check", estimate: float = 0.0) -> T:
        """Run ``work`` (in the calling thread) in ``lane``, charged to ``client``: ``estimate`` seconds of CPU
        time are reserved before it runs (refused, with the wait, when they do not fit), then replaced by the
        CPU time it took: the thread's, and what it sent to the work pool took there (:func:`spent_elsewhere`)."""
        spec = self._lane(lane)
        places = self.places[lane]
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
        try:
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
                cost = time.thread_time() - started + _away() - away
                places.release()
        finally:
            with self.lock:
                now = self.clock()
                self.asker_share.take(client, cost - estimate, now)
                self.site_share.take(lane, cost - estimate, now)
                self.active[client] -= 1
                if not self.active[client]:
                    del self.active[client]

    def charge_request(self, client: str, cost: float = REQUEST_COST) -> None:
        """Take a request's handling, ``cost`` seconds, from ``client``'s share, never refusing it: a page stays
        readable to someone in debt, but the pages someone asks for, as fast as the pace of requests allows
        (dippouch.web.middleware.Pace), leave that much less for their expensive work, so all they cost together
        stays within their share."""
        if self.asker_share.unlimited:
            return
        with self.lock:
            self.asker_share.take(client, cost, self.clock())

    def left(self, client: str) -> float:
        """Seconds of ``client``'s share left now (below zero: their debt)."""
        with self.lock:
            return self.asker_share.level(client, self.clock())
