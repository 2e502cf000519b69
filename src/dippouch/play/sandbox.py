"""The sandbox: a board copied from a game's phase or a variant's opening, on which a person places, moves
and removes units, sets centres' owners, types every power's orders and adjudicates them, step after step,
without touching any game.

Everything here is the engine's own work: orders are read by the notation parser and checked line by line by
:func:`dippouch.game.check_orders` (the player's page's check), steps are the adjudicator's
(:func:`dippouch.core.adjudicator.adjudicate`), positions are read and written in the adjudication contract's
shape (:func:`dippouch.game.position_from_data`), so what the sandbox shows is what a game would do. Only the
sandbox's own row is ever written (:mod:`dippouch.store.sandboxes.boards`).

Each change is made in two parts: the engine's (:func:`unit_added`, :func:`orders_set`, :func:`stepped` ...), a
pure function of the variant and the sandbox's state as data (:class:`Board`) that answers the state to keep
(:class:`Change`), so the web runs it in a process of its own (:mod:`dippouch.web.http.pool`: a W3K sandbox's check
takes a second of CPU); then :func:`keep`, which writes it. The use cases that take the database
(:func:`add_unit`, :func:`set_orders` ...) do both, for a caller that works in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.jsonio import JsonInputError, position_from_json, result_to_json
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import Msg, msg
from dippouch.core.notation import OrderParseError, format_order, format_unit, parse_order, parse_orders, parse_unit
from dippouch.core.orders import Build, Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import (
    TYPED,
    GameError,
    OrderBounds,
    check_orders,
    check_size,
    position_from_data,
    position_to_data,
)
from dippouch.store.db import Database
from dippouch.store.sandboxes.boards import Sandbox, create_sandbox, keep_check, save_sandbox

I18N_DOMAIN = "rules"
"""The catalogue of the sandbox's refusals (the layers' under the doors)."""

__all__ = [
    "UNIT_KINDS",
    "Board",
    "Change",
    "Line",
    "add_unit",
    "adjudicate_step",
    "back",
    "bounds",
    "centre_set",
    "check_kept",
    "check_lines",
    "checked",
    "keep",
    "keep_late_check",
    "orders_checked",
    "orders_set",
    "phase_set",
    "position_of",
    "remove_unit",
    "set_centre",
    "set_orders",
    "set_phase",
    "start",
    "stepped",
    "unit_added",
    "unit_removed",
    "went_back",
]

UNIT_KINDS = {"A": "army", "F": "fleet"}
"""The units the editor places (a variant's own kinds come with its positions, and stay as they are)."""


@dataclass(frozen=True)
class Line:
    """One line of the order box and its verdict: the order as it will be carried out, or why not (a message
    value, said in the reader's language where it is shown)."""

    line: int
    text: str
    power: str | None
    order: str | None = None
    error: Msg | None = None
    note: Msg | None = None

    @property
    def accepted(self) -> bool:
        return self.error is None

    def data(self) -> dict[str, Any]:
        """As the sandbox keeps it (:attr:`dippouch.store.sandboxes.boards.Sandbox.checked`): the verdicts as message
        data, so a kept check is said later in any reader's language."""
        return {
            "line": self.line,
            "text": self.text,
            "power": self.power,
            "order": self.order,
            "error": None if self.error is None else self.error.to_data(),
            "note": None if self.note is None else self.note.to_data(),
        }

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Line:
        def text(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        return cls(
            int(data["line"]),
            str(data["text"]),
            text("power"),
            text("order"),
            _said(data, "error"),
            _said(data, "note"),
        )


def _said(data: Mapping[str, Any], key: str) -> Msg | None:
    """A kept verdict: message data, or the English text a check kept before verdicts were values (said as it
    is, or as its translation where the catalogue has it whole)."""
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, Mapping):
        return Msg.from_data(value)
    return Msg(str(value))


def position_of(variant: Variant, sandbox: Sandbox) -> Position:
    """The sandbox's board as the engine reads it."""
    return position_from_data(variant, sandbox.position)


def start(
    db: Database,
    variant: Variant,
    position: Mapping[str, Any],
    *,
    now: datetime,
    person_id: int | None = None,
    game: str | None = None,
    phase_id: int | None = None,
) -> tuple[Sandbox, str]:
    """A new sandbox on a copy of ``position`` (a game phase's, or the variant's opening: ``variant.start``
    written out), and its edit link's secret. The copy is read first, so a board the engine cannot read is
    refused here, not on every later page."""
    pos = position_from_data(variant, position)
    return create_sandbox(
        db,
        variant=variant.name,
        position=position_to_data(variant, pos),
        now=now,
        person_id=person_id,
        game=game,
        phase_id=phase_id,
    )


@dataclass(frozen=True)
class Board:
    """What the engine's part of a change reads of a sandbox, as data (a process of its own may make the
    change): the board, the order box and the check kept with it, the last step, and the state "Back" returns
    to (``None``: the board the sandbox began with)."""

    position: Mapping[str, Any]
    orders: str
    step: Mapping[str, Any] | None = None
    checked: list[dict[str, Any]] | None = None
    last: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, sandbox: Sandbox) -> Board:
        last = sandbox.history[-1] if sandbox.history else None
        return cls(sandbox.position, sandbox.orders, sandbox.step, sandbox.checked, last)


@dataclass(frozen=True)
class Change:
    """A sandbox's next state, as the engine made it, for :func:`keep` to write. ``history``: ``push`` puts the
    state before on the history ("Back" returns to it; with ``typed``, the order box as typed for the step),
    ``pop`` takes the last one off (it is the new state), ``same`` leaves it."""

    position: dict[str, Any]
    orders: str
    step: dict[str, Any] | None
    checked: list[dict[str, Any]]
    history: Literal["push", "pop", "same"]
    typed: str | None = None


def keep(db: Database, sandbox: Sandbox, change: Change, *, now: datetime) -> Sandbox:
    """Write ``change``, the engine's part of a change of ``sandbox``, as the sandbox's new state."""
    if change.history == "push":
        before = _snapshot(sandbox)
        history = [*sandbox.history, before if change.typed is None else {**before, "orders": change.typed}]
    elif change.history == "pop":
        history = sandbox.history[:-1]
    else:
        history = sandbox.history
    return save_sandbox(
        db,
        sandbox.id,
        position=change.position,
        orders=change.orders,
        step=change.step,
        history=history,
        now=now,
        checked=change.checked,
    )


def _edited(variant: Variant, board: Board, position: Position) -> Change:
    """An edited board: the state before goes on the history ("Back" returns to it), and the last step's orders
    are no longer drawn (they were for a board that is no more). The orders kept are checked again, on the new
    board."""
    return Change(
        position_to_data(variant, position),
        board.orders,
        None,
        _check(variant, position, board.orders),
        "push",
    )


def _check(variant: Variant, position: Position, text: str) -> list[dict[str, Any]]:
    """The orders' check as the sandbox keeps it: made when the orders or the board are kept, never on a look."""
    return [ln.data() for ln in check_lines(variant, position, text)] if text.strip() else []


def orders_checked(variant: Variant, position: Mapping[str, Any], text: str) -> list[dict[str, Any]]:
    """The check of ``text`` on the board ``position`` (data), as the sandbox keeps it."""
    return _check(variant, position_from_data(variant, position), text)


def checked(sandbox: Sandbox) -> list[Line] | None:
    """The order box's lines with their verdicts, as kept with the sandbox (``None``: a sandbox kept before its
    check was, which :func:`check_kept` checks once)."""
    if sandbox.checked is None:
        return None if sandbox.orders.strip() else []
    return [Line.of(c) for c in sandbox.checked]


def keep_late_check(db: Database, sandbox: Sandbox, checked: list[dict[str, Any]]) -> Sandbox:
    """The check of a sandbox's orders made on a first look (a sandbox kept before checks were stored), kept
    with them; its state and when it last changed stay as they are."""
    return keep_check(db, sandbox.id, checked)


def check_kept(db: Database, variant: Variant, sandbox: Sandbox) -> Sandbox:
    """Check, once, the orders of a sandbox kept before its check was, and keep the check."""
    return keep_check(db, sandbox.id, orders_checked(variant, sandbox.position, sandbox.orders))


def _snapshot(sandbox: Sandbox) -> dict[str, Any]:
    return {"position": sandbox.position, "orders": sandbox.orders, "step": sandbox.step}


def _power(variant: Variant, name: str) -> str:
    try:
        return variant.power(name.strip()).name
    except KeyError:
        raise GameError(
            msg(
                "no power %(power)s in %(variant)s; its powers are %(powers)s",
                power=repr(name.strip()[:60]),
                variant=variant.title,
                powers=", ".join(variant.power_names),
            )
        ) from None


def _place(variant: Variant, where: str) -> tuple[str | None, int]:
    """A province or coast as orders name it (``lon``, ``London``, ``stp/sc``, ``A par``): its unit type if
    one was written, and its location id; an unknown name is refused with the closest ones."""
    text = where.strip()
    if not text:
        raise GameError(msg("name a province (its abbreviation or its name, e.g. lon or London; a coast as stp/sc)"))
    try:
        return parse_unit(variant, text[:100])
    except OrderParseError as e:
        raise GameError(e.msg) from None


def _read(variant: Variant, data: Mapping[str, Any]) -> Position:
    """The edited board, read back by the engine: what cannot stand is refused in the engine's own words
    (a fleet inland, an army at sea, a fleet on a split coast without its coast)."""
    try:
        return position_from_json(variant, data)
    except JsonInputError as e:
        why = e.msg.args.get("why") if e.where else e.msg
        raise GameError(why if isinstance(why, Msg) else e.msg) from None


def unit_added(variant: Variant, board: Board, power: str, kind: str, where: str) -> Change:
    """Place a unit: ``kind`` ``A`` or ``F`` (or the words), ``where`` a province or a coast."""
    pos = position_from_data(variant, board.position)
    owner = _power(variant, power)
    k = {"army": "A", "fleet": "F"}.get(kind.strip().lower(), kind.strip().upper())
    if k not in UNIT_KINDS:
        raise GameError(msg("a unit is an army (A) or a fleet (F), not %(kind)s", kind=repr(kind.strip()[:20])))
    written, loc = _place(variant, where)
    if written is not None and written != k:
        raise GameError(
            msg(
                "%(where)s names a unit; name only the province to place a %(kind)s",
                where=repr(where.strip()[:60]),
                kind=Msg(UNIT_KINDS[k]),  # "army", "fleet": said in the reader's words
            )
        )
    gmap = variant.map
    prov = gmap.province_of(loc)
    there = pos.units.get(prov)
    if there is not None:
        raise GameError(
            msg(
                "%(unit)s of %(power)s already stands in %(province)s; remove it first (one unit per province)",
                unit=format_unit(variant, there.kind, there.loc),
                power=there.power,
                province=gmap.provinces[prov].name,
            )
        )
    if k == "F" and gmap.provinces[prov].kind == ProvinceKind.LAND:
        raise GameError(msg("a fleet cannot stand in %(province)s: it is inland", province=gmap.provinces[prov].name))
    data = position_to_data(variant, pos)
    entry = {"power": owner, "unit": f"{k} {gmap.locations[loc].abbr}"}
    return _edited(variant, board, _read(variant, {**data, "units": [*data["units"], entry]}))


def unit_removed(variant: Variant, board: Board, where: str) -> Change:
    """Take the unit in ``where`` off the board (a dislodged one waiting to retreat, if none stands there)."""
    pos = position_from_data(variant, board.position)
    _, loc = _place(variant, where)
    prov = variant.map.province_of(loc)
    if prov in pos.units:
        units = {p: u for p, u in pos.units.items() if p != prov}
        return _edited(variant, board, pos.with_(units=units))
    if prov in pos.dislodged:
        dislodged = {p: d for p, d in pos.dislodged.items() if p != prov}
        return _edited(variant, board, pos.with_(dislodged=dislodged))
    raise GameError(msg("there is no unit in %(province)s to remove", province=variant.map.provinces[prov].name))


NOBODY = ("", "none", "nobody", "neutral", "unowned")
"""What the centre form takes for "owned by no power"."""


def centre_set(variant: Variant, board: Board, where: str, owner: str) -> Change:
    """Give a supply centre to ``owner`` (``none``: to no power)."""
    pos = position_from_data(variant, board.position)
    _, loc = _place(variant, where)
    prov = variant.map.province_of(loc)
    p = variant.map.provinces[prov]
    if not p.supply_centre:
        raise GameError(msg("%(province)s is not a supply centre", province=p.name))
    centres = dict(pos.centres)
    if owner.strip().lower() in NOBODY:
        centres.pop(prov, None)
    else:
        centres[prov] = _power(variant, owner)
    return _edited(variant, board, pos.with_(centres=centres))


def phase_set(variant: Variant, board: Board, phase: str) -> Change:
    """Move the board to another phase (``Fall 1903 Movement``, ``W1905``...): the units stay as they are;
    a retreat phase keeps only the dislodged units already on the board."""
    pos = position_from_data(variant, board.position)
    try:
        ph = variant.calendar.parse(phase.strip()[:60])
    except DippouchError as e:
        raise GameError(e.msg) from None
    kind = variant.calendar.kind(ph)
    dislodged = pos.dislodged if kind == PhaseKind.RETREATS else {}
    return _edited(variant, board, pos.with_(phase=ph, dislodged=dislodged))


def add_unit(
    db: Database, variant: Variant, sandbox: Sandbox, power: str, kind: str, where: str, *, now: datetime
) -> Sandbox:
    """:func:`unit_added`, kept."""
    return keep(db, sandbox, unit_added(variant, Board.of(sandbox), power, kind, where), now=now)


def remove_unit(db: Database, variant: Variant, sandbox: Sandbox, where: str, *, now: datetime) -> Sandbox:
    """:func:`unit_removed`, kept."""
    return keep(db, sandbox, unit_removed(variant, Board.of(sandbox), where), now=now)


def set_centre(db: Database, variant: Variant, sandbox: Sandbox, where: str, owner: str, *, now: datetime) -> Sandbox:
    """:func:`centre_set`, kept."""
    return keep(db, sandbox, centre_set(variant, Board.of(sandbox), where, owner), now=now)


def set_phase(db: Database, variant: Variant, sandbox: Sandbox, phase: str, *, now: datetime) -> Sandbox:
    """:func:`phase_set`, kept."""
    return keep(db, sandbox, phase_set(variant, Board.of(sandbox), phase), now=now)


def _owner(variant: Variant, position: Position, order: Order) -> str | None:
    """Whose order a line is when it names no power: the unit's at its place (dislodged, in a retreat
    phase), or for a build the owner of the centre it is built in."""
    loc = order.unit_loc
    if loc is None:
        return None
    prov = variant.map.province_of(loc)
    if isinstance(order, Build):
        return position.centres.get(prov)
    kind = variant.calendar.kind(position.phase)
    if kind == PhaseKind.RETREATS and prov in position.dislodged:
        return position.dislodged[prov].unit.power
    unit = position.units.get(prov)
    return unit.power if unit is not None else None


def check_lines(variant: Variant, position: Position, text: str) -> list[Line]:
    """Every line of the order box with its verdict. A line names its power (``England: F nth C A lon - bel``,
    or under a line ``England:``) or is the order of the unit it names; each power's lines are then judged
    together by the player's page's own check (:func:`check_orders`), so a second order to a unit, an order
    for another power's unit or an illegal move is refused here as it would be in a game."""
    kind = variant.calendar.kind(position.phase)
    rows = text.splitlines()
    out: dict[int, Line] = {}
    by_power: dict[str, list[str]] = {}
    for pl in parse_orders(variant, text, phase_kind=kind):
        if pl.error is not None or pl.order is None:
            out[pl.line] = Line(
                pl.line, pl.text, pl.power, error=msg("not an order") if pl.error is None else pl.error.msg
            )
            continue
        power = pl.power or _owner(variant, position, pl.order)
        if power is None:
            why = (
                msg("whose order is this? no unit stands there: name the power (England: ...)")
                if pl.order.unit_loc is not None
                else msg("whose order is this? it names no unit: name the power (England: ...)")
            )
            out[pl.line] = Line(pl.line, pl.text, None, error=why)
            continue
        by_power.setdefault(power, [""] * len(rows))[pl.line - 1] = pl.text
    for power, lines in by_power.items():
        for c in check_orders(variant, position, power, "\n".join(lines)):
            out[c.line] = Line(
                c.line,
                c.text,
                power,
                c.order,
                c.error,
                c.note,
            )
    return [out[n] for n in sorted(out)]


def orders_set(variant: Variant, board: Board, text: str) -> Change:
    """Keep the order box as typed, every line checked once, here (nothing is refused for keeping, but text
    beyond :func:`bounds`)."""
    check_size(text, bounds(variant))
    pos = position_from_data(variant, board.position)
    return Change(dict(board.position), text, _step(board), _check(variant, pos, text), "same")


def _step(board: Board) -> dict[str, Any] | None:
    return None if board.step is None else dict(board.step)


def set_orders(db: Database, variant: Variant, sandbox: Sandbox, text: str, *, now: datetime) -> Sandbox:
    """:func:`orders_set`, kept."""
    return keep(db, sandbox, orders_set(variant, Board.of(sandbox), text), now=now)


LINE_CHARS = 150
"""Characters an order line of a sandbox has on average at most: a long order in full names ("Army North Africa
supports Fleet Western Mediterranean to Tyrrhenian Sea") is under 100; a player's typed orders allow 200."""

MAX_ORDERS = 64_000
"""Characters any sandbox's order box may hold (the largest of the bounds below, Imperial's, is 55,719): what
the JSON API reads at most, before the variant's own bound is checked."""


def bounds(variant: Variant) -> OrderBounds:
    """How much order text a sandbox of ``variant`` takes, as a player's typed orders are bounded
    (:data:`dippouch.game.TYPED`: lines of at most 300 characters, each misspelt one a search for the closest
    names) but for every power at once: a line for each unit the board can hold (one a province) and a heading
    for each power, at least as many lines as a player may type; :data:`LINE_CHARS` a line on average. W3K:
    268 lines, 40,200 characters of orders; the standard map: 100 lines. The largest text W3K takes is checked in
    about a second of CPU (64,000 characters of misspelt orders took 3.3 s, on every look)."""
    lines = max(TYPED.lines, len(variant.map.provinces) + len(variant.power_names))
    return OrderBounds(total=lines * (LINE_CHARS + 1), chars=lines * LINE_CHARS, lines=lines, line=TYPED.line)


def stepped(variant: Variant, board: Board, text: str) -> Change:
    """Adjudicate the board with the orders typed, by the adjudicator of the phase's kind, and move to the
    phase it leads to (a phase with nothing to do is passed over, as in a game). Refused if any line is
    refused (say what to change, keep what was typed): a game would drop such a line, and a sandbox is for
    seeing exactly what the orders written do. Units without orders hold, retreat-less units disband, missing
    builds are waived and missing removals made, as in a game."""
    check_size(text, bounds(variant))
    pos = position_from_data(variant, board.position)
    kept: list[Line] | None = None
    if text == board.orders:  # checked when it was kept (:func:`checked`), unless kept before checks were
        kept = [Line.of(c) for c in board.checked] if board.checked is not None else None if text.strip() else []
    lines = kept if kept is not None else check_lines(variant, pos, text)
    refused = [ln for ln in lines if not ln.accepted]
    if refused:
        first, more = refused[0], len(refused) - 1
        reason: Msg = first.error or msg("not an order")
        if not more:
            raise GameError(
                msg(
                    "line %(line)s (%(order)s): %(reason)s; correct or delete it to adjudicate",
                    line=first.line,
                    order=first.text,
                    reason=reason,
                )
            )
        if more == 1:
            raise GameError(
                msg(
                    "line %(line)s (%(order)s): %(reason)s (and 1 more line); correct or delete it to adjudicate",
                    line=first.line,
                    order=first.text,
                    reason=reason,
                )
            )
        raise GameError(
            msg(
                "line %(line)s (%(order)s): %(reason)s (and %(count)s more lines); correct or delete it to adjudicate",
                line=first.line,
                order=first.text,
                reason=reason,
                count=more,
            )
        )
    kind = variant.calendar.kind(pos.phase)
    orders: dict[str, list[Order]] = {}
    for ln in lines:
        if ln.order is not None and ln.power is not None:
            orders.setdefault(ln.power, []).append(parse_order(variant, ln.order, phase_kind=kind))
    resolution = adjudicate(variant, pos, orders)
    step = {
        "phase": variant.calendar.name(pos.phase),
        "position": dict(board.position),
        "orders": {p: [format_order(variant, o, phase_kind=kind) for o in os] for p, os in orders.items()},
        "results": [result_to_json(variant, r, kind) for r in resolution.results],
    }
    return Change(position_to_data(variant, resolution.next), "", step, [], "push", typed=text)


def adjudicate_step(db: Database, variant: Variant, sandbox: Sandbox, text: str, *, now: datetime) -> Sandbox:
    """:func:`stepped`, kept."""
    return keep(db, sandbox, stepped(variant, Board.of(sandbox), text), now=now)


def went_back(variant: Variant, board: Board) -> Change:
    """Return to the state before the last change (a step adjudicated, or an edit of the board)."""
    last = board.last
    if last is None:
        raise GameError(msg("there is nothing to go back to: this is the board the sandbox began with"))
    position, orders = dict(last["position"]), str(last.get("orders") or "")
    step = last.get("step")
    return Change(
        position,
        orders,
        None if step is None else dict(step),
        _check(variant, position_from_data(variant, position), orders),
        "pop",
    )


def back(db: Database, variant: Variant, sandbox: Sandbox, *, now: datetime) -> Sandbox:
    """:func:`went_back`, kept."""
    return keep(db, sandbox, went_back(variant, Board.of(sandbox)), now=now)


def results_of(step: Mapping[str, Any] | None) -> Sequence[Mapping[str, Any]]:
    """The last step's results (none before a step)."""
    return list(step.get("results") or []) if step else []
