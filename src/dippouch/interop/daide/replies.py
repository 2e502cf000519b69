"""What a DAIDE server reads from a client's message and writes back, apart from the connections it keeps:
the initial message's checks, the readers of a message's arguments (each refusing with :class:`Syntax` at the
token at fault, which the server answers ``HUH``), and the messages that tell a processed turn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.position import Position
from dippouch.core.sight import sight_of, veil
from dippouch.interop.daide.board import SEASONS, DaideBoard, Syntax
from dippouch.interop.daide.codec import MAGIC, VERSION, ErrorCode, Leaf, Node, ProtocolError, Quoted, Tree, Wire
from dippouch.interop.daide.tokens import MAX_INT, integer_value, is_integer, is_text
from dippouch.render.fog import fog_record, order_provinces

__all__ = [
    "check_initial",
    "ending_parts",
    "hlo_parts",
    "no_arguments",
    "now_parts",
    "number_of",
    "read_turn",
    "results_parts",
    "sco_parts",
    "text_of",
]

SWAPPED_MAGIC = 0x10DA
"""The magic number read in the other byte order: the client writes little-endian."""


def check_initial(kind: Wire, payload: bytes) -> None:
    """A client's first message is the initial message of this protocol version, written big-endian."""
    if kind is not Wire.IM:
        raise ProtocolError(ErrorCode.NOT_IM, "the first message must be the initial message")
    if len(payload) != 4:
        raise ProtocolError(ErrorCode.LENGTH, "the initial message holds four octets")
    version, magic = int.from_bytes(payload[:2], "big"), int.from_bytes(payload[2:], "big")
    if magic == SWAPPED_MAGIC:
        raise ProtocolError(ErrorCode.ENDIAN, "the initial message is in the wrong byte order")
    if magic != MAGIC:
        raise ProtocolError(ErrorCode.MAGIC, "wrong magic number")
    if version != VERSION:
        raise ProtocolError(ErrorCode.VERSION, f"protocol version {version}; this server speaks {VERSION}")


def no_arguments(args: Sequence[Tree]) -> None:
    """A message that takes no arguments was given none."""
    if args:
        raise Syntax(args[0].at)


def text_of(t: Tree) -> str:
    """A bracketed string of text tokens, as text."""
    if not isinstance(t, Node) or not all(isinstance(x, Leaf) and is_text(x.token) for x in t.items):
        bad = (
            next((x for x in t.items if not (isinstance(x, Leaf) and is_text(x.token))), None)
            if isinstance(t, Node)
            else t
        )
        raise Syntax(bad.at if bad is not None else t.at)
    return bytes(x.token & 0xFF for x in t.items if isinstance(x, Leaf)).decode("utf-8", errors="replace")


def number_of(t: Tree) -> int:
    """A bracketed integer."""
    if isinstance(t, Node) and len(t.items) == 1 and isinstance(t.items[0], Leaf) and is_integer(t.items[0].token):
        return integer_value(t.items[0].token)
    raise Syntax(t.items[0].at if isinstance(t, Node) and t.items else t.at)


def read_turn(board: DaideBoard, t: Tree) -> Any:
    """A turn, ``(season year)``, as the variant's phase."""
    if not isinstance(t, Node) or len(t.items) != 2:
        raise Syntax(t.at)
    season, year = t.items
    if not isinstance(season, Leaf) or board.vocab.name(season.token) not in SEASONS:
        raise Syntax(season.at)
    if not isinstance(year, Leaf) or not is_integer(year.token):
        raise Syntax(year.at)
    return board.phase_of(board.vocab.name(season.token) or "", integer_value(year.token))


Sighted = frozenset[str] | None
"""Whose sight a client reads the board with: None for the whole board (no fog, or the game has ended), else
the powers it sees with (its seat's; none for an observer of a fog game still running)."""


def now_parts(board: DaideBoard, position: Position, powers: Sighted = None) -> list[Any]:
    """NOW: the units the client sees."""
    if powers is None:
        return board.now(position)
    return board.now(veil(position, sight_of(board.variant, position, powers)))


def sco_parts(board: DaideBoard, position: Position, powers: Sighted = None) -> list[Any]:
    """SCO: the owners of the centres the client sees."""
    if powers is None:
        return board.sco(position)
    seen = sight_of(board.variant, position, powers)
    return board.sco(veil(position, seen), seen=seen.provinces)


def ord_parts(
    board: DaideBoard, pos: Position, results: Sequence[Any], after: Position | None, powers: Sighted
) -> list[list[Any]]:
    """ORD of each result the client may read: in fog, those the web shows the same reader
    (:func:`dippouch.render.fog.fog_record` decides), and the holds of unordered units in its sight."""
    if powers is None:
        return board.ord_messages(pos, results, after)
    from dippouch.game import position_to_data

    v = board.variant
    given = [dict(r) for r in results if isinstance(r, Mapping)]
    record = {
        "position": position_to_data(v, pos),
        "results": given,
        "next_position": position_to_data(v, after) if after is not None else None,
    }
    kept = fog_record(v, record, powers).get("results") or []
    kind = v.calendar.kind(pos.phase)
    ordered = set()
    for r in given:
        read = order_provinces(v, str(r.get("order", "")), kind)
        if read is not None and read[0] is not None:
            ordered.add(read[0])
    return board.ord_messages(pos, kept, after, seen=sight_of(v, pos, powers).provinces, ordered=ordered)


def results_parts(
    board: DaideBoard, pos: Position, results: Sequence[Any], after: Position | None, powers: Sighted = None
) -> list[list[Any]]:
    """A processed turn as DAIDE tells it: each order's result (ORD), the ownership when it changed or a year
    ended (SCO), and the new position (NOW), as far as ``powers`` see."""
    out = ord_parts(board, pos, results, after, powers)
    if after is not None:
        kind = board.variant.calendar.kind(after.phase)
        if powers is None:
            changed = dict(after.centres) != dict(pos.centres)
        else:  # only a change the client sees is told by sending SCO
            v = board.variant
            changed = dict(sight_of(v, after, powers).centres) != dict(sight_of(v, pos, powers).centres)
        if changed or after.phase.year != pos.phase.year or kind is PhaseKind.ADJUSTMENTS:
            out.append(sco_parts(board, after, powers))
        out.append(now_parts(board, after, powers))
    return out


def seconds(n: float) -> int:
    """Seconds as DAIDE can write them: its integers stop at 8191 (about 2 h 16 min), so a longer time is
    written as 8191 ("at least this long")."""
    return max(0, min(int(n), MAX_INT))


def hlo_parts(board: DaideBoard, power: str, passcode: int, deadlines: Mapping[str, Any]) -> list[Any]:
    """HLO: the power, its passcode, and the game's variant options (no press; the deadlines it keeps)."""
    from dippouch.game import parse_duration

    options: list[Any] = [["LVL", 0]]
    for word, key in (("MTL", "movement"), ("RTL", "retreats"), ("BTL", "adjustments")):
        if deadlines.get(key):
            options.append([word, seconds(parse_duration(str(deadlines[key])).total_seconds())])
    return ["HLO", [board.power_word(power)], [passcode], options]


def ending_parts(
    board: DaideBoard,
    position: Position,
    ending: Any,
    seen: Sequence[Position],
    names: Mapping[str, tuple[str, str]],
) -> list[list[Any]]:
    """The game's end as DAIDE tells it: the final ownership (SCO), SLO for a solo or DRW, and the summary
    (SMR) naming each power's program (``names``: power -> name and version; dippouch's own otherwise) and
    the year each power out of the game was eliminated (the first of the positions ``seen`` without its
    centres or units)."""
    variant = board.variant
    out: list[list[Any]] = [board.sco(position)]
    if ending.kind == "victory" and len(ending.powers) == 1:
        out.append(["SLO", [board.power_word(ending.powers[0])]])
    else:
        out.append(["DRW"])
    gone: dict[str, int] = {}
    for pos in seen:
        for power in variant.power_names:
            if power not in gone and not pos.centres_of(power) and not pos.units_of(power):
                gone[power] = pos.phase.year
    smr: list[Any] = ["SMR", board.turn(position.phase)]
    for power in variant.power_names:
        name, version = names.get(power, ("dippouch", ""))
        centres = len(position.centres_of(power))
        row: list[Any] = [board.power_word(power), [Quoted(name)], [Quoted(version)], centres]
        if centres == 0 and power in gone:
            row.append(gone[power])
        smr.append(row)
    out.append(smr)
    return out


def told_parts(
    board: DaideBoard, position: Position, phase: Any, *, sco: bool, powers: Sighted = None
) -> list[list[Any]]:
    """A processed phase (a stored phase record) told again: its orders' results (ORD), and with ``sco`` the
    ownership and position after it (SCO, NOW), as HST asks; ORD asks the results alone."""
    from dippouch.game import position_from_data

    after = position_from_data(board.variant, phase.next_position) if phase.next_position else None
    out = ord_parts(board, position, phase.results or [], after, powers)
    if sco and after is not None:
        out += [sco_parts(board, after, powers), now_parts(board, after, powers)]
    return out


def split_turn(board: DaideBoard, args: Sequence[Tree], length: int) -> tuple[Any, list[Tree]]:
    """SUB's arguments: the turn it is for, if it names one, and the orders (at least one)."""
    rest = list(args)
    turn = None
    lead = rest[0].items[0] if rest and isinstance(rest[0], Node) and rest[0].items else None
    if isinstance(lead, Leaf) and board.vocab.name(lead.token) in SEASONS:
        turn = read_turn(board, rest[0])
        rest = rest[1:]
    if not rest:
        raise Syntax(length)
    return turn, rest
