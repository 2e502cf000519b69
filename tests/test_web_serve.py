"""`scripts/run` with no arguments (the README's run command) starts the server and prints its address."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


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
        while not any("/k/dp_" in line for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        out = "".join(lines)
        assert f"at http://localhost:{port}/" in out, out
        link = re.search(r"(http://localhost:\d+/k/dp_[\w-]+)", out)
        assert link, out  # a fresh database gets a first coordinator key, shown once
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not answer within 30 s"
                time.sleep(0.2)
        assert r.status_code == 200 and "Diplomacy games" in r.text
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:
            r = c.get(link.group(1).replace("localhost", "127.0.0.1"), follow_redirects=True)
            assert r.status_code == 200 and "New game" in r.text
        assert (tmp_path / "served.db").exists()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_the_cli_does_not_import_the_web_stack_until_serve_runs() -> None:
    """`serve` registers with the other commands but imports FastAPI, uvicorn and Jinja2 only when run."""
    import sys

    code = (
        "import sys; from dippouch.cli import _register; _register(); "
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
