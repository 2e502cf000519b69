"""DAIDE on the wire: the 4-octet header of every message, token sequences, brackets and their text form.

Every message starts with its type (IM 0, RM 1, DM 2, FM 3, EM 4), a pad octet and the length of what
follows (16 bits, big-endian). A diplomacy message (DM) carries tokens, two octets each. Inside, ``(`` and
``)`` bracket sub-expressions; :func:`parse` turns a token list into a tree whose leaves keep their index in
the message, so a syntax error can be answered with ``HUH`` and ``ERR`` put just before the token at fault.

The text form (``NOW ( SPR 1901 ) ( FRA AMY PAR ) ...``, strings between single quotes, integers as
digits) is for people, logs and tests; the wire carries only tokens.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Union

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.interop.daide.tokens import (
    BRA,
    KET,
    MAX_INT,
    MIN_INT,
    Vocabulary,
    integer,
    integer_value,
    is_integer,
    is_text,
    text_tokens,
)

I18N_DOMAIN = "rules"
"""The catalogue of the codec's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAGIC",
    "VERSION",
    "BracketError",
    "ErrorCode",
    "Leaf",
    "Node",
    "ProtocolError",
    "Tree",
    "Wire",
    "decode",
    "encode",
    "frame",
    "from_text",
    "initial_message",
    "parse",
    "read_message",
    "to_text",
    "tokens_of",
]

VERSION = 1
MAGIC = 0xDA10
MAX_PAYLOAD = 0xFFFF


class Wire(IntEnum):
    """The message types of the header's first octet."""

    IM = 0
    RM = 1
    DM = 2
    FM = 3
    EM = 4


class ErrorCode(IntEnum):
    """The codes an error message (EM) carries."""

    TIMEOUT = 0x01
    NOT_IM = 0x02
    ENDIAN = 0x03
    MAGIC = 0x04
    VERSION = 0x05
    DUPLICATE_IM = 0x06
    SERVER_IM = 0x07
    MESSAGE_TYPE = 0x08
    LENGTH = 0x09
    EARLY_DM = 0x0A
    NOT_RM = 0x0B
    UNEXPECTED_RM = 0x0C
    CLIENT_RM = 0x0D
    ILLEGAL_TOKEN = 0x0E


class ProtocolError(Exception):
    """A broken message structure: the connection ends with an EM of ``code``."""

    def __init__(self, code: ErrorCode, why: str) -> None:
        super().__init__(why)
        self.code = code


class BracketError(DippouchError, ValueError):
    """Brackets that do not match: the server answers PRN (the message a value, as every refusal's)."""


def frame(kind: Wire, payload: bytes = b"") -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"a DAIDE message holds at most {MAX_PAYLOAD} octets, not {len(payload)}")
    return struct.pack(">BBH", int(kind), 0, len(payload)) + payload


def initial_message() -> bytes:
    return frame(Wire.IM, struct.pack(">HH", VERSION, MAGIC))


def encode(tokens: Sequence[int]) -> bytes:
    return struct.pack(f">{len(tokens)}H", *tokens)


def decode(payload: bytes) -> list[int]:
    if len(payload) % 2:
        raise ProtocolError(ErrorCode.LENGTH, "a diplomacy message has an odd number of octets")
    return list(struct.unpack(f">{len(payload) // 2}H", payload))


async def read_message(
    reader: asyncio.StreamReader, *, limit: int = MAX_PAYLOAD, body_timeout: float | None = None
) -> tuple[Wire, bytes] | None:
    """The next message, or None at the end of the stream (a header cut short counts as the end). A message
    longer than ``limit`` octets is refused from its header, before its body is read; once a header has come,
    its body must follow within ``body_timeout`` seconds (a client that stops half-way holds nothing for long)."""
    try:
        head = await reader.readexactly(4)
    except asyncio.IncompleteReadError:
        return None
    kind, _pad, length = struct.unpack(">BBH", head)
    if length > limit:
        raise ProtocolError(ErrorCode.LENGTH, f"a message of {length} octets; at most {limit} are taken")
    try:
        payload = await asyncio.wait_for(reader.readexactly(length), body_timeout) if length else b""
    except asyncio.IncompleteReadError:
        raise ProtocolError(ErrorCode.LENGTH, "the message is shorter than its header says") from None
    except TimeoutError:
        raise ProtocolError(ErrorCode.TIMEOUT, f"the message's body did not come within {body_timeout} s") from None
    try:
        return Wire(kind), payload
    except ValueError:
        raise ProtocolError(ErrorCode.MESSAGE_TYPE, f"unknown message type {kind}") from None


# --- trees ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Leaf:
    token: int
    at: int
    """Index of the token in the message."""


@dataclass(frozen=True, slots=True)
class Node:
    """A bracketed expression: ``at`` is the index of its ``(``, ``end`` of its ``)``."""

    items: tuple[Tree, ...]
    at: int
    end: int


Tree = Union[Leaf, Node]  # noqa: UP007  (a runtime alias, also read by mypy)


def parse(tokens: Sequence[int]) -> list[Tree]:
    """The message as a list of leaves and bracketed nodes; :class:`BracketError` when brackets do not match."""
    stack: list[tuple[int, list[Tree]]] = [(-1, [])]
    for i, t in enumerate(tokens):
        if t == BRA:
            stack.append((i, []))
        elif t == KET:
            if len(stack) == 1:
                raise BracketError(msg("a closing bracket without an opening one at token %(at)d", at=i))
            start, items = stack.pop()
            stack[-1][1].append(Node(tuple(items), start, i))
        else:
            stack[-1][1].append(Leaf(t, i))
    if len(stack) != 1:
        raise BracketError(msg("an opening bracket is never closed"))
    return stack[0][1]


# --- building messages ------------------------------------------------------------------------------------


def tokens_of(vocab: Vocabulary, *parts: object) -> list[int]:
    """Tokens from a handy description: a ``str`` is a token's three letters, an ``int`` a number, a list or
    tuple a bracketed expression, a :class:`Quoted` text; raw tokens pass as :class:`Raw`."""
    out: list[int] = []
    for p in parts:
        if isinstance(p, Raw):
            out.extend(p.tokens)
        elif isinstance(p, Quoted):
            out.extend(text_tokens(p.text))
        elif isinstance(p, str):
            out.append(vocab[p])
        elif isinstance(p, bool):
            raise TypeError("a DAIDE message holds no booleans")
        elif isinstance(p, int):
            out.append(integer(p))
        elif isinstance(p, (list, tuple)):
            out.append(BRA)
            out.extend(tokens_of(vocab, *p))
            out.append(KET)
        else:
            raise TypeError(f"cannot make DAIDE tokens of {p!r}")
    return out


@dataclass(frozen=True, slots=True)
class Quoted:
    """Text in a message (a name, a version)."""

    text: str


@dataclass(frozen=True, slots=True)
class Raw:
    """Tokens already made, put in a message as they are."""

    tokens: tuple[int, ...]

    @classmethod
    def of(cls, tokens: Iterable[int]) -> Raw:
        return cls(tuple(tokens))


# --- text form --------------------------------------------------------------------------------------------


def to_text(vocab: Vocabulary, tokens: Sequence[int]) -> str:
    """``NOW ( SPR 1901 ) ( FRA AMY PAR )``: tokens by their letters, numbers as digits, text in quotes, and
    a token this vocabulary does not know as ``0x5801``."""
    words: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if is_text(t):
            j = i
            while j < len(tokens) and is_text(tokens[j]):
                j += 1
            raw = bytes(x & 0xFF for x in tokens[i:j]).decode("utf-8", errors="replace")
            words.append("'" + raw.replace("'", "''") + "'")
            i = j
            continue
        name = vocab.name(t)
        if name is not None:
            words.append(name)
        elif is_integer(t):
            words.append(str(integer_value(t)))
        else:
            words.append(f"0x{t:04X}")
        i += 1
    return " ".join(words)


def from_text(vocab: Vocabulary, text: str) -> list[int]:
    """The tokens of a message written as :func:`to_text` writes it (brackets need no spaces around them)."""
    out: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append(BRA if c == "(" else KET)
            i += 1
        elif c == "'":
            j, chars = i + 1, []
            while True:
                if j >= n:
                    raise ValueError(f"text not closed: {text[i:]!r}")
                if text[j] == "'":
                    if j + 1 < n and text[j + 1] == "'":
                        chars.append("'")
                        j += 2
                        continue
                    break
                chars.append(text[j])
                j += 1
            out.extend(text_tokens("".join(chars)))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()'":
                j += 1
            word = text[i:j]
            i = j
            if word.lower().startswith("0x"):
                out.append(int(word, 16))
            elif word.lstrip("-").isdigit():
                value = int(word)
                if not MIN_INT <= value <= MAX_INT:
                    raise ValueError(f"{word}: DAIDE numbers run from {MIN_INT} to {MAX_INT}")
                out.append(integer(value))
            elif word.upper() in vocab.by_name:
                out.append(vocab[word])
            else:
                raise ValueError(f"no DAIDE token {word!r}")
    return out
