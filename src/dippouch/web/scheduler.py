"""The in-process deadline scheduler of ``dippouch serve``: one thread that processes due phases.

Small on purpose and replaceable: it asks the store which games are past their deadline and calls
:meth:`GameStore.process` for each, which processes a phase exactly once even if another process (a
coordinator's ``process`` command, a worker) gets there first. Phases due because everyone is ready are
processed at once when the last ready submission arrives (:meth:`dippouch.web.service.Web.submit`).
With several machines, run workers instead (issue 15) and start the server with ``--no-scheduler``.
"""

from __future__ import annotations

import logging
import threading

from dippouch.core.errors import DippouchError
from dippouch.web.service import Web

__all__ = ["DeadlineScheduler"]

log = logging.getLogger("dippouch.scheduler")


class DeadlineScheduler:
    def __init__(self, web: Web, interval: float = 15.0) -> None:
        self.web = web
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dippouch-deadlines", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def tick(self) -> list[str]:
        """Process every game whose deadline has passed; the names of the phases processed."""
        done: list[str] = []
        now = self.web.now()
        for name in self.web.access.due_games(now):
            if self._stop.is_set():
                break
            try:
                processed = self.web.store.process(name, now=now, limit=1)
                self.web.touched(name)
                for phase in processed:
                    log.info("processed %s: %s", name, phase)
                    done.append(f"{name}: {phase}")
            except DippouchError as e:  # one broken game must not stop the others
                log.warning("cannot process %s: %s", name, e)
        return done

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception:  # keep the scheduler alive; the error is logged for the operator
                log.exception("deadline scheduler tick failed")
            self._stop.wait(self.interval)
