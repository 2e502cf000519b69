"""The in-process deadline scheduler of ``dippouch serve``: one thread that processes due phases, then tells
people (notifications, and the mail queue sent when a mail server is set up), as a worker's look does.

Small on purpose: each tick calls :func:`dippouch.worker.service.process_due`, the same function the
``dippouch worker`` processes run, so a phase is processed exactly once even if another process (a
coordinator's ``process`` command, a worker) gets there first, and "due" is decided by the database's
clock (unless the app was given a clock of its own, as tests do). Phases due because everyone is ready
are also processed at once when the last ready submission arrives (:func:`dippouch.web.views.player_page.submit`).
With several processes or machines, run workers instead and start the servers with ``--no-scheduler``
(or ``DIPPOUCH_WORKERS=1``).
"""

from __future__ import annotations

import logging
import threading

from dippouch.bots.seats import Think
from dippouch.web.http.service import Web
from dippouch.worker.service import ScanMemory, Task, default_fetch, default_tasks

__all__ = ["DeadlineScheduler"]

log = logging.getLogger("dippouch.scheduler")


class DeadlineScheduler:
    def __init__(
        self, web: Web, interval: float = 15.0, tasks: list[Task] | None = None, think: Think | None = None
    ) -> None:
        """``tasks``: what runs after each look's processing (default: the worker's, notifications and mail);
        ``think``: where the bots of the games think (dippouch.web.http.pool.thinking_in: the server's work pool;
        None: in this thread, as a worker's bots do in their own process)."""
        self.web = web
        self.think = think
        self.interval = interval
        self._stop = threading.Event()
        self.memory = ScanMemory()
        self.fetch = default_fetch()
        self.tasks = default_tasks() if tasks is None else tasks
        self._thread = threading.Thread(target=self._run, name="dippouch-deadlines", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def tick(self) -> list[str]:
        """Process every phase that is due; ``"game: phase"`` for each processed."""
        from dippouch.worker.service import fetch_then_process_as_of, process_due

        now = self.web.now() if self.web.clock_given else None
        done: list[str] = []
        # Mail first (where an IMAP mailbox is set up): orders that came on time are in before processing.
        now, failed = fetch_then_process_as_of(self.web.store, self.fetch, now)
        while not self._stop.is_set() and not failed:
            if self.think is not None:
                # The bots send their orders first, thinking elsewhere; processing then finds them sent.
                from dippouch.bots.seats import play_seats
                from dippouch.store.bots import games_with_bots

                if games := games_with_bots(self.web.store):
                    at = self.web.store.clock() if now is None else now
                    play_seats(self.web.store, now=at, games=games, think=self.think)
            batch = process_due(self.web.store, now=now, stop=self._stop.is_set, memory=self.memory)
            for p in batch:
                self.web.touched(p.game)
                done.append(f"{p.game}: {p.phase}")
            if not batch:
                break
        # Then tell people: without this a server run alone (the embedded default, no workers) never sent a
        # result, reminder or sign-in mail, however its mail was set up.
        at = self.web.now() if self.web.clock_given else self.web.store.clock()
        for task in self.tasks:
            if self._stop.is_set():
                break
            try:
                task(self.web.store, at)
            except Exception:  # one task's trouble (a mail server away) must not stop deadlines or the others
                log.exception("scheduler task %s failed", getattr(task, "__name__", type(task).__name__))
        return done

    def _run(self) -> None:
        from dippouch.worker import metrics

        while not self._stop.is_set():
            try:
                self.tick()
                # The server's /metrics shows the worker's gauge: without this a scheduler that stopped looking
                # (or never started) looked the same as one looking every few seconds.
                metrics.WORKER_LAST_LOOP.set_to_current_time()
            except Exception:  # keep the scheduler alive; the error is logged for the operator
                log.exception("deadline scheduler tick failed")
            self._stop.wait(self.interval)
