"""A DAIDE server for one stored game: programs that speak DAIDE (DumbBot, Albert, our own client) take seats.

The game stays dippouch's: orders go in through the game's submission use case
(:func:`dippouch.play.orders.send_orders`, source ``bot``), each SUB a new version holding the power's
orders so far, marked ready once the power's orders are complete unless it said ``NOT (GOF)``; draw votes
through :func:`dippouch.play.votes.vote`. The use cases sit above this room, so the server is handed them
(:class:`UseCases`; :func:`dippouch.play.daide.daide_server` builds a server with them). The server reads the game only through the store's public
readers (status, history, phase records), and it notices a phase processed by anyone (its own players
being ready, the deadline worker, a person on the web) by looking every ``poll`` seconds, then sends each
DAIDE client the results (ORD), the ownership (SCO) and the new position (NOW). In a fog-of-war game still
running (:attr:`dippouch.game.GameSettings.fog`) each of these, and the history (HST), tells a seated client only
what its power sees (:mod:`dippouch.core.sight`; results as :func:`dippouch.render.fog.fog_record` keeps them for
the web) and its orders are fitted on that; an observer sees no unit until the game ends.

Seats: a DAIDE client that says NME gets the first power of ``seats`` (by default every power) whose seat is,
when it asks, empty or a program's (a bot's, an earlier DAIDE client's), empty ones first; it is recorded in the
game as player ``daide:NAME`` through the seating use case (:func:`dippouch.play.seats.seat_program`), which
decides in the transaction that seats it, so a person seated since the server started keeps the seat. A seat
that changes hands by another door (a coordinator seats a person) is the client's no more: the server notices
it within ``poll`` seconds (and before any orders are sent), tells the client OFF and forgets its passcode.
The passcode (in HLO, secret-random over DAIDE's positive numbers, 1 to 8191) lets a client come back with IAM while
the server runs; wrong passcodes are limited per connection and per address.

Connections (:mod:`dippouch.interop.daide.gate`, :class:`Limits`): at most ``connections`` at once and
``per_address`` from one address (one more is closed at once); a connection that holds no seat and observes
nothing is closed when it stays silent for ``idle`` seconds (error message 0x01), and a message's body must
follow its header as quickly; a message longer than ``message`` octets is refused from its header (error
message 0x09), as is an answer that would not fit in a message. A client in the game may stay silent as long as
a phase lasts: TCP keep-alive finds a peer that is gone.

Refusals follow the protocol: a message with brackets that do not match is answered ``PRN (message)``,
bad syntax ``HUH (message with ERR before the first token at fault)``, a request refused ``REJ (request)``,
orders for another turn ``REJ (SUB (turn) ...)``, an order the game refuses ``THX (order) (note)``; a token
of the private-use categories ends the connection with error message 0x0E.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dippouch.core.position import Position
from dippouch.core.sight import sight, veil
from dippouch.interop.daide import DAIDE_PLAYER
from dippouch.interop.daide.board import DaideBoard, Syntax
from dippouch.interop.daide.codec import (
    BracketError,
    ErrorCode,
    Leaf,
    Node,
    ProtocolError,
    Quoted,
    Raw,
    Tree,
    parse,
    to_text,
)
from dippouch.interop.daide.connections import Connections
from dippouch.interop.daide.gate import Gate, Limits
from dippouch.interop.daide.history import (
    first_parts,
    last_orders_parts,
    seen_positions,
    turn_parts,
    turns_after,
)
from dippouch.interop.daide.replies import (
    Sighted,
    ending_parts,
    hlo_parts,
    no_arguments,
    now_parts,
    number_of,
    read_turn,
    results_parts,
    sco_parts,
    seconds,
    split_turn,
    text_of,
)
from dippouch.interop.daide.seats import (
    Conn,
    DaideSeat,
    fit_orders,
    missing,
    offered,
    orders_text,
    refused,
    take_back,
    withdraw,
)
from dippouch.interop.daide.tokens import MAX_INT, is_reserved
from dippouch.listening import every_interface
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store import variant_copy as variant_copy
from dippouch.store.bots import BOT_PREFIX
from dippouch.store.repository import GameStore

__all__ = ["DAIDE_PLAYER", "DaideServer", "Limits", "UseCases"]

log = logging.getLogger("dippouch.daide")

PROGRAMS = (BOT_PREFIX, DAIDE_PLAYER)
"""Seats a client is offered besides empty ones: a program's (the use case decides, under the game's lock)."""


@dataclass
class Now:
    """The game as last read: its open phase and position, or its ending."""

    phase_id: int | None
    phase: str | None
    position: Position
    deadline: datetime | None
    ended: Any = None
    acting: frozenset[str] = frozenset()
    """The powers that must act in the open phase (1897's powers own nothing before their first builds)."""
    holders: dict[str, str | None] = field(default_factory=dict)
    """Who plays each power, as the game says (a player's name, None for an empty seat)."""
    fog: bool = False
    """A fog-of-war game (:attr:`dippouch.game.GameSettings.fog`): each client is told only what its power sees."""


def _draw_powers(board: DaideBoard, args: Sequence[Tree], partial: bool) -> list[str] | None:
    """``DRW (FRA ITA)``'s powers: a draw of some, the table's proposal (:func:`dippouch.play.votes.draw_of`);
    None for a plain ``DRW`` (every survivor's standing vote). ``partial``: the server takes such draws."""
    if not args or not partial:
        no_arguments(args)
        return None
    if len(args) != 1 or not isinstance(args[0], Node) or not args[0].items:
        raise Syntax(args[0].at)
    return [board.read_power(t) for t in args[0].items]


@dataclass(frozen=True)
class UseCases:
    """What a DAIDE player does in the game, done as every other door does it: ``send_orders`` as
    :func:`dippouch.play.orders.send_orders`, ``vote`` as :func:`dippouch.play.votes.vote`, ``take_seat`` as
    :func:`dippouch.play.seats.seat_program` (the player's name as the game recorded it; refused with an exception
    when the seat is a person's)."""

    send_orders: Callable[..., Any]
    vote: Callable[..., Any]
    take_seat: Callable[..., Any]
    draw_of: Callable[..., Any] | None = None
    """A yes to a draw of some powers (``DRW (FRA ITA)``) as :func:`dippouch.play.votes.draw_of`; None: the
    server answers such a draw REJ."""


class DaideServer(Connections):
    """Serves one stored game over DAIDE. ``await start(host, port)``, then ``await finished.wait()``."""

    def __init__(
        self,
        store: GameStore,
        game: str,
        *,
        use: UseCases,
        seats: Sequence[str] | None = None,
        poll: float = 1.0,
        clock: Callable[[], datetime] | None = None,
        rng: random.Random | None = None,
        limits: Limits | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.game = game
        self.use = use
        self.variant = variant_copy.variant_of(store, game)
        self.board = DaideBoard(self.variant)
        super().__init__(self.board.vocab, Gate(limits, timer))
        self.poll = poll
        self.clock = clock or (lambda: datetime.now(UTC))
        self.rng = rng or random.SystemRandom()
        self.lock = asyncio.Lock()
        self.turn_lock = asyncio.Lock()
        """Held while a message is answered or the game looked at: results never cut into a THX series."""
        self.seats: dict[str, DaideSeat] = {}
        self.wanted = [self.variant.power(p).name for p in seats] if seats else None
        """The powers clients may take (None: every power), each only while it is empty or a program's."""
        self.state: Now | None = None
        self.finished = asyncio.Event()
        self.server: asyncio.Server | None = None
        self._poller: asyncio.Task[None] | None = None

    # --- running ----------------------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 16713) -> int:
        """Listen; returns the port (useful with port 0)."""
        self.state = await self._call(self._read)
        sock = every_interface(host, port)  # given "::", one socket takes IPv4 too
        where = {"host": host, "port": port} if sock is None else {"sock": sock}
        self.server = await asyncio.start_server(self._handle, backlog=16, **where)
        self._poller = asyncio.create_task(self._poll())
        sock = self.server.sockets[0]
        return int(sock.getsockname()[1])

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        for c in list(self.conns):
            self._drop(c)
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _call(self, fn: Callable[[], Any]) -> Any:
        """A store call, one at a time, out of the event loop's way."""
        async with self.lock:
            return await asyncio.to_thread(fn)

    # --- reading the game -------------------------------------------------------------------------------

    def _read(self) -> Now:
        from dippouch.game import position_from_data

        st = store_status.status(self.store, self.game, now=self.clock(), drift=False, due=False)
        if st.phase is None or st.state == "finished":
            hist = [p for p in store_history.history(self.store, self.game) if p.status != "abandoned"]
            last = hist[-1]
            data = last.next_position or last.position
            return Now(None, None, position_from_data(self.variant, data), None, st.ending, fog=st.settings.fog)
        rec = store_history.phase_record(self.store, self.game, st.phase, open_ok=True, submissions=False)
        return Now(
            int(rec["id"]),
            st.phase,
            position_from_data(self.variant, rec["position"]),
            st.deadline,
            st.ending,
            frozenset(ps.power for ps in st.powers if ps.must_act),
            {ps.power: ps.player for ps in st.powers},
            fog=st.settings.fog,
        )

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.poll)
            try:
                async with self.turn_lock:
                    await self.catch_up()
                self._alerts()
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad look must not stop the server
                log.exception("DAIDE server of %s could not read the game", self.game)

    async def catch_up(self) -> None:
        """Tell the clients about every phase processed since the last look, and the game's end."""
        before = self.state
        now = await self._call(self._read)
        self._lost(now)
        if before is not None and before.phase_id == now.phase_id and not (now.ended and not before.ended):
            self.state = now
            return
        self.state = now
        hist = await self._call(self._phases)
        turns = turns_after(self.variant, hist, before.phase_id) if before is not None else []
        told: dict[Sighted, list[list[int]]] = {}

        def tell(powers: Sighted) -> list[list[int]]:
            """The turns' messages as ``powers`` see them, made once for every client seeing the same."""
            if powers not in told:
                msgs: list[list[int]] = []
                if turns:
                    for pos, results, after in turns:
                        msgs += [self._m(*m) for m in results_parts(self.board, pos, results, after, powers)]
                elif now.phase_id is not None:
                    msgs.append(self._m(*now_parts(self.board, now.position, powers)))
                if now.ended is not None:
                    msgs += ending
                told[powers] = msgs
            return told[powers]

        ending = self._ending(now) if now.ended is not None else []
        for seat in self.seats.values():
            seat.orders.clear()
            seat.ready = False
            seat.phase = now.phase
        for c in list(self.conns):
            if c.in_game:
                for m in tell(self._sighted(c)):
                    self._send(c, m)
                if now.ended is None and c.power is not None:
                    self._tme(c)
        if now.ended is not None:
            for c in list(self.conns):
                self._send(c, self._m("OFF"))
                self._drop(c)
            self.finished.set()

    def _sighted(self, c: Conn) -> Sighted:
        """Whose sight ``c`` reads the board with: a fog game's seated client its power's, an observer's (or
        a connection's not seated yet) nobody's until the game ends, when every client is shown the whole."""
        if not self._fogged():
            return None
        return frozenset({c.power}) if c.power is not None else frozenset()

    def _fogged(self) -> bool:
        """A fog game still running: once it has ended, the whole of it is shown to all."""
        st = self.state
        return st is not None and st.fog and st.ended is None

    def _lost(self, now: Now) -> None:
        """Forget the seats the game gave someone else meanwhile (a coordinator seated a person): their client is
        told OFF and closed, and their passcode opens nothing any more."""
        if now.ended is not None or not now.holders:
            return
        for power, seat in list(self.seats.items()):
            if now.holders.get(power) == seat.player:
                continue
            log.info(
                "%s of %s is played by %s now: its DAIDE client is let go", power, self.game, now.holders.get(power)
            )
            del self.seats[power]
            c = seat.conn
            if c is not None:
                seat.conn = None
                c.power = None
                self._send(c, self._m("OFF"))
                self._drop(c)

    def _ending(self, now: Now) -> list[list[int]]:
        seen = seen_positions(self.variant, self._phases())
        names = {p: (s.name, s.version) for p, s in self.seats.items()}
        return [self._m(*m) for m in ending_parts(self.board, now.position, now.ended, seen, names)]

    def _tme(self, c: Conn) -> None:
        st = self.state
        if st is None or st.deadline is None:
            return
        self._send(c, self._m("TME", [seconds((st.deadline - self.clock()).total_seconds())]))

    def _alerts(self) -> None:
        st = self.state
        if st is None or st.deadline is None or st.phase is None:
            return
        left = (st.deadline - self.clock()).total_seconds()
        for c in list(self.conns):
            for n in c.alerts:
                if left <= n and (n, st.phase) not in c.alerted:
                    c.alerted.add((n, st.phase))
                    self._send(c, self._m("TME", [seconds(left)]))

    # --- connections ------------------------------------------------------------------------------------

    def _left(self, c: Conn) -> None:
        if c.power is not None and c.power in self.seats and self.seats[c.power].conn is c:
            self.seats[c.power].conn = None
            for other in list(self.conns):
                if other.in_game:
                    self._send(other, self._m("CCD", [self.board.power_word(c.power)]))

    # --- diplomacy messages -----------------------------------------------------------------------------

    async def _diplomacy(self, c: Conn, tokens: list[int]) -> None:
        if not tokens:
            raise ProtocolError(ErrorCode.LENGTH, "an empty diplomacy message")
        if any(is_reserved(t) for t in tokens):
            raise ProtocolError(ErrorCode.ILLEGAL_TOKEN, "a token of the private-use categories")
        log.debug("%s -> %s", c.power or c.name or "client", to_text(self.vocab, tokens))
        try:
            tree = parse(tokens)
        except BracketError:
            self._send(c, self._m("PRN", [Raw.of(tokens)]))
            return
        head = tree[0]
        word = self.vocab.name(head.token) if isinstance(head, Leaf) else None
        handler = getattr(self, f"_on_{word}", None) if word else None
        try:
            if handler is None:
                raise Syntax(0)
            async with self.turn_lock:
                await handler(c, tokens, tree[1:])
        except Syntax as e:
            self._send(c, self._m("HUH", [Raw.of(tokens[: e.at]), "ERR", Raw.of(tokens[e.at :])]))

    def _open(self) -> bool:
        return self.state is not None and self.state.ended is None and self.state.phase is not None

    async def _on_NME(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        if len(args) != 2:
            raise Syntax(args[2].at if len(args) > 2 else len(tokens))
        name, version = text_of(args[0]), text_of(args[1])
        if c.power is not None or c.observer or not self._open():
            self._rej(c, tokens)
            return
        taken = await self._call(lambda: self._take_seat(f"{DAIDE_PLAYER}{name}"[:100]))
        if taken is None:
            self._rej(c, tokens)
            return
        power, player = taken
        # DAIDE's numbers stop at 8191, and clients know passcodes as positive numbers: the range cannot grow,
        # so guesses are limited instead (Limits).
        passcode = self.rng.randint(1, MAX_INT)
        seat = DaideSeat(power, passcode, name, player, version, c, self.state.phase if self.state else None)
        self.seats[power] = seat
        c.power, c.name, c.version = power, name, version
        self._yes(c, tokens)
        self._send(c, self._m("MAP", [Quoted(self.board.map_name)]))

    def _take_seat(self, player: str) -> tuple[str, str] | None:
        """The first power a client may take now (:func:`offered`), taken under ``player``: the power and the name
        the game recorded. Who holds each seat is read now, and the use case checks it again in the transaction
        that seats the client, so a person seated since the server started, or a moment ago, keeps the seat."""
        st = self.state
        if st is None:
            return None
        holders = {p: current for p, current, _ in store_games.players(self.store, self.game)}
        wanted = self.wanted or self.variant.power_names
        for power in offered(wanted, set(self.seats), st.position, st.acting, holders, PROGRAMS):
            try:
                recorded = self.use.take_seat(self.store, self.game, power, player, now=self.clock())
            except Exception as e:  # a person took it meanwhile, or the game refuses: the next one
                log.info("seat %s refused to %s: %s", power, player, e)
                continue
            return power, str(recorded)
        return None

    async def _on_OBS(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        if args and len(args) != 2:
            raise Syntax(args[min(len(args), 2)].at if len(args) > 2 else len(tokens))
        if c.power is not None:
            self._rej(c, tokens)
            return
        c.observer = True
        self._yes(c, tokens)
        self._send(c, self._m("MAP", [Quoted(self.board.map_name)]))

    async def _on_IAM(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        if len(args) != 2 or not isinstance(args[0], Node) or len(args[0].items) != 1:
            raise Syntax(args[0].at if args else len(tokens))
        power = self.board.read_power(args[0].items[0])
        code = number_of(args[1])
        seat = self.seats.get(power)
        barred = self.gate.barred(c.address)
        if barred or seat is None or seat.passcode != code:
            self._rej(c, tokens)
            if barred:
                self._drop(c)
            else:
                self._wrong_passcode(c)
            return
        if seat.conn is not None or c.power is not None or not self._open():
            self._rej(c, tokens)
            return
        seat.conn, c.power, c.name, c.version, c.in_game = c, power, seat.name, seat.version, True
        self._yes(c, tokens)
        for other in list(self.conns):
            if other.in_game and other is not c:
                self._send(other, self._m("NOT", ["CCD", [self.board.power_word(power)]]))

    async def _on_YES(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        inner = args[0] if args else None
        if not isinstance(inner, Node) or not inner.items:
            raise Syntax(args[0].at if args else len(tokens))
        first = inner.items[0]
        if isinstance(first, Leaf) and self.vocab.name(first.token) == "MAP" and not c.in_game:
            if c.power is None and not c.observer:
                return
            c.in_game = True
            st = self.state
            if c.power is not None:
                self._send(c, self._hlo(c.power))
            if st is not None:
                self._send(c, self._m(*sco_parts(self.board, st.position, self._sighted(c))))
                self._send(c, self._m(*now_parts(self.board, st.position, self._sighted(c))))
                if c.power is not None:
                    self._tme(c)

    async def _on_REJ(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        inner = args[0] if args else None
        first = inner.items[0] if isinstance(inner, Node) and inner.items else None
        if isinstance(first, Leaf) and self.vocab.name(first.token) == "MAP":
            log.info("a DAIDE client (%s) cannot play on map %s", c.name, self.board.map_name)

    async def _on_HUH(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        log.info("a DAIDE client found fault with a message: %s", to_text(self.vocab, tokens))

    _on_PRN = _on_HUH

    def _hlo(self, power: str) -> list[int]:
        deadlines = store_status.status(
            self.store, self.game, now=self.clock(), drift=False, due=False
        ).settings.deadlines
        return self._m(*hlo_parts(self.board, power, self.seats[power].passcode, deadlines))

    async def _on_HLO(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        if c.power is None:
            self._rej(c, tokens)
        else:
            self._send(c, await self._call(lambda: self._hlo(c.power or "")))

    async def _on_MAP(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        self._send(c, self._m("MAP", [Quoted(self.board.map_name)]))

    async def _on_MDF(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        self._send(c, self._m(*self.board.mdf()))

    async def _on_NOW(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        if self.state is not None:
            self._send(c, self._m(*now_parts(self.board, self.state.position, self._sighted(c))))

    async def _on_SCO(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        if self.state is not None:
            self._send(c, self._m(*sco_parts(self.board, self.state.position, self._sighted(c))))

    async def _on_TME(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        if not args:
            if self.state is None or self.state.deadline is None or not self._open():
                self._rej(c, tokens)
            else:
                self._tme(c)
            return
        if len(args) > 1:
            raise Syntax(args[1].at)
        n = number_of(args[0])
        if n < 0 or self.state is None or self.state.deadline is None:
            self._rej(c, tokens)
            return
        c.alerts.add(n)
        self._yes(c, tokens)

    def _phases(self) -> list[Any]:
        return [p for p in store_history.history(self.store, self.game) if p.status != "abandoned"]

    async def _on_HST(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        if len(args) > 1:
            raise Syntax(args[1].at)
        hist = await self._call(self._phases)
        turn = read_turn(self.board, args[0]) if args else None
        told = (
            first_parts(self.board, self.variant, hist, self._sighted(c))
            if turn is None
            else turn_parts(self.board, self.variant, hist, turn, self._sighted(c))
        )
        self._tell(c, tokens, told)

    async def _on_ORD(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        hist = await self._call(self._phases)
        self._tell(c, tokens, last_orders_parts(self.board, self.variant, hist, self._sighted(c)))

    async def _on_SMR(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        st = self.state
        if st is None or st.ended is None:
            self._rej(c, tokens)
            return
        for m in (await self._call(lambda: self._ending(st)))[1:]:
            self._send(c, m)

    # --- orders -----------------------------------------------------------------------------------------

    def _seat(self, c: Conn) -> DaideSeat | None:
        if c.power is None or not self._open():
            return None
        seat = self.seats.get(c.power)
        return seat if seat is not None and seat.conn is c else None

    async def _on_SUB(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        turn, rest = split_turn(self.board, args, len(tokens))
        read = [(self.board.read_order(t), t) for t in rest]  # all well written, or HUH and nothing taken
        seat = self._seat(c)
        st = self.state
        if seat is None or st is None or (turn is not None and turn != st.position.phase):
            self._rej(c, tokens)
            return
        kind = self.variant.calendar.kind(st.position.phase)
        board = self._position(seat.power)
        notes, fresh = fit_orders(self.board, seat, board, kind, read)
        before = dict(seat.orders)
        for key, r, order, _t in fresh:
            seat.orders[key] = (r, order)
        # The game's own arrival check says which orders it would refuse, so the version recorded holds only
        # the orders taken, and is marked ready only when they are complete.
        refusing = refused(self.variant, board, seat, kind) if fresh else set()
        take_back(seat, refusing, before)
        taken = await self._submit(seat, ready=self._want(seat)) if fresh else set()
        if taken is None:  # the game took none of it (the phase moved on meanwhile): the SUB is refused
            seat.orders = before
            self._rej(c, tokens)
            return
        if taken:  # refused on arrival after all (the board changed under the check): taken back too
            refusing |= taken
            take_back(seat, taken, before)
            await self._submit(seat, ready=self._want(seat))
        for key, r, _order, t in fresh:
            note = self.board.refusal_note(r, seat.power, board) if key in refusing else "MBV"
            notes.append((t, note))
        order_of = {id(t): i for i, t in enumerate(rest)}
        for t, note in sorted(notes, key=lambda n: order_of[id(n[0])]):
            end = t.end if isinstance(t, Node) else t.at
            self._send(c, self._m("THX", [Raw.of(tokens[t.at + 1 : end])], [note]))
        await self._after_orders(c, seat)

    def _still_held(self, seat: DaideSeat) -> None:
        """Refuse to act for a seat the game gave someone else since the last look (the next look lets its
        client go): what a client sends never counts for a person's seat."""
        held = store_games.emails(self.store, self.game).get(seat.power, (None, None))[0]
        if held != seat.player:
            raise LookupError(f"{seat.power} is played by {held} now, not by {seat.player}")

    def _position(self, power: str | None = None) -> Position:
        """The open phase's position, as ``power`` sees it in a fog game: its orders are fitted and checked on
        that, as the game checks them on arrival, so a note (NYU for a unit that is not its own, NSU for none)
        tells nothing of a unit out of sight."""
        st = self.state
        assert st is not None
        if power is None or not self._fogged():
            return st.position
        return veil(st.position, sight(self.variant, st.position, power))

    def _missing(self, seat: DaideSeat) -> list[Any] | None:
        return missing(self.board, self._position(), seat)

    async def _after_orders(self, c: Conn, seat: DaideSeat) -> None:
        mis = self._missing(seat)
        if mis is not None:
            self._send(c, self._m(*mis))
        if self._want(seat) != seat.ready:
            await self._submit(seat, ready=self._want(seat))
        await self.catch_up()

    def _want(self, seat: DaideSeat) -> bool:
        """Ready to be processed: complete orders, and no NOT (GOF) (GOF is assumed each turn)."""
        return seat.go and self._missing(seat) is None

    async def _submit(self, seat: DaideSeat, *, ready: bool) -> set[Any] | None:
        """Send the power's orders so far as a new version through the game's use case; the keys of the
        orders the game refused, or None when it refused the submission itself (the phase was processed
        meanwhile, the power has nothing to order)."""
        st = self.state
        assert st is not None and st.phase is not None
        keys, text = orders_text(self.variant, seat, self.variant.calendar.kind(st.position.phase))
        phase = st.phase
        if seat.power not in st.acting:
            # The game wants nothing of this power now (builds owed but nowhere to build): DAIDE still has
            # it waive them, and the waives are taken, with nothing to record.
            seat.ready = ready
            return set()

        def send() -> Any:
            self._still_held(seat)
            return self.use.send_orders(
                self.store,
                self.game,
                seat.power,
                text,
                source="bot",
                now=self.clock(),
                ready=ready,
                phase=phase,
                replace_with_nothing=not keys,
            )

        try:
            sent = await self._call(send)
        except Exception as e:
            log.info("orders of %s not taken: %s", seat.power, e)
            return None
        seat.ready = bool(sent.receipt.ready)
        return {keys[ln.line - 1] for ln in sent.receipt.lines if not ln.accepted and 0 < ln.line <= len(keys)}

    async def _on_MIS(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        seat = self._seat(c)
        if seat is None:
            self._rej(c, tokens)
            return
        self._send(c, self._m(*(self._missing(seat) or ["MIS"])))

    async def _on_GOF(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        no_arguments(args)
        seat = self._seat(c)
        if seat is None:
            self._rej(c, tokens)
            return
        seat.go = True
        self._yes(c, tokens)
        await self._after_orders(c, seat)

    async def _on_DRW(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        await self._vote(c, tokens, True, _draw_powers(self.board, args, self.use.draw_of is not None))

    async def _vote(self, c: Conn, tokens: list[int], draw: bool, powers: list[str] | None = None) -> None:
        seat = self._seat(c)
        if seat is None:
            self._rej(c, tokens)
            return
        try:

            def cast() -> Any:
                self._still_held(seat)
                if powers is not None and self.use.draw_of is not None:
                    return self.use.draw_of(self.store, self.game, seat.power, powers, now=self.clock())
                return self.use.vote(self.store, self.game, seat.power, draw, now=self.clock())

            await self._call(cast)
        except Exception as e:
            log.info("draw vote of %s refused: %s", seat.power, e)
            self._rej(c, tokens)
            return
        self._yes(c, tokens)
        await self.catch_up()

    async def _on_NOT(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        if len(args) != 1 or not isinstance(args[0], Node) or not args[0].items:
            raise Syntax(args[0].at if args else len(tokens))
        inner = args[0].items
        word = self.vocab.name(inner[0].token) if isinstance(inner[0], Leaf) else None
        if word == "TME":
            if len(inner) > 1:
                c.alerts.discard(number_of(inner[1]))
            else:
                c.alerts.clear()
            self._yes(c, tokens)
            return
        seat = self._seat(c)
        if word == "DRW":
            await self._vote(c, tokens, False)
            return
        if word not in ("GOF", "SUB"):
            raise Syntax(inner[0].at)
        if seat is None:
            self._rej(c, tokens)
            return
        if word == "GOF":
            seat.go = False
            self._yes(c, tokens)
            if seat.ready:
                await self._submit(seat, ready=False)
            return
        if len(inner) == 1:
            seat.orders.clear()
        else:
            if not withdraw(self.board, seat, self._position(seat.power), inner[1]):
                self._rej(c, tokens)
                return
        await self._submit(seat, ready=False)
        self._yes(c, tokens)

    async def _on_ADM(self, c: Conn, tokens: list[int], args: Sequence[Tree]) -> None:
        self._rej(c, tokens)
