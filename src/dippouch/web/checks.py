"""The line check as the order page shows it: each line's verdict by the very function a submission runs on
arrival (:func:`dippouch.game.check_orders`), the unit or site each line is about, and what the orders leave
out (units without an order, builds or removals not ordered), in full names."""

from __future__ import annotations

from typing import Any

from dippouch.core.notation import OrderParseError, format_place, parse_order, parse_unit
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import TYPED, LineCheck, check_orders, unordered
from dippouch.names import kind_word
from dippouch.web.maps import draft_svg
from dippouch.web.security import Viewer
from dippouch.web.service import Web

__all__ = ["check_lines", "check_view", "left_out", "left_out_of", "no_left_out", "order_subject"]


def check_lines(web: Web, name: str, power: str, text: str, viewer: Viewer) -> list[LineCheck]:
    """The arrival check, without recording anything: the very verdicts a submission would get (for the seat's
    player or its stand-in, who both may order it)."""
    _, power, _ = web.require_seat(name, power, viewer)
    _, v, pos, _, _ = web.open_phase_position(name)
    return check_orders(v, pos, power, text, TYPED)


def check_view(web: Web, name: str, power: str, text: str, viewer: Viewer) -> dict[str, Any]:
    """The line check as the order page shows it: each line's verdict (and note) with its subject (see
    :func:`order_subject`), and what happens to what the orders leave out (units without an order)."""
    _, power, _ = web.require_seat(name, power, viewer)
    _, v, pos, _, _ = web.open_phase_position(name)
    kind = v.calendar.kind(pos.phase)
    lines = check_orders(v, pos, power, text, TYPED)
    out = []
    for ln in lines:
        data = ln.to_data()
        # The canonical text parses back to the order (the arrival check wrote it); a line that could
        # not be read has none, and no subject.
        data["subject"] = None if ln.order is None else order_subject(v, parse_order(v, ln.order, phase_kind=kind))
        # The order as the map draws it, for the page to show while it is typed (the page only places it).
        data["draft"] = None if ln.order is None or ln.error else draft_svg(v, pos, power, ln.order)
        out.append(data)
    # ``unordered``: the power's units these lines give no order (full names); ``unordered_notes``: what
    # happens to them, and builds or removals not ordered.
    return {"lines": out, **left_out_of(v, unordered(v, pos, power, lines))}


def order_subject(v: Variant, order: Order) -> str | None:
    """What an order is *about*, the key by which a newly picked order replaces a line in the order box: the
    province of the unit it orders (or of the site it builds on), as the adjudicator matches units by
    province; ``None`` for orders about no unit or site (waive, W3K supply transfers), which each stand alone.
    The pick lists and the line check both answer with it, so the page never guesses it from the text."""
    loc = order.unit_loc
    return None if loc is None else v.map.provinces[v.map.province_of(loc)].abbr


def _full_unit(v: Variant, text: str) -> str:
    """``A par`` -> ``Army Paris`` (a variant's own kinds by their name: ``Defensive army ...``)."""
    try:
        kind, loc = parse_unit(v, text)
    except OrderParseError:
        return text
    return f"{kind_word(v, kind or '').capitalize()} {format_place(v, loc, full=True)}" if kind else text


def no_left_out() -> dict[str, Any]:
    return {"units": [], "notes": []}


def left_out_of(v: Variant, pairs: Any) -> dict[str, Any]:
    """The game layer's ``unordered`` pairs (units in canonical text, what happens to them) for people:
    ``unordered``, the units by full name, and ``unordered_notes``, one sentence per group."""
    units: list[str] = []
    notes: list[str] = []
    for group, what in pairs or []:
        names = [_full_unit(v, u) for u in group]
        units += names
        notes.append(f"{', '.join(names)}: {what}" if names else what[0].upper() + what[1:])
    return {"unordered": units, "unordered_notes": notes}


def left_out(v: Variant, pos: Position, power: str, lines: Any) -> dict[str, Any]:
    """What ``lines`` (line checks as data) leave without an order, by :func:`dippouch.game.unordered`:
    ``{"units": [...], "notes": [...]}``."""
    got = left_out_of(v, unordered(v, pos, power, [LineCheck.from_data(d) for d in lines]))
    return {"units": got["unordered"], "notes": got["unordered_notes"]}
