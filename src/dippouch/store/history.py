"""A game's history: every phase ever opened, one phase as a record (what its report is written from,
:mod:`dippouch.play.reports`), its replay, and the rollback that reopens an earlier phase.

Nothing is deleted: a rollback marks the phases it undoes ``abandoned`` and opens a new branch, and carries
each power's standing orders of the reopened phase into it, so nothing sent for the phase is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, PhaseName, hint, msg
from dippouch.core.variant import Variant
from dippouch.game import (
    GameError,
    as_utc,
    check_orders,
    position_from_data,
    position_to_data,
    read_version_lines,
    seen_position,
    submission_stands,
)
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PhaseRow, SubmissionRow, VoteRow
from dippouch.store.records import StoredPhase, phase_record_of, result_data
from dippouch.store.rows import active_phases, game_row, game_settings, game_variant, log_event, open_next_phase
from dippouch.store.sealing import is_sealed, seal_submission
from dippouch.store.standing import standing_versions
from dippouch.store.variant_copy import variant_of
from dippouch.store.votes import current_votes

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["Carried", "find_phase", "history", "phase_record", "replay", "rollback"]


@dataclass(frozen=True)
class Carried:
    """A submission a rollback carried forward into the reopened phase."""

    power: str
    version: int
    """Its version in the phase it came from (it is version 1 of the reopened phase)."""
    submitted_at: datetime
    orders: int
    late: bool


def history(db: Database, name: str) -> list[StoredPhase]:
    """Every phase ever opened, abandoned ones included, in the order they were opened, each with how many
    versions were sent in it (counted, not loaded: a long game's every version is not read to count them)."""
    with db.session() as s:
        g = game_row(s, name)
        counts: dict[int, int] = {
            int(pid): int(n)
            for pid, n in s.execute(
                sa.select(SubmissionRow.phase_id, sa.func.count())
                .join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id)
                .where(PhaseRow.game_id == g.id)
                .group_by(SubmissionRow.phase_id)
            )
        }
        rows = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id).order_by(PhaseRow.id))
        return [StoredPhase.of(r, versions=counts.get(r.id, 0)) for r in rows]


def find_phase(
    s: Session, g: GameRow, v: Variant, phase: str | None, phase_id: int | None, *, open_ok: bool = False
) -> PhaseRow:
    """The phase named (or with ``phase_id``); by default the latest processed one, or with ``open_ok``
    the open phase of a game that has processed none yet."""
    if phase_id is not None:
        # An id no database column can hold is simply not there (SQLite would raise OverflowError).
        ph = s.get(PhaseRow, phase_id) if 0 < phase_id < 2**63 else None
        if ph is None or ph.game_id != g.id:
            raise GameError(
                msg(
                    "game %(game)s has no phase with id %(id)s (%(hint)s)",
                    game=repr(g.name),
                    id=phase_id,
                    hint=hint("history", "see `dippouch history`"),
                )
            )
        return ph
    active = active_phases(s, g)
    if phase is None:
        processed = [p for p in active if p.status == "processed" and p.next_position is not None]
        if not processed and open_ok and active:
            return active[-1]
        if not processed:
            raise GameError(msg("game %(game)s has no processed phase yet", game=repr(g.name)))
        return processed[-1]
    try:
        wanted = v.calendar.name(v.calendar.parse(phase))
    except DippouchError as e:
        raise GameError(
            msg("cannot read the phase %(phase)s: %(reason)s", phase=PhaseName(repr(phase)), reason=e.msg)
        ) from None
    for p in active:
        if p.name == wanted:
            return p
    names = ", ".join(p.name for p in active)
    raise GameError(
        msg(
            "game %(game)s has no phase %(phase)s in its current line of play; phases: %(phases)s",
            game=repr(g.name),
            phase=PhaseName(repr(wanted)),
            phases=names,
        )
    )


def phase_record(
    db: Database,
    name: str,
    phase: str | None = None,
    phase_id: int | None = None,
    *,
    sealed_at: datetime | None = None,
    open_ok: bool = False,
    submissions: bool = True,
) -> dict[str, Any]:
    """Everything about one phase as plain data: position, submissions (unless not ``submissions``: then
    an empty list), orders used, results, next.

    With ``sealed_at`` (the coordinator's views pass the time), a phase still open before its deadline
    is *sealed*: each submission shows who sent which version and when, never its text or lines
    (``"sealed": true``). W3K: "the Coordinator will not be able to review submissions prior to the
    deadline".
    """
    with db.session() as s:
        g = game_row(s, name)
        v = game_variant(g)
        ph = find_phase(s, g, v, phase, phase_id, open_ok=open_ok)
        nxt = s.scalars(
            sa.select(PhaseRow).where(
                PhaseRow.game_id == g.id, PhaseRow.branch == ph.branch, PhaseRow.seq == ph.seq + 1
            )
        ).first()
        rec = phase_record_of(
            g.name,
            ph,
            nxt,
            settings=g.settings,
            ending=g.ending,
            submissions=submissions,
            variant=g.variant,
            options=g.options,
        )
        sealed = sealed_at is not None and is_sealed(ph.status, ph.deadline, sealed_at)
        if sealed_at is not None and not sealed and ph.status == "abandoned" and ph.processed_at is None:
            # Set aside unprocessed (the open phase rolled back onto itself): its orders were carried into
            # the open phase, so they stay sealed as long as that one is.
            op = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status == "open")).first()
            sealed = op is not None and is_sealed(op.status, op.deadline, sealed_at)
        if sealed:
            rec["submissions"] = [seal_submission(sub) for sub in rec["submissions"]]
            rec["sealed"] = True
        return rec


def replay(db: Database, name: str, phase: str | None = None, phase_id: int | None = None) -> tuple[bool, list[Msg]]:
    """Adjudicate a processed phase again from its stored position and orders; compare with the record: whether
    both agree, and each difference found, said where shown."""
    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.notation import parse_order

    rec = phase_record(db, name, phase, phase_id)
    if rec["status"] != "processed" or rec["next_position"] is None:
        raise GameError(msg("%(game)s has not been processed; there is nothing to replay", game=rec["name"]))
    v = variant_of(db, name)
    pos = position_from_data(v, rec["position"])
    kind = v.calendar.kind(pos.phase)
    orders = {p: [parse_order(v, t, phase_kind=kind) for t in ts] for p, ts in rec["orders"].items()}
    res = adjudicate(v, pos, orders)
    diffs: list[Msg] = []
    again = [result_data(v, r, kind) for r in res.results]
    if _outcomes(again) != _outcomes(rec["results"]):
        diffs.append(msg("results differ"))
    if position_to_data(v, res.next) != rec["next_position"]:
        diffs.append(msg("next position differs"))
    return not diffs, diffs


def _outcomes(results: Any) -> Any:
    """Results as the adjudication decided them, without the reasons' words: a reason worded anew since the phase
    was stored (an equal head-to-head "lost", now "bounced") is no difference in what happened."""
    if not isinstance(results, list):
        return results
    return [{k: x for k, x in r.items() if k != "reason"} if isinstance(r, dict) else r for r in results]


def rollback(db: Database, name: str, phase: str, *, now: datetime) -> tuple[str, list[Carried]]:
    """Reopen ``phase`` with its original position; the phases after it stay in history as abandoned.

    Each power's standing submission of the phase is carried into the reopened phase as it stood (its
    text, time and verdicts, checked again; not ready, since the clock starts again), so nothing sent
    for the phase is lost; a version that arrived after the old deadline is carried too (it is the
    power's latest word, and the phase is open again). Returns the phase's name and what was carried.
    """
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        v = game_variant(g)
        target = find_phase(s, g, v, phase, None)
        carried_subs = sorted(standing_versions(target, on_time_only=False).values(), key=lambda r: r.power)
        old_deadline = target.deadline
        for p in active_phases(s, g):
            if p.seq >= target.seq:
                p.status = "abandoned"
        g.branch += 1
        # Draw votes were cast about the line of play being undone: they lapse.
        for power, yes in current_votes(s, g).items():
            if yes:
                s.add(VoteRow(game_id=g.id, power=power, draw=False, at=now))
        if g.status == "finished":
            g.status = "active"
        g.ending = None
        s.flush()
        reopened = open_next_phase(s, g, v, game_settings(g), start_data=dict(target.position), seq=target.seq, now=now)
        pos = position_from_data(v, reopened.position)
        carried: list[Carried] = []
        for sub in carried_subs:
            seen = seen_position(v, pos, sub.power, game_settings(g))
            lines = check_orders(v, seen, sub.power, read_version_lines(sub.text).text)
            stands = submission_stands(lines, replace_with_nothing=True)
            s.add(
                SubmissionRow(
                    phase_id=reopened.id,
                    power=sub.power,
                    version=1,
                    submitted_at=sub.submitted_at,
                    text=sub.text,
                    lines=[line.to_data() for line in lines],
                    ready=False,
                    stands=stands,
                    carried_from=sub.id,
                    source=sub.source,
                    recorded_at=sub.recorded_at,
                    label=sub.label,
                )
            )
            late = old_deadline is not None and sub.submitted_at > old_deadline
            count = sum(1 for ln in lines if ln.accepted and ln.order is not None)
            carried.append(Carried(sub.power, sub.version, sub.submitted_at, count, late))
        log_event(
            s,
            g,
            now,
            "rollback",
            phase=target.name,
            branch=g.branch,
            carried={c.power: c.version for c in carried},
        )
        return target.name, carried
