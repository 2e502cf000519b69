"""An answer's head and body leave `dippouch serve` in one write (one segment, one wake-up of the reader):
uvicorn writes the head as soon as the app starts its answer and the body after; the server's protocol
(:class:`dippouch.web.http.server.GuardedHttpTools`) holds the head back until the body and writes both at once,
and writes a head alone at the loop's next turn when no body follows at once. Asked of the real protocol over a
transport that records what it is given."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from dippouch.web.http.server import GuardedHttpTools


class _Wire:
    """A transport that records each write (``writelines`` as one) and whether it was closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def writelines(self, parts: Any) -> None:
        self.writes.append(b"".join(parts))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: Any) -> None:
        pass


def _answering(app: Any, request: bytes) -> list[bytes]:
    """What the protocol writes answering ``request`` with ``app``, once the app is done and the loop has
    turned."""

    async def run() -> list[bytes]:
        config = uvicorn.Config(app, http=GuardedHttpTools, lifespan="off", log_level="warning")
        proto = GuardedHttpTools(config=config, server_state=ServerState(), app_state={})
        wire = _Wire()
        proto.connection_made(wire)  # type: ignore[arg-type]
        proto.data_received(request)
        for _ in range(50):  # the app's task, then the loop's next turns
            await asyncio.sleep(0)
        proto.connection_lost(None)
        return wire.writes

    return asyncio.run(run())


def _app(*bodies: bytes, pause: bool = False) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        size = sum(map(len, bodies))
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % size)]})
        if pause:
            await asyncio.sleep(0)  # the loop turns between the head and the body: a stream that waits
        for i, body in enumerate(bodies):
            await send({"type": "http.response.body", "body": body, "more_body": i < len(bodies) - 1})

    return app


GET = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"


def test_an_answer_s_head_and_body_are_written_at_once() -> None:
    writes = _answering(_app(b"hello"), GET)
    assert len(writes) == 1
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b"\r\n\r\nhello")


def test_a_body_sent_in_parts_writes_the_head_with_the_first() -> None:
    writes = _answering(_app(b"one", b"two"), GET)
    assert len(writes) == 2
    assert writes[0].endswith(b"\r\n\r\none") and writes[1] == b"two"


def test_a_head_the_body_does_not_follow_at_once_is_written_at_the_loop_s_next_turn() -> None:
    writes = _answering(_app(b"later", pause=True), GET)
    assert len(writes) == 2
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b"\r\n\r\n")
    assert writes[1] == b"later"


def test_a_head_alone_is_written() -> None:
    """HEAD: uvicorn writes no body at all; the head still goes."""
    writes = _answering(_app(b"hello"), b"HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert len(writes) == 1
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and writes[0].endswith(b"\r\n\r\n")


def test_keep_alive_answers_each_go_in_one_write_in_order() -> None:
    writes = _answering(_app(b"hello"), GET + GET)
    assert len(writes) == 2
    assert all(w.endswith(b"\r\n\r\nhello") for w in writes)


def test_a_connection_that_closes_after_its_answer_writes_it_first() -> None:
    writes = _answering(_app(b"bye"), b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert len(writes) == 1 and writes[0].endswith(b"\r\n\r\nbye")
