"""The HTTP server's own defences for ``dippouch serve`` without a proxy in front (uvicorn with httptools).

uvicorn limits neither the size nor the number of a request's headers, nor how long a client may take to
send them: one client could send an 8 MB header, 5,000 headers, or hold thousands of connections open with
half a request each. :class:`GuardedHttpTools` refuses a request head over :data:`MAX_HEAD` bytes (431) or
with more than :data:`MAX_HEADERS` headers (400), and closes a connection whose request head has not arrived
within :data:`HEAD_TIMEOUT` seconds of its first byte (or of the connection); and it writes an answer's head and
body in one write, where uvicorn writes them in two (:class:`_OneWrite`). Slow bodies are the app's to
time out (``middleware.Headers``). Told to stop, :class:`StoppingServer` first ends the app's live streams,
which uvicorn would otherwise wait for. Imported only by ``dippouch serve``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["HEAD_TIMEOUT", "MAX_HEAD", "MAX_HEADERS", "SERVER_LIMITS", "GuardedHttpTools", "StoppingServer"]

MAX_HEAD = 32_768
"""Bytes of a request's line and headers (a browser's are under 8 KB, cookies included)."""
MAX_HEADERS = 100
"""Headers in one request (a browser sends about 20)."""
HEAD_TIMEOUT = 10.0
"""Seconds a client has to send a whole request head."""
TICK = 1.0
"""Seconds between two looks of the server's housekeeping (:meth:`StoppingServer.main_loop`)."""
TICKS = 10
"""uvicorn's ticks (tenths of a second) in :data:`TICK`: its housekeeping does its once-a-second work at every
tenth."""

SERVER_LIMITS: dict[str, Any] = {
    "limit_concurrency": 1000,  # connections and requests at once; beyond that new requests get 503
    "timeout_keep_alive": 5,  # an idle keep-alive connection is closed after this many seconds
    "backlog": 2048,
}

_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
)


class _TooManyHeaders(Exception):
    pass


class _OneWrite:
    """An answer's transport as uvicorn's answer sees it: the answer's first write (its head) is held back until
    its next (the body) and both written at once, one segment and one wake-up of the reader rather than two; or
    at the loop's next turn when no body follows at once (a stream that waits, a HEAD). One an answer: a
    pipelined request's answer begins after the one before it has written everything."""

    __slots__ = ("_flushing", "_head", "_holding", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._holding = True
        self._head: bytes | None = None
        self._flushing: asyncio.Handle | None = None

    def write(self, data: bytes) -> None:
        head = self._head
        if head is not None:
            self._head = None
            self._flushing.cancel()  # type: ignore[union-attr]
            self._transport.writelines((head, data))
        elif self._holding:
            self._holding = False
            self._head = data
            self._flushing = self._loop.call_soon(self._flush)
        else:
            self._transport.write(data)

    def _flush(self) -> None:
        head, self._head = self._head, None
        if head is not None and not self._transport.is_closing():
            self._transport.write(head)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with limits on the request head and the time it may take."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True
        self._head_bytes = 0
        self._head_tail = b""
        self._head_timer: asyncio.TimerHandle | None = None

    def _start_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(HEAD_TIMEOUT, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            self.transport.close()  # nothing is owed to a client that never finished asking

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._start_head_timer()
            self._head_bytes += self._head_part(data)
            if self._head_bytes > MAX_HEAD:
                body = f"request headers over {MAX_HEAD:,} bytes\n".encode()
                self.transport.write(_TOO_LARGE % (len(body), body))
                self.transport.close()
                return
        super().data_received(data)

    def _head_part(self, data: bytes) -> int:
        """How many bytes of ``data`` belong to the request head: up to the blank line that ends it, not the
        body a client (or a proxy) writes in the same segment. The blank line may straddle two segments, so the
        last three bytes of the head so far are looked at with the new ones."""
        seen = self._head_tail + data
        end = seen.find(b"\r\n\r\n")
        if end < 0:
            self._head_tail = seen[-3:]
            return len(data)
        self._head_tail = b""
        return end + 4 - (len(seen) - len(data))

    def on_message_begin(self) -> None:
        self._in_head = True
        super().on_message_begin()

    def on_header(self, name: bytes, value: bytes) -> None:
        super().on_header(name, value)
        if len(self.headers) > MAX_HEADERS:
            raise _TooManyHeaders  # httptools turns it into a parser error: uvicorn answers 400 and closes

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._stop_head_timer()
        super().on_headers_complete()
        if self.cycle is not None:
            self.cycle.transport = _OneWrite(self.transport, self.loop)  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True  # what comes next on this connection is the next request's head
        self._head_bytes = 0
        self._head_tail = b""


class StoppingServer(uvicorn.Server):
    """uvicorn's server, which on SIGTERM or Ctrl+C waits for every open answer before it stops: a player's page
    holds its press stream open for minutes, so a stop (a restart, ``systemctl stop``) waited that long or was
    killed. Told to stop, it sets ``stopping`` first, and each stream ends at its next look (a second)."""

    def __init__(self, config: uvicorn.Config, stopping: threading.Event) -> None:
        super().__init__(config)
        self.stopping = stopping
        self._looking: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.stopping.set()
        super().handle_exit(sig, frame)
        if self._looking is not None:  # the housekeeping looks now rather than at its next second
            loop, look = self._looking
            loop.call_soon_threadsafe(look.set)

    async def main_loop(self) -> None:
        """uvicorn's loop of housekeeping (the ``Date`` header, whether to stop), run once a second rather than
        ten times: it does its work once a second either way, and each of its wakes costs an idle server CPU
        (about 0.2 ms each on the two-CPU machine of benchmarks/README.md: 2 ms a second, 0.08 ms of every request
        at 25 requests a second). Told to stop, it looks at once."""
        look = asyncio.Event()
        self._looking = (asyncio.get_running_loop(), look)
        try:
            counter = 0
            should_exit = await self.on_tick(counter)
            while not should_exit:
                # uvicorn's own loop counts tenths of a second and does the Date header's work at each tenth tick
                counter = (counter + TICKS) % 864_000
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(look.wait(), TICK)
                should_exit = await self.on_tick(counter)
        finally:
            self._looking = None  # a signal after this has no loop to wake
