"""A DAIDE client: one of our bots takes a seat on a DAIDE server (ours, or the hobby's).

It speaks only DAIDE: IM, then NME, accepts the map when it knows it (a variant of ours by the MAP name,
checked against the server's MDF: a map that differs is refused with ``REJ (MAP ...)``), and at each NOW
asks the bot for its orders in the position NOW and the last SCO describe, and sends them in one SUB for
that turn (unused builds waived, as DAIDE wants). It leaves when the server says OFF or closes.

``draw_from``: from that year on the client sends DRW each turn (a quick end for tests and ladders).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.orders import Build, Order, Waive
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.interop.daide.board import DaideBoard, Unfit
from dippouch.interop.daide.codec import (
    Leaf,
    Node,
    Quoted,
    Raw,
    Tree,
    Wire,
    decode,
    encode,
    frame,
    initial_message,
    parse,
    read_message,
    to_text,
    tokens_of,
)
from dippouch.interop.daide.tokens import Vocabulary

__all__ = ["ClientReport", "DaideClient", "canonical_mdf"]

log = logging.getLogger("dippouch.daide.client")


@dataclass
class ClientReport:
    """What happened to the client: its power, turns ordered, orders the server refused, the ending."""

    power: str | None = None
    turns: int = 0
    refused: list[str] = field(default_factory=list)
    ending: str | None = None
    summary: str | None = None
    messages: list[str] = field(default_factory=list)
    """Every message received, as text (kept when ``keep`` is set)."""


def canonical_mdf(vocab: Vocabulary, items: Sequence[Tree]) -> Any:
    """An MDF's content in a form that ignores the order of lists: equal for the same map."""

    def words(t: Tree) -> Any:
        if isinstance(t, Leaf):
            return vocab.name(t.token) or str(t.token)
        return tuple(words(x) for x in t.items)

    def as_set(t: Tree) -> frozenset[Any]:
        return frozenset(words(x) for x in t.items) if isinstance(t, Node) else frozenset()

    powers, provinces, adjacencies = items
    assert isinstance(provinces, Node) and isinstance(adjacencies, Node)
    groups = provinces.items[0].items if isinstance(provinces.items[0], Node) else ()
    centres = frozenset(
        (words(g.items[0]), frozenset(words(x) for x in g.items[1:])) for g in groups if isinstance(g, Node)
    )
    others = as_set(provinces.items[1])

    def entry(e: Tree) -> Any:
        return (words(e.items[0]), frozenset(words(x) for x in e.items[1:])) if isinstance(e, Node) else words(e)

    adj = frozenset(
        (words(p.items[0]), frozenset(entry(e) for e in p.items[1:])) for p in adjacencies.items if isinstance(p, Node)
    )
    return as_set(powers), centres, others, adj


class DaideClient:
    """Plays one power with ``bot`` on the DAIDE server at ``host``:``port``."""

    def __init__(
        self,
        bot: Any,
        *,
        name: str = "dippouch",
        version: str = "1",
        variants: Callable[[str], Variant] | None = None,
        seed: int = 1,
        draw_from: int | None = None,
        keep: bool = False,
    ) -> None:
        self.bot = bot
        self.name = name
        self.version = version
        self.variants = variants
        self.seed = seed
        self.draw_from = draw_from
        self.keep = keep
        self.report = ClientReport()
        self.vocab = Vocabulary.standard_map()
        self.board: DaideBoard | None = None
        self.centres: dict[int, str] = {}
        self.writer: asyncio.StreamWriter | None = None

    def send(self, *parts: Any) -> None:
        assert self.writer is not None
        tokens = tokens_of(self.vocab, *parts)
        log.debug("%s -> %s", self.report.power or self.name, to_text(self.vocab, tokens))
        self.writer.write(frame(Wire.DM, encode(tokens)))

    async def play(self, host: str, port: int) -> ClientReport:
        reader, writer = await asyncio.open_connection(host, port)
        self.writer = writer
        try:
            writer.write(initial_message())
            msg = await read_message(reader)
            if msg is None or msg[0] is not Wire.RM:
                raise ConnectionError("the server did not answer with a representation message")
            self.vocab = Vocabulary.from_rm(msg[1])
            self.send("NME", [Quoted(self.name)], [Quoted(self.version)])
            await writer.drain()
            while True:
                msg = await read_message(reader)
                if msg is None or msg[0] in (Wire.FM, Wire.EM):
                    break
                if msg[0] is not Wire.DM:
                    continue
                if not self._on(decode(msg[1])):
                    break
                await writer.drain()
        finally:
            if not writer.is_closing():
                writer.write(frame(Wire.FM))
                writer.close()
        return self.report

    def _on(self, tokens: list[int]) -> bool:
        """Answer one message; False when the client should leave."""
        text = to_text(self.vocab, tokens)
        log.debug("%s <- %s", self.report.power or self.name, text)
        if self.keep:
            self.report.messages.append(text)
        tree = parse(tokens)
        head = tree[0]
        word = self.vocab.name(head.token) if isinstance(head, Leaf) else None
        args = tree[1:]
        if word == "MAP":
            self._map(tokens, args)
        elif word == "MDF":
            self._mdf(args)
        elif word == "HLO":
            power = args[0].items[0] if isinstance(args[0], Node) else None
            if isinstance(power, Leaf) and self.board is not None:
                self.report.power = self.board.power_of_token.get(power.token)
        elif word == "SCO" and self.board is not None:
            self.centres = self.board.centres_from(args)
        elif word == "NOW" and self.board is not None and self.report.power is not None:
            self._now(args)
        elif word == "THX":
            note = args[1].items[0] if len(args) > 1 and isinstance(args[1], Node) and args[1].items else None
            if isinstance(note, Leaf) and self.vocab.name(note.token) != "MBV":
                self.report.refused.append(text)
        elif word in ("SLO", "DRW"):
            self.report.ending = text
        elif word == "SMR":
            self.report.summary = text
        elif word == "OFF":
            return False
        elif word == "REJ" and args and isinstance(args[0], Node) and args[0].items:
            first = args[0].items[0]
            if isinstance(first, Leaf) and self.vocab.name(first.token) == "NME":
                log.info("no seat for %s: %s", self.name, text)
                return False
        return True

    def _map(self, tokens: list[int], args: Sequence[Tree]) -> None:
        name = ""
        if args and isinstance(args[0], Node):
            name = bytes(x.token & 0xFF for x in args[0].items if isinstance(x, Leaf)).decode("utf-8", "replace")
        self._map_tokens = tokens
        try:
            variant = self._variant(name)
            self.board = DaideBoard(variant)
        except Exception as e:
            log.info("map %r refused: %s", name, e)
            self.send("REJ", [Raw.of(tokens)])
            return
        if self.board.vocab.rm() != self.vocab.rm():
            # Tokens that differ from the server's own: this is another map under a name of ours.
            self.board = None
            self.send("REJ", [Raw.of(tokens)])
            return
        self.send("MDF")

    def _variant(self, name: str) -> Variant:
        if self.variants is not None:
            return self.variants(name)
        from dippouch.catalog import load_variant

        return load_variant(name)

    def _mdf(self, args: Sequence[Tree]) -> None:
        if self.board is None:
            return
        mine = parse(tokens_of(self.vocab, *self.board.mdf()))[1:]
        if canonical_mdf(self.vocab, mine) != canonical_mdf(self.vocab, args):
            log.info("the server's map differs from ours: refused")
            self.board = None
            self.send("REJ", [Raw.of(self._map_tokens)])
            return
        self.send("YES", [Raw.of(self._map_tokens)])

    def _now(self, args: Sequence[Tree]) -> None:
        assert self.board is not None and self.report.power is not None
        board, power = self.board, self.report.power
        position = board.position_from(list(args), self.centres)
        v = board.variant
        kind = v.calendar.kind(position.phase)
        if self.draw_from is not None and position.phase.year >= self.draw_from:
            self.send("DRW")
        if not self._must_act(position, power, kind):
            return
        rng = random.Random(f"{self.seed}|{position.phase.year}|{position.phase.step}|{power}")
        orders: list[Order] = list(self.bot.orders(v, position, power, rng))
        if kind is PhaseKind.ADJUSTMENTS:
            from dippouch.game import adjustment_delta

            delta = adjustment_delta(v, position, power)
            used = sum(1 for o in orders if isinstance(o, (Build, Waive)))
            orders += [Waive() for _ in range(max(0, delta - used))]
        parts: list[Any] = []
        for o in orders:
            try:
                parts.append(board.order(o, power, position, kind, orders))
            except Unfit:
                continue
        if parts:
            self.report.turns += 1
            self.send("SUB", board.turn(position.phase), *parts)

    @staticmethod
    def _must_act(position: Position, power: str, kind: PhaseKind) -> bool:
        if kind is PhaseKind.MOVEMENT:
            return bool(position.units_of(power))
        if kind is PhaseKind.RETREATS:
            return any(d.unit.power == power for d in position.dislodged.values())
        return True
