"""A real ``dippouch serve`` for the walks that need the whole server (its own scheduler sending mail, its start
and its stop), started as ``scripts/run`` starts it, and stopped as an operator stops it (SIGTERM)."""

from __future__ import annotations

import os
import re
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from mailservers import SmtpServer, free_port

TLS = ssl.create_default_context()
"""The one TLS context of every client the tests make to ask their servers (``verify=TLS``): the servers speak
plain HTTP on this machine, but httpx makes a context for each client otherwise, 17 ms of CPU each, which a
poll every 50 ms paid every time."""

START = 120.0
"""Seconds the server may take to answer: its start compiles every page's template (2 s of a core), some 30 s
on a machine loaded ten times over."""
STOP = 60.0
"""Seconds it may take to stop with players' pages open. A press stream kept it running for its whole life
(300 s) before it ended them on a stop; a stop now waits for the scheduler's look and the work pool only."""


@dataclass
class Served:
    base: str
    folder: Path
    """The server's working directory, which holds its SQLite database (and the coordinator's link file)."""
    proc: subprocess.Popen[str]


def mail_env(smtp: SmtpServer, sender: str) -> dict[str, str]:
    """The README's environment for a server whose mail goes to ``smtp``."""
    return {
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": sender,
    }


@contextmanager
def serving(folder: Path, env: Mapping[str, str] | None = None) -> Iterator[Served]:
    """``dippouch serve`` on an SQLite database in ``folder``, with only the mail settings of ``env`` (none:
    mail not set up), its scheduler looking every half second; returns once it answers. Its output is printed
    when it stops, for a failure's log."""
    port = free_port()
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DIPPOUCH_SMTP_", "DIPPOUCH_MAIL"))}
    full.pop("DIPPOUCH_PUBLIC_URL", None)
    full |= {"DIPPOUCH_DATABASE_URL": f"sqlite:///{folder / 'dippouch.db'}", **(env or {})}
    command = ["serve", "--port", str(port), "--interval", "0.5"]  # scripts/run's, looking more often
    proc = subprocess.Popen(
        [sys.executable, "-c", "from dippouch.cli import main; main()", *command],
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        cwd=folder,
    )
    served = Served(f"http://localhost:{port}", folder, proc)
    try:
        _wait_answering(served)
        yield served
    except BaseException:
        _stop(proc, strict=False)  # the test's own failure is the one to tell
        raise
    _stop(proc, strict=True)


def last_look(served: Served) -> float:
    """When the server's scheduler last finished a look (its processing, then telling people and sending the
    mail it queued), in Unix seconds, as its /metrics says (0: none yet)."""
    text = httpx.get(f"{served.base}/metrics", timeout=30, verify=TLS).raise_for_status().text
    m = re.search(r"^dippouch_worker_last_loop_timestamp_seconds (\S+)$", text, re.M)
    assert m, "the server's /metrics has no dippouch_worker_last_loop_timestamp_seconds"
    return float(m.group(1))


def looks_after(served: Served, looks: int = 2, seconds: float = 60.0) -> None:
    """Returns once the scheduler has finished ``looks`` whole looks that began after this call: what any of
    them would send (a second mail after the one awaited) has been sent by then, however long a look takes on
    a loaded machine (a fixed sleep would watch too short there, and too long here)."""
    since = time.time()
    seen: list[float] = []
    until = time.monotonic() + seconds
    while True:
        at = last_look(served)
        if at > since and at not in seen:
            seen.append(at)  # a look missed between two asks makes this wait longer, never shorter
        if len(seen) > looks:  # the first may have begun before this call: only those after it count
            return
        assert time.monotonic() < until, f"the scheduler finished {len(seen)} looks in {seconds:g} s"
        time.sleep(0.05)


def _wait_answering(served: Served) -> None:
    until = time.monotonic() + START
    while True:
        assert served.proc.poll() is None, "dippouch serve ended at its start (its output is printed below)"
        try:
            httpx.get(f"{served.base}/healthz", timeout=5, verify=TLS).raise_for_status()
            return
        except httpx.HTTPError:
            assert time.monotonic() < until, f"dippouch serve did not answer within {START:g} s"
            time.sleep(0.1)


def _stop(proc: subprocess.Popen[str], *, strict: bool) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    began = time.monotonic()
    try:
        out, _ = proc.communicate(timeout=STOP)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        print(out[-4000:])
        assert not strict, f"dippouch serve did not stop within {STOP:g} s of SIGTERM"
        return
    print(f"dippouch serve stopped {time.monotonic() - began:.1f} s after SIGTERM; its output:\n{out[-4000:]}")
