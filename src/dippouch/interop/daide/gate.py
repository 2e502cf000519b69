"""Who may talk to a DAIDE server and for how long: the caps on connections, the time a connection may stay
silent, the length of a message, and the wrong passcodes a connection and an address may send.

DAIDE's passcodes are numbers from 1 to 8191 (its numbers stop there, and clients know a passcode as a positive
number), so a passcode cannot be made longer: guessing is limited instead. The server
(:mod:`dippouch.interop.daide.server`) asks the gate before it takes a connection, reads every message through
it, and tells it each wrong passcode.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from dippouch.interop.daide.codec import ErrorCode, ProtocolError, Wire, read_message
from dippouch.interop.daide.seats import Conn

__all__ = ["INITIAL_TIMEOUT", "Gate", "Limits", "Verdict", "keep_alive"]

log = logging.getLogger("dippouch.daide")

INITIAL_TIMEOUT = 30.0
"""Seconds a new connection has to send its initial message (at most ``Limits.idle``)."""


@dataclass(frozen=True)
class Limits:
    """How much one server takes from its clients."""

    connections: int = 64
    """Connections at once: a game has a few powers and some observers."""
    per_address: int = 16
    """Connections at once from one address."""
    idle: float = 60.0
    """Seconds a connection that holds no seat and observes nothing may stay silent, and a message's body may
    take after its header."""
    message: int = 16384
    """Octets of one message from a client: an order for every unit of a large map fits many times over."""
    wrong_per_connection: int = 3
    """Wrong passcodes (IAM) one connection may send before it is closed."""
    wrong_per_address: int = 10
    """Wrong passcodes from one address within ``bar`` seconds before the address is refused for ``bar`` seconds:
    one address needs some 3 days on average to guess a passcode, not 0.2 s."""
    bar: float = 600.0


class Verdict(Enum):
    """What a wrong passcode costs: nothing yet, the connection, or every seatless connection of its address."""

    COUNTED = "counted"
    CONNECTION = "connection"
    ADDRESS = "address"


@dataclass
class _Guesses:
    """The wrong passcodes of one address (when, by the gate's monotonic clock) and until when it is refused."""

    wrong: list[float] = field(default_factory=list)
    barred_until: float = 0.0


class Gate:
    """The limits of one server, and what it remembers to keep them: each address's recent wrong passcodes."""

    def __init__(self, limits: Limits | None = None, timer: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or Limits()
        self.timer = timer
        self.guesses: dict[str, _Guesses] = {}

    def admits(self, address: str, conns: Sequence[Conn]) -> bool:
        """Whether one more connection from ``address`` is taken besides ``conns``: under the caps, and not
        barred for guessing."""
        if self.barred(address):
            log.info("DAIDE connection from %s refused: too many wrong passcodes", address)
            return False
        if len(conns) >= self.limits.connections:
            log.info("DAIDE connection from %s refused: %d connections already", address, len(conns))
            return False
        if sum(1 for c in conns if c.address == address) >= self.limits.per_address:
            log.info("DAIDE connection from %s refused: %d from it already", address, self.limits.per_address)
            return False
        return True

    def barred(self, address: str) -> bool:
        g = self.guesses.get(address)
        return g is not None and g.barred_until > self.timer()

    def wrong_passcode(self, c: Conn) -> Verdict:
        """Count a wrong passcode of ``c``: too many from it end the connection, too many from its address within
        ``Limits.bar`` seconds bar the address that long."""
        now = self.timer()
        c.wrong += 1
        g = self.guesses.setdefault(c.address, _Guesses())
        g.wrong = [t for t in g.wrong if t > now - self.limits.bar] + [now]
        verdict = Verdict.COUNTED
        if len(g.wrong) >= self.limits.wrong_per_address:
            g.barred_until, g.wrong = now + self.limits.bar, []
            log.warning("DAIDE: %s sent too many wrong passcodes; refused for %g s", c.address, self.limits.bar)
            verdict = Verdict.ADDRESS
        elif c.wrong >= self.limits.wrong_per_connection:
            log.info("DAIDE: a connection from %s sent %d wrong passcodes; closed", c.address, c.wrong)
            verdict = Verdict.CONNECTION
        # Addresses whose guesses and bar are over are forgotten: the table holds only what still counts.
        self.guesses = {
            a: x
            for a, x in self.guesses.items()
            if x.barred_until > now or any(t > now - self.limits.bar for t in x.wrong)
        }
        return verdict

    async def first(self, reader: asyncio.StreamReader) -> tuple[Wire, bytes] | None:
        """A new connection's initial message, within :data:`INITIAL_TIMEOUT` (or ``Limits.idle`` if shorter)."""
        return await self._read(reader, min(INITIAL_TIMEOUT, self.limits.idle), "no initial message in time")

    async def next(self, reader: asyncio.StreamReader, c: Conn) -> tuple[Wire, bytes] | None:
        """The client's next message. One that holds no seat and observes nothing has ``Limits.idle`` seconds to
        send it (a connection that only waits is closed); one in the game may wait as long as a phase lasts."""
        waiting = c.power is None and not c.observer
        return await self._read(reader, self.limits.idle if waiting else None, f"silent for {self.limits.idle:g} s")

    async def _read(self, reader: asyncio.StreamReader, wait: float | None, why: str) -> tuple[Wire, bytes] | None:
        message = read_message(reader, limit=self.limits.message, body_timeout=self.limits.idle)
        try:
            return await asyncio.wait_for(message, wait)
        except TimeoutError:
            raise ProtocolError(ErrorCode.TIMEOUT, why) from None


def keep_alive(sock: socket.socket) -> None:
    """TCP keep-alive, probing after a minute of silence: a client in the game may send nothing for a whole phase,
    and the probes find one whose machine went away (its connection is then closed and its seat told CCD)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", 60), ("TCP_KEEPINTVL", 15), ("TCP_KEEPCNT", 4)):
        if hasattr(socket, option):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)
