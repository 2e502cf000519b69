"""``/healthz`` and ``/metrics`` for a worker (``dippouch worker --metrics-port P``), served from a thread.

A worker has no web app of its own, so it serves these two addresses with the standard library's WSGI
server and prometheus-client's exposition; the web app serves the same two itself (``dippouch serve``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import make_wsgi_app

__all__ = ["serve_health_and_metrics"]

Health = Callable[[], tuple[bool, dict[str, Any]]]


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # scrapes every few seconds: not worth a line
        pass


def _app(health: Health) -> Callable[..., Iterable[bytes]]:
    metrics_app = make_wsgi_app()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            ok, detail = health()
            body = json.dumps(detail).encode()
            status = "200 OK" if ok else "503 Service Unavailable"
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path == "/metrics":
            result: Iterable[bytes] = metrics_app(environ, start_response)
            return result
        body = b"not found: this worker serves /healthz and /metrics\n"
        start_response("404 Not Found", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    return app


def serve_health_and_metrics(host: str, port: int, health: Health) -> WSGIServer:
    """Start serving in a daemon thread; the server (``.server_port`` is the port, ``.shutdown()`` stops it)."""
    server = make_server(host, port, _app(health), server_class=_ThreadingServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="dippouch-metrics", daemon=True).start()
    return server
