"""`scripts/run` with no arguments (the README's run command) starts the server and prints its address."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import httpx

from servesupport import TLS

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_run_command_serves_the_app(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "DIPPOUCH_DATABASE_URL": f"sqlite:///{tmp_path / 'served.db'}", "DIPPOUCH_PORT": str(port)}
    proc = subprocess.Popen(
        [str(ROOT / "scripts" / "run")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        # scripts/run sets up first (quiet unless it has something to install); then the server speaks.
        lines: list[str] = []
        while not any("readable only by you" in line or "/k/dp_" in line for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        out = "".join(lines)
        assert f"at http://localhost:{port}/" in out, out
        # A fresh database gets a first coordinator key. This output is a pipe (a log, not a terminal), so
        # the link is not in it but in a file beside the database that only its owner can read.
        assert "/k/dp_" not in out, out
        written = re.search(r"Its link is in (\S+) \(readable only by you\)", out)
        assert written, out
        path = Path(written.group(1))
        assert path.parent == tmp_path and path.stat().st_mode & 0o777 == 0o600
        link = re.search(r"(http://localhost:\d+/k/dp_[\w-]+)", path.read_text())
        assert link, path.read_text()
        # Opened at once, as a newcomer clicks the printed address: the server listens from the moment it says
        # it, and the request waits for the app to start (the address was said seconds before, and refused).
        try:
            r = httpx.get(f"http://127.0.0.1:{port}/", timeout=60, verify=TLS)
        except httpx.ConnectError as e:
            raise AssertionError(f"the printed address refused a browser: {e}") from None
        assert r.status_code == 200 and "Diplomacy games" in r.text
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:
            opened = {"Sec-Fetch-Site": "none"}  # as a browser says of a link opened from a mail program
            r = c.get(link.group(1).replace("localhost", "127.0.0.1"), headers=opened, follow_redirects=True)
            assert r.status_code == 200 and "New game" in r.text
        assert (tmp_path / "served.db").exists()
        # The key is named by what made it, a program's name the same in every language (the label is shown
        # as written wherever the key is named, to readers of any language).
        with sqlite3.connect(tmp_path / "served.db") as db:
            assert db.execute("SELECT label FROM access_keys WHERE role = 'coordinator'").fetchall() == [
                ("dippouch serve",)
            ]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_the_first_link_is_printed_on_a_terminal_only(tmp_path: Path) -> None:
    """On a terminal (someone at the keyboard) the link is printed as before; nothing is written."""
    import pty
    import sys

    port = _free_port()
    code = "from dippouch.cli import main; main()"
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--db", f"sqlite:///{tmp_path / 't.db'}", "--port", str(port)],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(follower)
    try:
        out = b""
        deadline = time.monotonic() + 60
        while b"/k/dp_" not in out or not out.endswith(b"\n"):
            assert time.monotonic() < deadline, out
            try:
                out += os.read(leader, 4096)
            except OSError:
                break
        assert re.search(rb"http://localhost:\d+/k/dp_[\w-]{43}", out), out
        assert not (tmp_path / "dippouch-coordinator-link.txt").exists()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        os.close(leader)


def test_the_cli_does_not_import_the_web_stack_until_serve_runs() -> None:
    """`serve` registers with the other commands but imports FastAPI, uvicorn and Jinja2 only when run."""
    import sys

    code = (
        "import sys; from dippouch.cli import register_commands; register_commands(); "
        "import dippouch.cli.serve; "
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'jinja2', 'starlette', 'dippouch.web.app') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    help_text = subprocess.run(
        [sys.executable, "-c", "from dippouch.cli import main; main()", "serve", "--help"],
        capture_output=True,
        text=True,
    ).stdout
    assert "--port" in help_text and "--db" in help_text
