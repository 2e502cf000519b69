"""The server's housekeeping (``StoppingServer.main_loop``): once a second rather than ten times, and a stop looked
at as soon as it is asked for, not at the next second."""

from __future__ import annotations

import asyncio
import signal
import threading
import time

import pytest
import uvicorn

from dippouch.web.http import server as http_server
from dippouch.web.http.server import StoppingServer


async def _app(scope: dict[str, object], receive: object, send: object) -> None:
    raise AssertionError("no request is sent")


def _server() -> StoppingServer:
    config = uvicorn.Config(_app, host="127.0.0.1", port=0, lifespan="off", log_level="warning")  # any free port
    return StoppingServer(config, threading.Event())


def test_the_housekeeping_looks_once_a_tick_and_at_a_stop_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A tick longer than the test: every look but the first is one a stop asked for.
    monkeypatch.setattr(http_server, "TICK", 60.0)
    server = _server()
    looks: list[int] = []
    ticked = server.on_tick

    async def counted(counter: int) -> bool:
        looks.append(counter)
        return await ticked(counter)

    monkeypatch.setattr(server, "on_tick", counted)
    # Served from a thread of its own, as a signal's handler is called from the main thread (uvicorn installs
    # its handlers, and raises the signal again after it stops, only when it runs in the main thread).
    serving = threading.Thread(target=asyncio.run, args=(server.serve(),), daemon=True)
    serving.start()
    started = time.monotonic() + 30
    while not server.started and time.monotonic() < started:
        time.sleep(0.01)
    assert server.started
    time.sleep(0.5)  # uvicorn's own loop would have looked five times by now
    assert looks == [0]
    server.handle_exit(signal.SIGTERM, None)
    serving.join(10)  # without the wake it would wait out the tick
    assert not serving.is_alive()
    assert server.stopping.is_set()
    assert looks == [0, http_server.TICKS]  # and that look did the once-a-second work (the Date header's)
    server.handle_exit(signal.SIGINT, None)  # a second signal once it has stopped (its loop closed) does no harm
