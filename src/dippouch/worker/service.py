"""Deadline processing for any number of processes on any number of machines sharing one database.

:func:`process_due` is the one function that finds due phases and processes them; ``dippouch worker``
calls it in a loop (:class:`Worker`) and ``dippouch serve``'s in-process scheduler calls it on the
single-machine default. Its guarantees come from the store (:func:`dippouch.store.processing.process_phase`):

- exactly once: each phase is processed in one transaction that first claims the game (PostgreSQL:
  ``SELECT ... FOR UPDATE OF games SKIP LOCKED`` on the oldest due phase, so workers each take a
  different game and never queue on one; SQLite: the database's single write lock) and checks under the
  game's lock that the phase is still open and still due; a second worker finds it processed and moves on;
- in order: a game's next phase exists only once the transaction that processed the one before it has
  committed, and due phases are taken oldest deadline first;
- crash-safe: a worker killed mid-phase leaves nothing half-written (its transaction is rolled back by
  the database when its connection drops) and no claim behind (row locks end with the transaction), so
  another worker takes the phase at its next look;
- by the database's clock: without ``now``, "due" is decided with PostgreSQL's ``clock_timestamp()``,
  so a worker whose own clock is behind does not process early (SQLite: the local clock).
"""

from __future__ import annotations

import itertools
import logging
import signal
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from types import FrameType
from typing import Any, TextIO

from dippouch.play.processing import Processed, ScanMemory
from dippouch.play.processing import process_due as play_process_due
from dippouch.store import GameStore
from dippouch.store import claims as store_claims
from dippouch.store.db import DatabaseError
from dippouch.store.mail.queues import mail_queue_depth
from dippouch.store.repository import DuePhase
from dippouch.worker import metrics
from dippouch.worker.stopping import StopFlag

__all__ = ["AfterProcessing", "Processed", "ScanMemory", "StopFlag", "Task", "Worker", "default_tasks", "process_due"]

log = logging.getLogger("dippouch.worker")

Task = Callable[[GameStore, datetime], Any]
"""Other periodic work a worker does after each look for due phases (mail: see :func:`default_tasks`). No due
phase is processed while a task runs, so a task whose work can pile up does a slice of it a call and sets its
attribute ``behind`` to True while work is left (:class:`dippouch.notify.task.NotifyTask`): the worker then
looks again at once rather than after its interval."""

AfterProcessing = Callable[[GameStore, Sequence[str], Callable[[], bool]], Any]
"""What a worker runs for the games it has just processed (their names, each once, in the order processed),
right after each phase, before it claims the next: a room above the worker passes it in (``dippouch worker
--pages`` passes the web's maker of shared game pages, :class:`dippouch.web.views.prepared.PageMaker`, so the
first reader of a processed game does not make its page). The third argument, called before each piece of work
(a page), says when to stop (:class:`_Afterwards`); what is left undone is done by whoever needs it (the page's
first reader). A hook may have a ``prepare(store)`` method, called when the worker starts (what it builds once,
such as an app's templates, is then not built while phases wait)."""


AFTER_EVERY = 4
"""How many phases a worker with :data:`AfterProcessing` hooks claims in one call of :func:`process_due`, each
followed by its hooks: whether they give way to the deadlines is weighed over the call
(:class:`_Afterwards`)."""


class _Afterwards:
    """A worker's :data:`AfterProcessing` hooks, run for each phase as one call of :func:`process_due` processes it,
    until more phases have fallen due meanwhile than the hooks have done pieces of work (each call of ``stop`` is
    one: a page), or a stop is asked. So they go on while the worker keeps up (at 1,000 games turning every 30 s a
    phase falls due every 30 ms: stopping at the first would stop them always) and give way to the deadlines
    once it falls behind, for the rest of the call; what is left is done by whoever needs it (a page's first
    reader). A failing hook is logged and counted, never stops the worker: what it makes is a saving, never
    needed."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.due: int | None = None
        """Phases due when the call began (as the last call ended), or when its first hooks ran: what more are due
        is weighed against it."""
        self.checked = 0.0
        self.pieces = 0
        self.gave_way = False

    def stop(self) -> bool:
        self.pieces += 1
        if self.worker.stopping.is_set():
            return True
        if time.monotonic() - self.checked < 0.2:
            return False
        self.checked = time.monotonic()
        memory = self.worker.memory
        self.gave_way = store_claims.due_count(self.worker.store, held=memory.held) - (self.due or 0) > self.pieces
        return self.gave_way

    def __call__(self, processed: Processed) -> None:
        if self.gave_way:
            return
        if self.due is None:
            # The count the last call ended with: a phase of this call was processed since, and a few may have
            # fallen due. Counting again here was three round trips a call (the clock, the phases held, the count).
            known = self.worker.memory.waiting
            held = self.worker.memory.held
            self.due = store_claims.due_count(self.worker.store, held=held) if known is None else known
            self.checked = time.monotonic()
        for hook in self.worker.after:
            try:
                hook(self.worker.store, [processed.game], self.stop)
            except Exception as e:
                metrics.WORKER_ERRORS.inc()
                log.error("%s failed: %s: %s", getattr(hook, "__name__", "after processing"), type(e).__name__, e)


class _Metrics:
    """The worker's Prometheus counts of :func:`dippouch.play.processing.process_due`'s work."""

    def processed(self, due: DuePhase, seconds: float, late: float | None) -> None:
        metrics.PHASES_PROCESSED.labels(due.variant).inc()
        metrics.PHASE_SECONDS.labels(due.variant).observe(seconds)
        if late is not None:
            metrics.PHASE_LATENESS.observe(late)

    def failed(self) -> None:
        metrics.WORKER_ERRORS.inc()

    def waiting(self, count: int) -> None:
        metrics.PHASES_DUE.set(count)


def process_due(
    store: GameStore,
    *,
    now: datetime | None = None,
    limit: int = 100,
    stop: Callable[[], bool] | None = None,
    memory: ScanMemory | None = None,
    then: Callable[[Processed], object] | None = None,
) -> list[Processed]:
    """:func:`dippouch.play.processing.process_due`, counted in the worker's metrics (see the module's notes
    for its guarantees)."""
    return play_process_due(store, now=now, limit=limit, stop=stop, memory=memory, meter=_Metrics(), then=then)


def default_fetch() -> Task | None:
    """Mail intake before processing, when the mail side is installed (it fetches only where an IMAP
    mailbox is set up: :func:`mail_fetch_task`)."""
    import importlib.util

    return MailFetch() if importlib.util.find_spec("dippouch.mail") is not None else None


class MailFetch:
    """:func:`mail_fetch_task` whenever a phase is due, and otherwise at most every ``every`` seconds (so
    receipts still go out promptly): a worker looks every few seconds, and logging in to the IMAP server
    that often would be rude to it."""

    def __init__(self, every: float = 60.0) -> None:
        self.every = every
        self.last: float | None = None

    def __call__(self, store: GameStore, now: datetime) -> None:
        from dippouch.mail.settings import load_settings

        if not load_settings("imap").host:
            return
        recent = self.last is not None and time.monotonic() - self.last < self.every
        if recent and store_claims.due_count(store, now=now) == 0:
            return
        mail_fetch_task(store, now)
        self.last = time.monotonic()


def mail_fetch_task(store: GameStore, now: datetime) -> None:
    """Take in the new mail of the installation's IMAP mailbox (``DIPPOUCH_IMAP_HOST`` or the mail settings
    file), if one is set up: run before due phases are processed, so an order that came on time is in the
    database before its phase is adjudicated. Raises if the mailbox is set up but cannot be read."""
    from dippouch.mail.intake import fetch_mailbox
    from dippouch.mail.settings import load_settings

    settings = load_settings("imap")
    if not settings.host:
        return
    for outcome in fetch_mailbox(store, settings.check(), now=now):
        log.info("mail %s", outcome.line())


def fetch_then_process_as_of(store: GameStore, fetch: Task | None, now: datetime | None) -> tuple[datetime | None, str]:
    """Fetch the mail; then the moment due phases are to be processed "as of": the fetch's start, so a
    phase whose deadline passes during the fetch waits for the next look, whose fetch has its mail.
    ``(None, why)`` when the fetch failed: nothing should then be processed, as the mailbox may hold orders
    that came on time (the worker's health reports ``why``)."""
    if fetch is None:
        return now, ""
    at = store.clock() if now is None else now
    try:
        fetch(store, at)
    except Exception as e:  # the mail server is down or misconfigured: logged, counted, processing waits
        if isinstance(e, DatabaseError):
            raise
        metrics.WORKER_ERRORS.inc()
        why = f"mail fetch failed ({type(e).__name__}: {e}); due phases wait until the mailbox can be read"
        log.error("%s", why)
        return None, why
    return at, ""


def default_tasks() -> list[Task]:
    """The periodic jobs besides processing: the notification dispatcher (every channel: the game's mail
    with report and map when the mail side is installed, e-mail notifications, push, webhooks), then the
    mail outbox, then the stored ratings (the games finished since the last look taken in:
    :class:`dippouch.play.ratings.RatingsTask`), then the coach's analyses of finished and practice games, a
    few seconds of CPU a look (:class:`dippouch.play.coach.CoachTask`)."""
    import importlib.util

    from dippouch.notify.task import NotifyTask
    from dippouch.play.coach import CoachTask
    from dippouch.play.ratings import RatingsTask

    mail = importlib.util.find_spec("dippouch.mail") is not None
    if mail:
        import dippouch.mail.notices  # noqa: F401  (registers the game mail as a dispatcher channel)
    return [NotifyTask(sender=mail_sender), *([mail_task] if mail else []), RatingsTask(), CoachTask()]


class PhotoReading:
    """Photographed orders read by OCR once their phase's deadline unseals them
    (:func:`dippouch.mail.ocr.read_unsealed`), so the coordinator's review page shows them read rather than
    reading each inside the page's request (about 10 s a photograph under load). It looks at most every
    ``every`` seconds (a worker looks every few); a photograph that could not be read is tried again only after
    ``retry`` seconds (the review page says why, and the coordinator types its lines)."""

    def __init__(self, every: float = 20.0, retry: float = 900.0, limit: int = 3) -> None:
        self.every = every
        self.limit = limit
        """Photographs read in one look at most: a few seconds each, and due phases wait for the look's end."""
        self.retry = retry
        self.last: float | None = None
        self.failed: dict[int, float] = {}
        """Attachment id -> time.monotonic() of its failed reading."""

    def __call__(self, store: GameStore, now: datetime) -> None:
        from dippouch.mail.ocr import read_unsealed
        from dippouch.store.mail.photos import unread_photographs

        at = time.monotonic()
        if self.last is not None and at - self.last < self.every:
            return
        self.last = at
        skip = {a for a, when in self.failed.items() if at - when < self.retry}
        # The reader's scan reads every game's open phase (seconds at a thousand games, while no due phase
        # is processed): only when some photograph waits at all.
        if not unread_photographs(store, skip=skip):
            return
        for attachment, problem in read_unsealed(store, now=now, skip=skip, limit=self.limit):
            if problem is None:
                self.failed.pop(attachment, None)
                log.info("photograph #%s read", attachment)
            else:
                self.failed[attachment] = at
                log.warning("photograph #%s could not be read: %s", attachment, problem)


def mail_sender() -> str | None:
    """The address the installation's mail comes from (the notifications' e-mails are named by its domain)."""
    from dippouch.mail.settings import load_settings

    return load_settings("smtp").sender


class ConsoleMail:
    """Until a mail server is set up, each message that waits in the outbox is written once to the console
    that runs the site (as Django's console mail backend does), so whoever started ``scripts/run`` reads the
    sign-in links there as well as on the desk's Outbox page. It remembers the last message shown of each
    database (the outbox's ids only grow), so a restart shows what still waits again."""

    SHOWN_LINES = 40
    """Lines of a message's text shown (results with their report can run long: the Outbox has them whole)."""
    PER_LOOK = 20

    def __init__(self, out: TextIO | None = None) -> None:
        self.after: dict[str, int] = {}
        self.out = out

    def __call__(self, store: GameStore) -> None:
        from dippouch.store.mail.outbox import waiting_after

        out = self.out or sys.stdout
        # The words (sign-in links among them) go to a terminal or to the stream a caller chose; a log file
        # or a journal others may read gets the line that names the message, as serve's own link does.
        words = self.out is not None or out.isatty()
        db = store.engine.url.render_as_string(hide_password=True)
        for e in waiting_after(store, self.after.get(db, 0), limit=self.PER_LOOK):
            head = f"-- mail #{e.id} not sent (mail is not set up: Coordinate, then Mail setup)"
            if words:
                lines = e.body.splitlines()
                more = len(lines) - self.SHOWN_LINES
                cut = f"\n[{more} more lines: see the Outbox]" if more > 0 else ""
                text = "\n".join(lines[: self.SHOWN_LINES]) + cut
                shown = f"{head} --\nTo: {e.to_addr}\nSubject: {e.subject}\n\n{text}\n-- end of mail #{e.id} --"
            else:
                shown = f"{head}: to {e.to_addr}, {e.subject!r}; read it on the Outbox page --"
            print(shown, file=out, flush=True)
            self.after[db] = e.id


CONSOLE_MAIL = ConsoleMail()
"""The console of this process: one, however many mail tasks run in it."""


PHOTO_READING = PhotoReading()
"""The photographs' reader of this process (it remembers which failed), run after the outbox by :func:`mail_task`."""


def mail_task(store: GameStore, now: datetime) -> None:
    """Send the mail outbox (:func:`send_outbox`), then read the photographed orders their deadline unsealed
    (:data:`PHOTO_READING`)."""
    try:
        send_outbox(store, now)
    finally:
        PHOTO_READING(store, now)


def send_outbox(store: GameStore, now: datetime) -> None:
    """Send the mail outbox (each message claimed before it is sent, so several workers send each once). The
    game's results, notices and reminders are queued before it by the notification dispatcher
    (:class:`dippouch.notify.task.NotifyTask`, the task before this one), which hands each event to the game
    mail once for all channels.

    SMTP comes from the installation's mail settings (``DIPPOUCH_MAIL_CONFIG`` or ``DIPPOUCH_SMTP_HOST``,
    ``DIPPOUCH_MAIL_FROM``...; see docs on mail). Without a server and a From address nothing is sent:
    messages wait in the queue, which is what the mail side does whenever the server is away.
    """
    from dippouch.mail.outbox import send_due
    from dippouch.mail.settings import load_settings

    settings = load_settings("smtp", store=store)
    try:
        if not settings.host or not settings.sender:
            CONSOLE_MAIL(store)
            return
        report = send_due(store, now, settings)
        metrics.MAIL_SENT.inc(len(report.sent))
        metrics.MAIL_FAILED.inc(len(report.failed))
        metrics.MAIL_RETRY.inc(len(report.retry))
        if report.server_down:
            log.warning("SMTP server not taking mail (%s); the queue waits", report.server_down)
    finally:
        metrics.MAIL_QUEUED.set(mail_queue_depth(store))


class Worker:
    """``dippouch worker``'s loop: look for due phases, process them, run the other tasks, wait, again.

    Shutdown: SIGTERM or SIGINT sets a flag that is read between phases, so the phase in hand is
    finished (committed) and no new one is started; a second signal interrupts at once, which rolls the
    phase in hand back whole (its transaction never commits). A SIGKILL leaves the same state as that
    roll-back, as far as the database is concerned.
    """

    def __init__(
        self,
        store: GameStore,
        *,
        interval: float = 5.0,
        batch: int = 100,
        tasks: Sequence[Task] | None = None,
        fetch: Task | bool | None = True,
        after: Sequence[AfterProcessing] = (),
    ) -> None:
        """``fetch``: what takes mail in before each look's processing (default :func:`default_fetch`;
        ``None`` or ``False``: nothing). ``after``: run for the games each look processed
        (:data:`AfterProcessing`)."""
        self.store = store
        self.after = list(after)
        for hook in self.after:
            prepare = getattr(hook, "prepare", None)
            if prepare is not None:
                prepare(store)
        # The server saved on the desk's mail page is this database's: the notifications' sender (their
        # Message-IDs' domain) is read from it when neither the environment nor the mail config names one.
        from dippouch.mail.settings import use_store as use_mail_store

        use_mail_store(store)
        self.fetch: Task | None = default_fetch() if fetch is True else (fetch or None)
        self.interval = interval
        self.batch = batch
        self.tasks = list(default_tasks() if tasks is None else tasks)
        self.stopping = StopFlag()
        self._signals = itertools.count()
        """SIGTERMs and SIGINTs handled so far (:meth:`_on_signal`)."""
        self.memory = ScanMemory()
        self.processed = 0
        self.behind = False
        """A task of the last look stopped with work left: the next look comes at once."""
        self.last_ok: float | None = None
        """time.monotonic() of the last look that finished without an error (for /healthz)."""
        self.last_error: str | None = None

    # -- signals -------------------------------------------------------------------------------------

    def install_signal_handlers(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # Counted by one call into C, before anything else: a second signal may be handled inside this handler
        # (between two of its bytecodes, while it logs), and a check of the flag then set later let each
        # handler take itself for the first: SIGTERM and SIGINT sent together left the worker finishing the
        # phase in hand (seen once in CI, the phase held at a pause point).
        if next(self._signals):
            log.warning("second %s: stopping now; the phase in hand is rolled back", signal.Signals(signum).name)
            raise SystemExit(1)
        self.stopping.set()
        log.info("%s: finishing the phase in hand, then stopping", signal.Signals(signum).name)

    # -- the loop ------------------------------------------------------------------------------------

    def look(self) -> list[Processed]:
        """One look: process due phases until none is left or a stop is asked, then run the tasks, with the
        phases that fell due while a task ran processed before the next task (deadlines first: a slow task
        holds them back for its own length at most, never for the other tasks' too)."""
        done, fetch_failed = self._process_due()
        behind = False
        if not self.stopping.is_set():
            now = self.store.clock()
            # Phases still due now are another worker's in hand or a broken game's: only more than these
            # stops the tasks for processing.
            left = store_claims.due_count(self.store) if self.tasks else 0
            for task in self.tasks:
                try:
                    task(self.store, now)
                except Exception as e:  # mail trouble must not stop deadline processing: logged, counted
                    if isinstance(e, DatabaseError):
                        raise
                    metrics.WORKER_ERRORS.inc()
                    log.error("%s failed: %s: %s", getattr(task, "__name__", "task"), type(e).__name__, e)
                behind = behind or getattr(task, "behind", False) is True
                if self.stopping.is_set():
                    break
                if store_claims.due_count(self.store) > left:
                    more, failed = self._process_due()
                    done.extend(more)
                    fetch_failed = fetch_failed or failed
                    left = store_claims.due_count(self.store)
        self.behind = behind
        self.processed += len(done)
        self.last_ok = time.monotonic()
        self.last_error = fetch_failed or None
        metrics.WORKER_LAST_LOOP.set_to_current_time()
        return done

    def _afterwards(self) -> _Afterwards:
        """The hooks to run after each phase of one call of :func:`process_due`."""
        return _Afterwards(self)

    def _process_due(self) -> tuple[list[Processed], str]:
        """Process due phases (after the mail's intake) until none is left or a stop is asked; with why the
        intake failed, if it did (then nothing is processed)."""
        done: list[Processed] = []
        retries = 0
        self.memory.waiting = None  # the last call's count is old now: the first call's hooks count afresh
        as_of, fetch_failed = fetch_then_process_as_of(self.store, self.fetch, None)
        # With hooks, a few phases a call, each phase's hooks run as soon as it is processed: a page made a look
        # after its phase (hundreds of phases, at a thousand games) would mostly be made by a reader first; whether
        # the hooks give way to the deadlines is weighed over the call's few.
        limit = min(self.batch, AFTER_EVERY) if self.after else self.batch
        while not self.stopping.is_set() and not fetch_failed:
            then = self._afterwards() if self.after else None
            batch = process_due(
                self.store, now=as_of, limit=limit, stop=self.stopping.is_set, memory=self.memory, then=then
            )
            done.extend(batch)
            if not batch:
                retries += 1
                if not self.memory.contended or retries > 40:
                    break  # nothing more is due now (or others hold it for long: the next look will tell)
                # Every due phase looked at was in other workers' hands: look again shortly, as more
                # may be due behind them, rather than idle for a whole interval.
                self.stopping.wait(0.05)
        return done, fetch_failed

    def run(self, *, once: bool = False) -> int:
        """Loop until stopped (``once``: a single look); the number of phases processed."""
        failures = 0
        while not self.stopping.is_set():
            try:
                self.look()
                if failures:
                    # A warning, so that a log kept at warnings (--quiet) does not end on the last failure.
                    log.warning("looking again: the database answered after %d failed looks", failures)
                failures = 0
            except Exception as e:  # the database may be down or restarting: wait and try again
                failures += 1
                # /healthz says what kind of failure, never its text (addresses, user names, SQL): the log has it.
                self.last_error = "database unavailable" if isinstance(e, DatabaseError) else "look failed"
                metrics.WORKER_ERRORS.inc()
                log.error("look for due phases failed (%d in a row): %s: %s", failures, type(e).__name__, e)
                if once:
                    raise
            if once:
                break
            # Back off while the database keeps failing, up to a minute; a stop request ends the wait. A task
            # behind with its work goes on at once (its slices leave room for due phases in between).
            if failures:
                self.stopping.wait(min(60.0, self.interval * (2 ** min(failures, 6))))
            elif not self.behind:
                self.stopping.wait(self.interval)
        return self.processed

    def health(self) -> tuple[bool, dict[str, Any]]:
        """Healthy: the last look finished without an error, recently (within three intervals or 30 s), and
        the worker is not shutting down."""
        age = None if self.last_ok is None else time.monotonic() - self.last_ok
        limit = max(30.0, 3 * self.interval)
        ok = age is not None and age <= limit and self.last_error is None and not self.stopping.is_set()
        return ok, {
            "status": "ok" if ok else "unhealthy",
            "role": "worker",
            "processed": self.processed,
            "seconds_since_last_look": None if age is None else round(age, 3),
            "stopping": self.stopping.is_set(),
            "last_error": self.last_error,
        }
