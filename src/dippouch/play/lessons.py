"""The guided first game (docs/learn.md): lessons on a corner of the standard board, each played with the real
engine and the reader's own orders against the other powers' scripted ones, then explained in words
(:mod:`dippouch.play.explain`) and checked against the lesson's goal; at the end a short practice game against
the gentlest bots (:mod:`dippouch.play.practice`).

A lesson's attempt is a pure function of the lesson and the orders typed (:func:`attempt`): the reader's lines
are checked by the player's page's own check (:func:`dippouch.game.check_orders`, so a misspelt or impossible
line gets the closest legal orders as a hint), then adjudicated by :func:`dippouch.core.adjudicator.adjudicate`
with the scripted orders. Progress is kept per person in the store (:func:`passed`, :func:`mark_passed`); a
door keeps a visitor's in the browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from dippouch.bots import LEVELS
from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.jsonio import result_to_json
from dippouch.core.messages import Msg, msg, nmsg
from dippouch.core.notation import format_order, parse_order
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import GameError, LineCheck, check_orders, position_from_data, position_to_data
from dippouch.play.explain import Said, explain
from dippouch.play.lessons_data import LESSONS, Goal, Lesson
from dippouch.store.db import Database
from dippouch.store.learning.lessons import lessons_passed, pass_lesson

I18N_DOMAIN = "rules"

__all__ = [
    "GAME_LEVEL",
    "LESSONS",
    "VARIANT",
    "Lesson",
    "LessonAttempt",
    "attempt",
    "lesson",
    "mark_passed",
    "next_lesson",
    "passed",
    "read_progress",
    "start_position",
    "variant",
]

VARIANT = "standard"
"""Every lesson's board: the standard map, drawn as everywhere else."""
GAME_LEVEL = LEVELS[0]
"""The bots of the short game that ends the lessons: the gentlest level there is."""
MAX_TEXT = 2000
"""Characters a lesson's order box takes: a lesson has at most a handful of units."""


def variant() -> Variant:
    return load_variant(VARIANT)


def lesson(slug: str) -> Lesson:
    """The lesson of that name, or GameError naming the lessons there are."""
    for le in LESSONS:
        if le.slug == slug:
            return le
    raise GameError(msg("no lesson %(lesson)s; the lessons are %(lessons)s", lesson=repr(slug[:40]), lessons=_slugs()))


def _slugs() -> str:
    return ", ".join(le.slug for le in LESSONS)


def next_lesson(done: Iterable[str]) -> Lesson | None:
    """The first lesson not yet passed (``None``: all are, the short game is next)."""
    seen = set(done)
    return next((le for le in LESSONS if le.slug not in seen), None)


def read_progress(text: str) -> set[str]:
    """A visitor's progress as their browser keeps it (slugs, comma-separated): what is not a lesson is
    dropped, as the browser's word is not trusted."""
    known = {le.slug for le in LESSONS}
    return {s for s in (p.strip() for p in text.split(",")[: len(LESSONS) * 2]) if s in known}


def passed(db: Database, person_id: int) -> set[str]:
    """The lessons ``person_id`` has passed."""
    return lessons_passed(db, person_id) & {le.slug for le in LESSONS}


def mark_passed(db: Database, person_id: int, slug: str, *, now: datetime) -> None:
    """Keep that ``person_id`` passed the lesson ``slug`` (a lesson there is)."""
    pass_lesson(db, person_id, lesson(slug).slug, now=now)


def _orders(v: Variant, position: Position, scripted: Mapping[str, Iterable[str]]) -> dict[str, list[Order]]:
    kind = v.calendar.kind(position.phase)
    return {p: [parse_order(v, o, phase_kind=kind) for o in os] for p, os in scripted.items()}


@cache
def _start_data(slug: str) -> dict[str, Any]:
    le = lesson(slug)
    v = variant()
    data = position_to_data(v, v.start)
    data["units"] = [{"power": p, "unit": u} for p, u in le.units]
    if le.centres is not None:
        data["supply_centers"] = {p: list(cs) for p, cs in le.centres.items()}
    if le.setup:
        data["phase"] = "Spring 1901 Movement"
        pos = position_from_data(v, data)
        pos = adjudicate(v, pos, _orders(v, pos, le.setup)).next
        if v.calendar.name(pos.phase) != le.phase:
            raise AssertionError(f"lesson {slug}: its setup leads to {v.calendar.name(pos.phase)}, not {le.phase}")
        return position_to_data(v, pos)
    data["phase"] = le.phase
    return position_to_data(v, position_from_data(v, data))


def start_position(le: Lesson) -> dict[str, Any]:
    """The board a lesson begins on, as the adjudication contract writes a position."""
    return dict(_start_data(le.slug))


@dataclass(frozen=True)
class LessonAttempt:
    """A lesson played with the orders typed: each line's verdict; and once every line is accepted, the phase
    adjudicated (``record``: the position, orders and results, as a phase's picture is drawn from), what
    happened in words, each goal with whether it holds, and whether the lesson is passed."""

    lesson: Lesson
    text: str
    lines: list[LineCheck]
    said: list[Said]
    goals: list[tuple[Msg, bool]]
    record: dict[str, Any] | None
    after: dict[str, Any] | None

    @property
    def refused(self) -> list[LineCheck]:
        return [ln for ln in self.lines if ln.error is not None]

    @property
    def adjudicated(self) -> bool:
        return self.record is not None

    @property
    def passed(self) -> bool:
        return self.adjudicated and all(ok for _, ok in self.goals)


def attempt(le: Lesson, text: str) -> LessonAttempt:
    """Play ``le`` with the reader's orders ``text``: refused lines stop it there (the page says what to
    change); otherwise the phase is adjudicated with the scripted orders and explained."""
    if len(text) > MAX_TEXT:
        raise GameError(
            msg(
                "a lesson's orders take at most %(most)d characters; this has %(count)d", most=MAX_TEXT, count=len(text)
            )
        )
    v = variant()
    data = start_position(le)
    pos = position_from_data(v, data)
    lines = check_orders(v, pos, le.power, text)
    if not text.strip() or any(ln.error is not None for ln in lines):
        return LessonAttempt(le, text, lines, [], [], None, None)
    kind = v.calendar.kind(pos.phase)
    orders = _orders(v, pos, le.opponents)
    orders[le.power] = [parse_order(v, ln.order, phase_kind=kind) for ln in lines if ln.order]
    resolution = adjudicate(v, pos, orders)
    said = explain(v, pos, orders, resolution, le.power)
    goals = [_goal(v, g, resolution.next) for g in le.goals]
    record = {
        "game": le.slug,
        "position": data,
        "orders": {p: [format_order(v, o, phase_kind=kind) for o in os] for p, os in orders.items()},
        "results": [result_to_json(v, r, kind) for r in resolution.results],
    }
    return LessonAttempt(le, text, lines, said, goals, record, position_to_data(v, resolution.next))


def _goal(v: Variant, g: Goal, after: Position) -> tuple[Msg, bool]:
    """The goal said as it turned out, and whether it holds."""
    gmap = v.map
    if g.kind == "units":
        have = sum(1 for u in after.units.values() if u.power == g.power)
        if have >= g.count:
            return nmsg("%(power)s has %(num)d unit.", "%(power)s has %(num)d units.", have, power=g.power), True
        return (
            nmsg(
                "%(power)s has %(num)d unit, not the %(want)d the goal asks for.",
                "%(power)s has %(num)d units, not the %(want)d the goal asks for.",
                have,
                power=g.power,
                want=g.count,
            ),
            False,
        )
    loc = _loc(v, g.at)
    prov = gmap.province_of(loc)
    unit = after.units.get(prov)
    place = gmap.label(loc)
    if g.kind == "no_unit":
        if unit is not None and unit.power == g.power:
            return (
                msg(
                    "A unit of %(power)s stands in %(place)s (%(unit)s).",
                    unit=gmap.unit_label(unit.kind, unit.loc),
                    power=g.power,
                    place=gmap.provinces[prov].name,
                ),
                False,
            )
        return msg("No unit of %(power)s stands in %(place)s.", power=g.power, place=gmap.provinces[prov].name), True
    ok = (
        unit is not None
        and unit.power == g.power
        and (not g.unit or unit.kind == g.unit)
        and ("/" not in g.at or unit.loc == loc)  # a coast named: the fleet must stand on that one
    )
    if ok and unit is not None:
        return (
            msg(
                "%(power)s has a unit in %(place)s: %(unit)s.",
                unit=gmap.unit_label(unit.kind, unit.loc),
                power=g.power,
                place=place,
            ),
            True,
        )
    want = (
        msg("an army of %(power)s", power=g.power)
        if g.unit == "A"
        else msg("a fleet of %(power)s", power=g.power)
        if g.unit == "F"
        else msg("a unit of %(power)s", power=g.power)
    )
    if unit is None:
        return msg("Nobody stands in %(place)s: the goal wants %(want)s there.", place=place, want=want), False
    return (
        msg(
            "%(unit)s of %(power)s stands in %(province)s, but the goal wants %(want)s in %(place)s.",
            unit=gmap.unit_label(unit.kind, unit.loc),
            power=unit.power,
            province=gmap.provinces[prov].name,
            want=want,
            place=place,
        ),
        False,
    )


def _loc(v: Variant, name: str) -> int:
    for loc in v.map.locations:
        if loc.abbr == name:
            return loc.id
    raise AssertionError(f"no location {name!r} on {v.name}")
