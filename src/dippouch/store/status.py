"""A game's state now, as a coordinator's ``status`` and the game page show it: the open phase and its
deadline, and for each power its player, latest version, orders accepted and refused, readiness, civil
disorder, units, centres and draw vote.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import EllipsisType
from typing import Any

from sqlalchemy.orm import Session

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import Msg
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import Ending, GameSettings, LineCheck, as_utc, position_from_data, powers_to_act, unordered
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PhaseRow, SubmissionRow
from dippouch.store.readiness import current_players, missed_streaks, phase_due
from dippouch.store.rows import active_phases, current_phase, game_row, game_settings, game_variant, phase_position
from dippouch.store.standing import standing_versions
from dippouch.store.variant_copy import variant_drift
from dippouch.store.votes import current_votes

__all__ = ["PowerStatus", "Status", "fogged", "in_fog", "orders_shape", "status", "status_in", "status_now"]


@dataclass(frozen=True)
class PowerStatus:
    power: str
    player: str | None
    must_act: bool
    version: int | None
    """Latest submission's version (``None``: nothing sent yet)."""
    accepted: int
    rejected: int
    ready: bool
    late: bool
    civil_disorder: bool
    missed_in_a_row: int
    units: int
    centres: int
    draw_vote: bool
    borrowed: int = 0
    """Of ``accepted``, orders for units of other powers (W3K hand-overs): they count only if handed over."""
    unordered: tuple[str, ...] = ()
    """The power's own units the standing orders leave out (movement: they hold; retreats: disbanded), in
    canonical text (``A par``); empty before the power has sent anything."""


@dataclass(frozen=True)
class Status:
    game: str
    variant: str
    state: str
    phase: str | None
    kind: str | None
    deadline: datetime | None
    paused_remaining: timedelta | None
    due: bool
    powers: list[PowerStatus]
    ending: Ending | None
    settings: GameSettings
    variant_note: Msg | None = None
    """Set when the variant file on disk no longer matches the game's stored copy (or cannot be loaded)."""
    due_why: str | None = None
    """Why the phase is due before its deadline: ``"ready"`` (every power that must act is ready) or
    ``"nobody"`` (nobody has anything to decide); ``None`` when due by the clock or not due."""
    game_variant: Variant | None = field(default=None, compare=False, repr=False)
    """The variant the game plays (its stored copy), to write places for reading."""


def status(db: Database, name: str, *, now: datetime, drift: bool = True, due: bool = True) -> Status:
    """The game's state now; ``drift=False`` leaves out the comparison of the game's copy of its variant
    with the variant's file (``variant_note``), which reads and builds the file: a web page rebuilt after
    every phase does not show it. ``due=False`` leaves out whether the phase is due now (``due`` is
    then False), which costs two more queries: the game page does not show it."""
    st = status_now(db, name, now=now, due=due)
    if not drift:
        return st
    # After the status's own transaction: the comparison loads the file and opens a session of its own.
    return dataclasses.replace(st, variant_note=variant_drift(db, name).note)


def in_fog(fog: Any, state: str) -> bool:
    """Whether a game whose settings say ``fog`` is in fog of war in ``state``: fog lifts at the end."""
    return bool(fog) and state != "finished"


def fogged(db: Database, name: str) -> bool:
    """:func:`in_fog` of the game now, from its row alone, where :func:`status` reads its phases, seats and
    absences too. Asked by every map and page a fog may hide."""
    with db.read_session() as s:
        g = game_row(s, name)
        return in_fog(game_settings(g).fog, g.status)


def status_now(db: Database, name: str, *, now: datetime, due: bool = True) -> Status:
    """:func:`status` without the variant file's comparison: one read-only transaction."""
    with db.read_session() as s:
        return status_in(db, s, game_row(s, name), now=now, due=due)


def status_in(
    db: Database,
    s: Session,
    g: GameRow,
    *,
    now: datetime,
    due: bool = True,
    open_phase: PhaseRow | EllipsisType | None = ...,
    movement: Sequence[Any] | None = None,
    votes: dict[str, bool] | None = None,
    players: list[tuple[str, str, datetime]] | None = None,
) -> Status:
    """:func:`status_now` in the caller's read (the game page reads its status with its phases, seats and
    absences in one transaction); ``open_phase``: the game's open phase's row when the caller has read it
    already (None: the game has none), else read here; ``movement``: the game's processed movement phases
    (:func:`dippouch.store.readiness.missed_streaks`'s ``phases``) when the caller has read them; ``votes``: the
    draw's ballots (:func:`dippouch.store.votes.current_votes`) when the caller knows them; ``players``: its current
    players (:func:`dippouch.store.readiness.current_players`) when the caller has read them."""
    now = as_utc(now)
    v = game_variant(g)
    settings = game_settings(g)
    ph = current_phase(s, g) if isinstance(open_phase, EllipsisType) else open_phase
    ending = Ending.from_data(g.ending) if g.ending else None
    if ph is None:
        last = active_phases(s, g)[-1]
        pos_data = last.next_position or last.position
        pos = position_from_data(v, pos_data)
        must: list[str] = []
        latest: dict[str, SubmissionRow] = {}
    else:
        pos = phase_position(db, v, ph)
        must = powers_to_act(v, pos)
        latest = standing_versions(ph, on_time_only=False)
    seated = current_players(s, g) if players is None else players
    streaks = missed_streaks(s, g, v, movement, seated)
    cd = {p for p, n in streaks.items() if settings.missed_limit > 0 and n >= settings.missed_limit}
    votes = current_votes(s, g) if votes is None else votes
    names = {power: name for power, name, _ in seated}
    rows = []
    for p in v.power_names:
        sub = latest.get(p)
        lines = [LineCheck.from_data(d) for d in sub.lines] if sub else []
        borrowed, left = orders_shape(v, pos, p, lines) if sub and ph is not None else (0, ())
        rows.append(
            PowerStatus(
                power=p,
                player=names.get(p),
                must_act=p in must,
                version=sub.version if sub else None,
                accepted=sum(1 for ln in lines if ln.accepted and ln.order is not None),
                rejected=sum(1 for ln in lines if not ln.accepted),
                ready=bool(sub and sub.ready),
                late=bool(sub and ph is not None and ph.deadline is not None and sub.submitted_at > ph.deadline),
                civil_disorder=p in cd,
                missed_in_a_row=streaks.get(p, 0),
                units=len(pos.units_of(p)),
                centres=len(pos.centres_of(p)),
                draw_vote=votes.get(p, False),
                borrowed=borrowed,
                unordered=left,
            )
        )
    due = bool(ph and due and phase_due(db, s, g, v, ph, now, cd=cd))
    due_why = None
    if due and ph is not None and ph.deadline is not None and now < ph.deadline:
        due_why = "ready" if must else "nobody"
    return Status(
        game=g.name,
        variant=g.variant,
        state=g.status,
        phase=ph.name if ph else None,
        kind=ph.kind if ph else None,
        deadline=ph.deadline if ph else None,
        paused_remaining=timedelta(seconds=g.paused_remaining) if g.paused_remaining is not None else None,
        due=due,
        powers=rows,
        ending=ending,
        settings=settings,
        due_why=due_why,
        game_variant=v,
    )


def orders_shape(v: Variant, pos: Position, power: str, lines: Sequence[LineCheck]) -> tuple[int, tuple[str, ...]]:
    """(orders for other powers' units, own units left without an order) of a standing submission."""
    from dippouch.core.notation import parse_order

    kind = v.calendar.kind(pos.phase)
    borrowed = 0
    if kind == PhaseKind.MOVEMENT:
        for ln in lines:
            if ln.accepted and ln.order is not None:
                loc = parse_order(v, ln.order, phase_kind=kind).unit_loc
                unit = pos.units.get(v.map.province_of(loc)) if loc is not None else None
                if unit is not None and unit.power != power:
                    borrowed += 1
    left = tuple(u for units, _ in unordered(v, pos, power, lines) for u in units)
    return borrowed, left
