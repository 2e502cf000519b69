"""Listening sockets the doors open themselves (the web server, the DAIDE server), where asyncio's own would not do.

One function, for ``::``: asyncio makes an IPv6 socket IPv6-only, so a server told to listen on ``::`` refused every
IPv4 client (a browser at 127.0.0.1, a proxy or a bot on the IPv4 loopback) while it said it listened on every
interface; most servers take ``::`` for both."""

from __future__ import annotations

import socket

__all__ = ["every_interface"]


def every_interface(host: str, port: int) -> socket.socket | None:
    """For ``host`` ``::``, a socket bound to ``port`` that takes IPv4 connections too, not yet listening (the server
    listens on it, with its own backlog, when it starts); None for any other address, which the server binds itself.
    Raises :class:`OSError` when the port cannot be had."""
    if host != "::" or not socket.has_dualstack_ipv6():
        return None
    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(("::", port))
    except OSError:
        sock.close()
        raise
    return sock
