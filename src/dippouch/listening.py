"""Listening sockets the doors open themselves (the web server, the DAIDE server), where asyncio's own would not do.

For ``::``: asyncio makes an IPv6 socket IPv6-only, so a server told to listen on ``::`` refused every IPv4 client (a
browser at 127.0.0.1, a proxy or a bot on the IPv4 loopback) while it said it listened on every interface; most
servers take ``::`` for both. And for the web server, listening from the moment it says its address: it takes
seconds to start after that, and a browser opened at once was refused."""

from __future__ import annotations

import socket

__all__ = ["every_interface", "listening"]


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


def listening(host: str, port: int, backlog: int) -> list[socket.socket]:
    """Sockets listening on ``host`` and ``port`` now, as the server will serve them: one that takes IPv4 too for
    ``::``, else one for each address the name has (as asyncio would make them). Connections made before the server
    accepts wait in the ``backlog``. Raises :class:`OSError` when the port cannot be had."""
    dual = every_interface(host, port)
    if dual is not None:
        dual.listen(backlog)
        return [dual]
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    made: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):
            sock = socket.socket(family, kind, proto)
            made.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # its own address only, as asyncio binds a name's addresses
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(backlog)
    except OSError:
        for sock in made:
            sock.close()
        raise
    return made
