"""`dippouch serve --host ::` listens on every interface, IPv4 too: asyncio's IPv6 socket is IPv6-only, and a browser
at 127.0.0.1 was refused while the server said it listened everywhere. A port already taken is said, not a
traceback. Every address is listened on from the moment serve says it (the app takes seconds to start after)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dippouch.listening import every_interface, listening

SERVE = [sys.executable, "-c", "from dippouch.cli import main; main()", "serve", "--no-scheduler"]

pytestmark = pytest.mark.skipif(not socket.has_dualstack_ipv6(), reason="no IPv6 on this machine")


def _free_port() -> int:
    with socket.socket(socket.AF_INET6) as s:
        s.bind(("::", 0))
        return int(s.getsockname()[1])


def _status(address: str, port: int) -> int | None:
    try:
        with socket.create_connection((address, port), timeout=5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return int(s.recv(100).split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_serve_on_the_ipv6_any_address_answers_ipv4_and_ipv6_clients(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*SERVE, "--db", f"sqlite:///{tmp_path / 's.db'}", "--host", "::", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while _status("::1", port) != 200:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not answer within 60 s"
            time.sleep(0.2)
        assert _status("127.0.0.1", port) == 200, "an IPv4 client is refused"
        assert "Listening on every interface" in log.read_text()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.parametrize("host", ["::", "127.0.0.1"])
def test_a_taken_port_is_said(tmp_path: Path, host: str) -> None:
    assert every_interface("127.0.0.1", 8000) is None and every_interface("0.0.0.0", 8000) is None
    with socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            listening(host, port, 8)
        done = subprocess.run(
            [*SERVE, "--db", f"sqlite:///{tmp_path / 's.db'}", "--host", host, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: cannot listen on {host} port {port}: Address already in use" in done.stderr, done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_name_is_listened_on_at_each_of_its_addresses() -> None:
    """As asyncio serves a name: ``localhost`` at 127.0.0.1 and ::1, each socket listening from the start."""
    made = listening("localhost", 0, 8)
    try:
        assert {s.family for s in made} == {
            info[0] for info in socket.getaddrinfo("localhost", 0, type=socket.SOCK_STREAM)
        }
        for sock in made:
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) == 1
    finally:
        for sock in made:
            sock.close()
