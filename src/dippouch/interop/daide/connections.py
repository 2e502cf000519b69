"""The server's side of DAIDE's wire, apart from the game: connections taken through the gate
(:mod:`dippouch.interop.daide.gate`), messages read and written, a connection ended. What a diplomacy message
means is the game server's (:class:`dippouch.interop.daide.server.DaideServer`, which builds on this)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from dippouch.interop.daide.codec import (
    MAX_PAYLOAD,
    ErrorCode,
    ProtocolError,
    Raw,
    Wire,
    decode,
    encode,
    frame,
    to_text,
    tokens_of,
)
from dippouch.interop.daide.gate import Gate, Verdict, keep_alive
from dippouch.interop.daide.replies import check_initial
from dippouch.interop.daide.seats import Conn
from dippouch.interop.daide.tokens import Vocabulary

__all__ = ["Connections"]

log = logging.getLogger("dippouch.daide")


class Connections:
    """Every connection of one server, each served by :meth:`_handle` until it ends, whatever it sends: a
    client's fault ends its connection with DAIDE's error message, never an exception out of the handler."""

    def __init__(self, vocab: Vocabulary, gate: Gate) -> None:
        self.vocab = vocab
        self.gate = gate
        self.conns: list[Conn] = []

    async def _diplomacy(self, c: Conn, tokens: list[int]) -> None:
        """Answer one diplomacy message (the game server's)."""
        raise NotImplementedError

    def _left(self, c: Conn) -> None:
        """``c`` has ended (the game server tells the others its seat is empty)."""

    def _m(self, *parts: Any) -> list[int]:
        return tokens_of(self.vocab, *parts)

    def _yes(self, c: Conn, tokens: list[int]) -> None:
        self._send(c, self._m("YES", [Raw.of(tokens)]))

    def _rej(self, c: Conn, tokens: list[int]) -> None:
        self._send(c, self._m("REJ", [Raw.of(tokens)]))

    def _tell(self, c: Conn, tokens: list[int], told: list[Any] | None) -> None:
        """Each reply of ``told`` to ``c`` (a request answered in several messages); REJ of the request when
        there is nothing to tell."""
        if told is None:
            self._rej(c, tokens)
            return
        for m in told:
            self._send(c, self._m(*m))

    def _send(self, c: Conn, tokens: list[int]) -> None:
        """Write a diplomacy message; one too long for DAIDE's header (an echo of a long message, a map too big
        to describe) ends the connection with error message 0x09 instead, never an exception in the caller."""
        if c.writer.is_closing():
            return
        payload = encode(tokens)
        if len(payload) > MAX_PAYLOAD:
            log.info("an answer of %d octets does not fit in a DAIDE message: the connection ends", len(payload))
            c.writer.write(frame(Wire.EM, int(ErrorCode.LENGTH).to_bytes(2, "big")))
            c.writer.close()
            return
        log.debug("%s <- %s", c.power or c.name or "client", to_text(self.vocab, tokens))
        c.writer.write(frame(Wire.DM, payload))

    def _wrong_passcode(self, c: Conn) -> None:
        """A wrong passcode from ``c`` (:meth:`Gate.wrong_passcode`): too many end it, or every connection of its
        address that holds no seat."""
        verdict = self.gate.wrong_passcode(c)
        if verdict is Verdict.ADDRESS:
            for other in [o for o in self.conns if o.address == c.address and o.power is None]:
                self._drop(other)
        elif verdict is Verdict.CONNECTION:
            self._drop(c)

    def _drop(self, c: Conn) -> None:
        if c in self.conns:
            self.conns.remove(c)
            self._left(c)
        if not c.writer.is_closing():
            c.writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if not self.gate.admits(address, self.conns):
            writer.close()
            return
        sock = writer.get_extra_info("socket")
        if sock is not None:
            keep_alive(sock)
        c = Conn(writer, address=address)
        self.conns.append(c)
        try:
            first = await self.gate.first(reader)
            if first is None:
                return
            check_initial(*first)
            writer.write(frame(Wire.RM, self.vocab.rm()))
            while not writer.is_closing():
                msg = await self.gate.next(reader, c)
                if msg is None or msg[0] in (Wire.FM, Wire.EM):
                    break
                kind, payload = msg
                if kind is Wire.IM:
                    raise ProtocolError(ErrorCode.DUPLICATE_IM, "a second initial message")
                if kind is Wire.RM:
                    raise ProtocolError(ErrorCode.CLIENT_RM, "a representation message from a client")
                await self._diplomacy(c, decode(payload))
                await writer.drain()
        except ProtocolError as e:
            log.info("DAIDE client dropped: %s", e)
            if not writer.is_closing():
                writer.write(frame(Wire.EM, int(e.code).to_bytes(2, "big")))
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:  # one client's trouble ends its connection, never the server's other connections
            log.exception("DAIDE connection from %s failed", address)
        finally:
            self._drop(c)
