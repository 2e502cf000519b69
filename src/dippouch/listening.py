"""Listening sockets the doors open themselves (the web server, the DAIDE server), where asyncio's own would not do.

One function, for ``::``: asyncio makes an IPv6 socket IPv6-only, so a server told to listen on ``::`` refused every
IPv4 client (a browser at 127.0.0.1, a proxy or a bot on the IPv4 loopback) while it said it listened on every
interface; most servers take ``::`` for both."""

from __future__ import annotations

import socket

__all__ = ["every_interface"]


def every_interface(host: str, port: int, backlog: int) -> list[socket.socket] | None:
    """For ``host`` ``::``, one socket on ``port`` that takes IPv4 connections too; None for any other address (the
    server binds it as it would). Raises :class:`OSError` when the port cannot be had."""
    if host != "::" or not socket.has_dualstack_ipv6():
        return None
    return [socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=backlog)]
