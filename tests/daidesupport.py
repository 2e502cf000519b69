"""A bare DAIDE connection for the tests: messages written in DAIDE's text form, answers read back as text."""

from __future__ import annotations

import asyncio
import re
import struct

from dippouch.interop.daide.codec import Wire, decode, encode, frame, from_text, initial_message, to_text
from dippouch.interop.daide.tokens import Vocabulary

VOCAB = Vocabulary.standard_map()


class Raw:
    """A bare connection: messages written in the text form, answers read back as text."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int, *, hello: bool = True, source: str | None = None) -> Raw:
        """A connection to the server on 127.0.0.1, from the loopback address ``source`` when given (a client at
        another address, for the limits counted by address)."""
        r, w = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0) if source else None)
        c = cls(r, w)
        if hello:
            w.write(initial_message())
            kind, _ = await c.read()
            assert kind == Wire.RM
        return c

    def send(self, text: str) -> None:
        self.writer.write(frame(Wire.DM, encode(from_text(VOCAB, text))))

    async def read(self) -> tuple[int, bytes]:
        head = await asyncio.wait_for(self.reader.readexactly(4), 10)
        kind, _pad, n = struct.unpack(">BBH", head)
        return kind, await self.reader.readexactly(n) if n else b""

    async def closed(self, within: float = 10) -> bool:
        """Whether the server ends the connection within ``within`` seconds (what it wrote before is read past)."""
        try:
            await asyncio.wait_for(self.reader.read(), within)
        except TimeoutError:
            return False
        except ConnectionError:
            return True
        return True

    async def text(self) -> str:
        kind, payload = await self.read()
        assert kind == Wire.DM, (kind, payload)
        return to_text(VOCAB, decode(payload))

    async def until(self, pattern: str) -> str:
        while True:
            t = await self.text()
            if re.match(pattern, t):
                return t

    async def join(self, name: str = "tester") -> tuple[str, int]:
        self.send(f"NME ('{name}') ('1')")
        assert await self.text() == f"YES ( NME ( '{name}' ) ( '1' ) )"
        self.send(f"YES ({await self.until('MAP')})")
        hlo = await self.until("HLO")
        m = re.match(r"HLO \( (\w+) \) \( (\d+) \)", hlo)
        assert m is not None
        await self.until("NOW")
        await self.until("TME")  # the deadline follows the position
        return m.group(1), int(m.group(2))
