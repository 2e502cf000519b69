"""`dippouch serve` without a proxy in front, attacked over real sockets: oversized and overnumerous
headers, half-sent requests and bodies held open, uploads aborted halfway. Each is refused or closed, the
log stays quiet, and the server goes on answering."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dippouch.web.http.server import HEAD_TIMEOUT, MAX_HEAD

SERVE = [sys.executable, "-c", "from dippouch.cli import main; main()", "serve"]

#: The server under test, as `dippouch serve` starts it (its output kept in a file, to read the log).
Server = tuple[int, Path]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status(port: int, path: str = "/healthz") -> int | None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
            head = s.recv(100)
        return int(head.split()[1])
    except (OSError, IndexError, ValueError):
        return None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module's attacks: each test ends by asking it a page, so the next finds it answering,
    and its log must stay quiet through all of them. A start compiles every page's template (2 s of a core,
    ten times that on a loaded machine), which each of five tests paid for."""
    yield from _served(tmp_path_factory.mktemp("serve"), {})


@pytest.fixture
def paced_server(tmp_path: Path) -> Iterator[Server]:
    """A server whose clients may send 4 requests at once, then 2 a second: slow enough that a loaded test
    machine still sends faster."""
    yield from _served(tmp_path, {"DIPPOUCH_REQUEST_RATE": "2", "DIPPOUCH_REQUEST_BURST": "4"})


def _served(tmp_path: Path, env: dict[str, str]) -> Iterator[Server]:
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*SERVE, "--db", f"sqlite:///{tmp_path / 's.db'}", "--port", str(port), "--no-scheduler"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **env},
        )
    try:
        deadline = time.monotonic() + 60
        while _status(port) != 200:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not answer within 60 s"
            time.sleep(0.2)
        yield port, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def _send_until_answered(port: int, head: bytes, more: bytes, total: int) -> bytes:
    """Send ``head`` then ``more`` repeatedly up to ``total`` bytes, stopping when the server answers or
    closes; the answer (empty if it closed without one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head)
        sent = len(head)
        s.setblocking(False)
        answer = b""
        while sent < total:
            try:
                answer += s.recv(4096)
                if answer:
                    break
            except BlockingIOError:
                pass
            try:
                sent += s.send(more)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:  # closed by the server
                break
        s.setblocking(True)
        s.settimeout(10)
        try:
            while chunk := s.recv(4096):
                answer += chunk
        except OSError:
            pass
        return answer


def test_an_8_mb_header_is_refused(server: Server) -> None:
    port, _ = server
    answer = _send_until_answered(port, b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ", b"a" * 65536, 8_000_000)
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
    assert f"{MAX_HEAD:,}".encode() in answer
    assert _status(port, "/") == 200


def _answer(port: int, *parts: bytes) -> bytes:
    """What the server answers to a request sent in these writes (the connection closed after it; the first
    adjudication of a server may take seconds on a loaded machine, so the wait is generous)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i, part in enumerate(parts):
            if i:
                time.sleep(0.2)  # a segment of its own
            s.sendall(part)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer


def test_a_body_sent_with_its_head_is_not_counted_as_the_head(server: Server) -> None:
    """A client (or a proxy) that writes the head and a 45 KB body at once: only the head counts towards the
    head's limit, wherever the blank line that ends it falls (security review, finding 12)."""
    port, _ = server
    body = json.dumps({"variant": "standard", "orders": {}}).encode() + b" " * 45_000
    head = (
        f"POST /api/adjudicate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    for parts in ((head + body,), (head[:-1], head[-1:] + body), (head[:-3], head[-3:] + body)):
        answer = _answer(port, *parts)
        assert answer.startswith(b"HTTP/1.1 200"), (len(parts[0]), answer[:300])
        assert b'"results"' in answer
    # A head over the limit is still refused when a body comes with it.
    big = head.replace(b"Host:", b"X-Big: " + b"a" * MAX_HEAD + b"\r\nHost:")
    answer = _answer(port, big + body)
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
    assert _status(port, "/") == 200


def test_five_thousand_headers_are_refused(server: Server) -> None:
    port, _ = server
    headers = b"a:b\r\n" * 5000  # 25,000 bytes: under the size limit, so the count is what refuses them
    assert len(headers) < MAX_HEAD - 100
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n" + headers + b"\r\n")
        answer = s.recv(4096)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert _status(port, "/") == 200


def test_half_sent_requests_and_stalled_bodies_are_closed(server: Server) -> None:
    """Many clients each sending half a request head (slowloris), and one sending half a body, are cut off
    after the time limits instead of holding their connections (and the server's) for ever."""
    port, log = server
    heads = []
    for _ in range(200):
        s = socket.create_connection(("127.0.0.1", port), timeout=HEAD_TIMEOUT + 15)
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        heads.append(s)
    body = socket.create_connection(("127.0.0.1", port), timeout=HEAD_TIMEOUT + 15)
    body.sendall(b"POST /api/adjudicate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n")
    body.sendall(b"Content-Length: 1000\r\n\r\n" + b'{"variant": ')
    started = time.monotonic()
    assert _status(port, "/") == 200  # meanwhile everyone else is served
    try:
        for s in heads:
            assert s.recv(100) == b""  # closed by the server
        answer = b""
        while chunk := body.recv(4096):  # the head and the body may come in separate segments
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
        assert b"stopped arriving" in answer
        assert time.monotonic() - started < HEAD_TIMEOUT + 10
    finally:
        for s in [*heads, body]:
            s.close()
    assert _status(port, "/") == 200
    assert "Traceback" not in log.read_text()


def test_aborted_uploads_are_not_logged_as_bugs(server: Server) -> None:
    port, log = server
    for path, ctype in (
        ("/api/adjudicate", "application/json"),
        ("/signin", "application/x-www-form-urlencoded"),
        ("/api/games/g/powers/France/check", "application/json"),
    ):
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(
                    f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: {ctype}\r\nContent-Length: 100000\r\n\r\n".encode()
                    + json.dumps({"variant": "standard", "orders": {}}).encode()[:20]
                )
                time.sleep(0.05)
    time.sleep(1)
    assert _status(port, "/") == 200
    text = log.read_text()
    assert "this is a bug" not in text and "Traceback" not in text and "internal error" not in text, text[-3000:]


def test_a_flood_from_one_session_is_held_then_refused_while_others_are_served(paced_server: Server) -> None:
    """Issue 52: a script sending as fast as it is answered made the server spend its time on refusals. One
    session's requests past its burst (4 here) wait their turn (2 a second): four connections sending as fast as
    they are answered go no faster than that; twelve at once wait past two seconds and are refused 429 with
    Retry-After; another session is answered at once meanwhile."""
    import threading

    port, log = paced_server

    def get(path: str, session: str) -> tuple[int, float, str]:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(
                f"GET {path} HTTP/1.1\r\nHost: localhost\r\nCookie: dp_session={session}\r\n"
                "Connection: close\r\n\r\n".encode()
            )
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        return int(head.split()[1]), time.monotonic() - started, head

    def flood(session: str, connections: int, each: int) -> tuple[list[tuple[int, float, str]], float]:
        got: list[tuple[int, float, str]] = []

        def one() -> None:
            for _ in range(each):
                got.append(get("/nope", session))

        started = time.monotonic()
        threads = [threading.Thread(target=one) for _ in range(connections)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return got, time.monotonic() - started

    got, took = flood("four", 4, 3)  # 12 requests: 4 at once, then 8 at two a second
    assert [g[0] for g in got] == [404] * 12
    assert took >= 3.0, took
    result: list[tuple[list[tuple[int, float, str]], float]] = []
    twelve = threading.Thread(target=lambda: result.append(flood("twelve", 12, 2)))
    twelve.start()
    time.sleep(0.3)
    other = get("/nope", "someone-else")  # while the twelve wait their turn
    twelve.join()
    got = result[0][0]
    statuses = [g[0] for g in got]
    assert statuses.count(429) >= 5 and set(statuses) == {404, 429}, statuses
    refused = next(head for status, _, head in got if status == 429)
    assert "retry-after:" in refused.lower()
    assert other[0] == 404 and other[1] < 1.0, other[:2]
    assert "Traceback" not in log.read_text()
