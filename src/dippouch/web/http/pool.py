"""Expensive work in processes of its own, so that one person's drawing or sandbox never slows everyone's pages.

The web process answers every page from threads that share one interpreter lock. A second of pure Python work in
one of them (a W3K sandbox's line check, a replay's frames) holds that lock most of the time, and every page's
reads and writes wait to get it back after each of their I/O waits (the convoy effect): measured with
``benchmarks/bench_hostile.py``, one hostile person's sandboxes took the players' page p99 from 26 ms to 654 ms.
Threads cannot fix it; processes can. :class:`WorkPool` runs such work in worker processes started with the
server, never forked from it (a fork of a threaded server copies its locks as they stand): on Linux forked from a
fork server, one single-threaded process that imported what the jobs need once, so that a lane's process (and its
replacement after one is killed) is a fork of it rather than a fresh interpreter importing all that again (1.3-1.6 s
of CPU on this project's machine); elsewhere spawned. They run niced below the server, so the operating system
gives the pages the CPU whenever both want it.

A job is a top-level function (the worker imports it by name) called with picklable arguments. A
:class:`~dippouch.core.variant.Variant` among them is sent as its data (a few tens of kilobytes) and hash, and
built once in each worker (kept by hash, :data:`KEPT`): a game's own stored copy and a catalogue variant alike.
Positions and texts go as they are. The worker measures the job's CPU time (``time.process_time``) and the
caller's thread reports it (:func:`dippouch.web.http.budget.spent_elsewhere`), so the work budget charges the asker
what the job really cost, wherever it ran.

Each lane of the work budget (:data:`dippouch.web.http.budget.LANES`) has processes of its own: a line check never
waits behind a drawing. A worker that dies (killed, out of memory) fails the job it held: its request is answered
503 (:class:`~dippouch.web.http.security.Busy`), never left hanging, and the lane's processes are started again for the
next one. :class:`Inline` runs the same jobs in the calling thread: the tests' sites, and an installation that
sets ``DIPPOUCH_WORK_PROCESSES=0``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import random
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, ParamSpec, Protocol, TypeVar
from weakref import WeakKeyDictionary

from cachetools import LRUCache

from dippouch.bots.memory import Memory
from dippouch.bots.seats import Think, memory_data, think_from_data
from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant, content_hash
from dippouch.web.http.budget import LANES, spent_elsewhere
from dippouch.web.http.security import Busy

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = ["KEPT", "NICE", "Inline", "Jobs", "WorkPool", "thinking_in", "work_pool"]

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger("dippouch.web.http.pool")

NICE = 10
"""How much lower the workers' scheduling priority is than the server's: at 10, Linux gives a process about a
tenth of the CPU a normal one gets when both want it, so pages come first and the work takes what is left."""

KEPT = 8
"""Variants a worker keeps built (W3K takes some 30 MB): the rest are built again from their data when asked."""


class Jobs(Protocol):
    """Where the expensive work runs: :class:`WorkPool` (worker processes) or :class:`Inline` (this thread)."""

    def call(self, lane: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...

    def close(self) -> None: ...


class Inline:
    """Jobs run in the calling thread, whose own CPU time the work budget measures: for the tests' sites (thousands
    of requests, in one process) and for ``DIPPOUCH_WORK_PROCESSES=0``."""

    def call(self, lane: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return fn(*args, **kwargs)

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------------------------------
# In the worker


@dataclass(frozen=True)
class _VariantRef:
    """A variant as it travels to a worker: its resolved data (after inheritance and options), its options and
    the hash that names the data, from which :func:`dippouch.catalog.variant_from_data` builds it again."""

    digest: str
    data: Mapping[str, Any]
    options: Mapping[str, Any]
    source: str


_BUILT: LRUCache[tuple[str, str], Variant] = LRUCache(KEPT)


def _variant(ref: _VariantRef) -> Variant:
    from dippouch.catalog import variant_from_data
    from dippouch.core.variant import canonical_json

    key = (ref.digest, canonical_json(dict(ref.options)))
    v = _BUILT.get(key)
    if v is None:
        v = _BUILT[key] = variant_from_data(ref.data, ref.options, source=ref.source, digest=ref.digest)
    return v


def _arrived(x: object) -> object:
    return _variant(x) if isinstance(x, _VariantRef) else x


class JobFailed(Exception):
    """A job's exception that could not travel back as itself (one whose class takes other arguments than its
    message): its type and text, so the server logs what happened. A bug's record for the log, never a message
    to a person (the application answers it as an internal error, with an id)."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(kind, text)  # both in args, so it travels back from a worker process itself
        self.kind = kind
        self.text = text

    def __str__(self) -> str:
        return f"{self.kind}: {self.text}"


def _travels(e: BaseException) -> BaseException:
    """``e``, or what stands for it if it cannot be sent back (its class built again from its message alone
    fails): a refusal of the engine as a :class:`DippouchError` with the same words (400, said in the reader's
    language as the original is), anything else as :class:`JobFailed`."""
    try:
        pickle.loads(pickle.dumps(e))
    except Exception:  # any exception a class's own __reduce__ or __init__ raises
        if isinstance(e, DippouchError):
            return DippouchError(e.msg)
        return JobFailed(".".join((type(e).__module__, type(e).__qualname__)), str(e))
    return e


def _run(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[T, float]:
    """The job in the worker, with the CPU time it took (building a variant it was sent for the first time
    included: that too is work done for the asker)."""
    started = time.process_time()
    try:
        got = fn(*(_arrived(a) for a in args), **{k: _arrived(v) for k, v in kwargs.items()})
    except BaseException as e:
        raise _travels(e) from None
    return got, time.process_time() - started


def _started(server: int) -> None:
    """A worker's start: below the server's priority; Ctrl-C is the server's to handle (it closes the pool); and
    gone when the server is (killed outright, it cannot close the pool: its workers would be left running)."""
    os.nice(NICE)
    if hasattr(os, "SCHED_IDLE"):
        # Linux: run only when no normal process wants the CPU, so a page never waits behind a drawing.
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent is the server, or the fork server, which ends with the server: either way a new parent means
    # the server is gone; the server is asked as well, in case it went before this process started.
    parent = os.getppid()

    def orphaned() -> None:
        while os.getppid() == parent and _alive(server):
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, name="dippouch-orphan-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or its number given to another user's process since
        return False
    return True


def _context(preload: Sequence[str]) -> multiprocessing.context.BaseContext:
    """Where the workers come from: the fork server where the system has one, importing ``preload`` once for
    all of them (the first pool of a process decides: there is one fork server a process), else spawning."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, *preload])
    return ctx


# --------------------------------------------------------------------------------------------------
# In the server


_REFS: WeakKeyDictionary[Variant, _VariantRef] = WeakKeyDictionary()
_REFS_LOCK = threading.Lock()


def _ref(v: Variant) -> _VariantRef:
    """The variant as it travels, made once per variant object (its hash is a millisecond of W3K's data)."""
    with _REFS_LOCK:
        got = _REFS.get(v)
    if got is None:
        got = _VariantRef(content_hash(dict(v.data)), v.data, v.options, v.source)
        with _REFS_LOCK:
            _REFS[v] = got
    return got


def _sent(x: object) -> object:
    return _ref(x) if isinstance(x, Variant) else x


class WorkPool:
    """Worker processes for expensive pure work, per lane of the work budget: at most ``processes`` each (and no
    more than the lane runs at once). Processes start when a lane first needs them (:meth:`warm` starts them
    all); :meth:`close` stops them."""

    def __init__(self, processes: int, *, lanes: Mapping[str, int] | None = None, preload: Sequence[str] = ()) -> None:
        if processes < 1:
            raise ValueError("a work pool has at least one process a lane; Inline runs jobs in the calling thread")
        runs = lanes if lanes is not None else {name: lane.runs for name, lane in LANES.items()}
        self.sizes = {name: max(1, min(processes, n)) for name, n in runs.items()}
        self._preload = tuple(preload)
        self._executors: dict[str, ProcessPoolExecutor] = {}
        self._lock = threading.Lock()
        self._closed = False

    def _executor(self, lane: str) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the work pool is closed: the server has stopped")
            ex = self._executors.get(lane)
            if ex is None:
                if lane not in self.sizes:
                    raise ValueError(f"no work lane {lane!r}; the lanes are {', '.join(self.sizes)}")
                ex = self._executors[lane] = ProcessPoolExecutor(
                    self.sizes[lane],
                    mp_context=_context(self._preload),
                    initializer=_started,
                    initargs=(os.getpid(),),
                )
            return ex

    def _renew(self, lane: str, broken: ProcessPoolExecutor) -> None:
        """Start the lane's processes again after one died (once, however many requests saw it die)."""
        with self._lock:
            if self._executors.get(lane) is broken:
                del self._executors[lane]
        broken.shutdown(wait=False, cancel_futures=True)

    def _submit(self, lane: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        ex = self._executor(lane)
        try:
            return ex, ex.submit(_run, fn, args, kwargs)
        except BrokenProcessPool:  # a process died while idle: the job never ran, so it may go to new ones
            self._renew(lane, ex)
            ex = self._executor(lane)
            return ex, ex.submit(_run, fn, args, kwargs)

    def call(self, lane: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` in one of ``lane``'s processes; its CPU time is reported as spent for the
        calling thread. A process that dies under the job is a 503, charged the time the job ran."""
        sent_args = tuple(_sent(a) for a in args)
        sent_kwargs = {k: _sent(v) for k, v in kwargs.items()}
        started = time.monotonic()
        ex, future = self._submit(lane, fn, sent_args, sent_kwargs)
        try:
            got, cpu = future.result()
        except BrokenProcessPool:
            spent_elsewhere(time.monotonic() - started)
            self._renew(lane, ex)
            log.error("a worker process of the %s lane died running %s", lane, getattr(fn, "__qualname__", fn))
            raise Busy(
                msg(
                    "a process doing expensive work stopped before it finished this request; try again in a few seconds"
                ),
                2,
            ) from None
        spent_elsewhere(cpu)
        return got  # type: ignore[no-any-return]

    def warm(self, ready: Callable[[], object]) -> list[Future[Any]]:
        """Start every lane's processes now, each running ``ready`` (a job that imports what the jobs need: a
        second or two of a fresh interpreter), rather than on a first request."""
        started = [self._executor(lane).submit(ready) for lane, size in self.sizes.items() for _ in range(size)]
        for f in started:
            f.add_done_callback(_warmed)
        return started

    def warm_beside(self, ready: Callable[[], object]) -> threading.Thread:
        """:meth:`warm` in a thread of its own: starting the first process waits on the fork server importing
        the preloaded modules (two seconds of a fresh interpreter), which then runs on the machine's other CPU
        while the server builds its app (a server's start 8.4-9.4 -> 6.5-7.1 s, idle, to its first answer)."""

        def start() -> None:
            try:
                self.warm(ready)
            except RuntimeError:  # stopped before its processes started: there is nothing to start them for
                if not self._closed:
                    raise

        thread = threading.Thread(target=start, name="work pool start", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        """Stop the processes (a job under way is let finish; those waiting are dropped)."""
        with self._lock:
            self._closed = True
            executors = list(self._executors.values())
            self._executors.clear()
        for ex in executors:
            ex.shutdown(wait=True, cancel_futures=True)


def _warmed(f: Future[Any]) -> None:
    if not f.cancelled() and (e := f.exception()) is not None:
        log.error("a worker process could not import what jobs need: %s: %s", type(e).__name__, e)


def work_pool(processes: int, ready: Callable[[], object] | None = None, preload: Sequence[str] = ()) -> Jobs:
    """The installation's place for expensive work: ``processes`` a lane (``DIPPOUCH_WORK_PROCESSES``), each
    started now and running ``ready`` first (:meth:`WorkPool.warm`), the modules ``preload`` names imported once
    for all of them where they are forked; or the calling thread, for 0."""
    if processes <= 0:
        return Inline()
    pool = WorkPool(processes, preload=preload)
    if ready is not None:
        pool.warm_beside(ready)
    return pool


def thinking_in(pool: Jobs) -> Think:
    """Bots thinking in ``pool``'s processing lane (:func:`dippouch.bots.seats.think_from_data`, the memory sent
    as data): a search bot thinks for half a second a power, which in the server's own threads would hold the
    interpreter lock every page waits for."""

    def think(
        level: str, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None
    ) -> list[Order]:
        return pool.call("process", think_from_data, level, variant, position, power, rng, memory_data(memory))

    return think
