"""Which version of a power's orders stands: the one received last (by the deadline, when it counts for
processing), or the earlier version a version instruction ("version 2 stands") names.

Received time, not the order of typing in, decides: post is typed in late. A version that replaced nothing
(sent without an order and without saying it replaces the earlier ones) is kept but never stands.
:func:`standing` reads rows already loaded; :func:`standing_in_sql` asks the database for the same answer,
a row or two a power however many versions there are; :func:`standing_versions` picks whichever is cheaper.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, object_session

from dippouch.store.models import PhaseRow, SubmissionRow

__all__ = ["standing", "standing_in_sql", "standing_versions"]


def standing_versions(ph: PhaseRow, *, on_time_only: bool) -> dict[str, SubmissionRow]:
    """The submission that stands for each power of the phase (:func:`standing`). Unless the phase's
    versions are loaded already, asked of the database, which answers a row or two a power instead of
    every version (a game page's status after each submission read hundreds)."""
    s = object_session(ph)
    if s is None or "submissions" not in sa.inspect(ph).unloaded:
        return standing(ph.submissions, ph.deadline, on_time_only=on_time_only)
    return standing_in_sql(s, ph.id, ph.deadline if on_time_only else None)


def standing(
    submissions: Iterable[SubmissionRow], deadline: datetime | None, *, on_time_only: bool
) -> dict[str, SubmissionRow]:
    """The submission that stands for each power: the one received last (by the deadline, if
    ``on_time_only``), or, when that one is a version instruction ("version 2 stands"), the version it
    names. Received time, not the order of typing in, decides: post is typed in late."""
    by_power: dict[str, list[SubmissionRow]] = {}
    for sub in submissions:
        if not sub.stands:
            continue  # recorded, but it replaced nothing
        if on_time_only and deadline is not None and sub.submitted_at > deadline:
            continue
        by_power.setdefault(sub.power, []).append(sub)
    out: dict[str, SubmissionRow] = {}
    for power, subs in by_power.items():
        last = max(subs, key=lambda r: (r.submitted_at, r.version))
        if last.reinstates is not None:
            named = next((r for r in subs if r.version == last.reinstates), None)
            if named is None:
                continue  # the version it names was late: nothing of this power's stands
            last = named
        out[power] = last
    return out


def _counted(one_power: bool, by_deadline: bool) -> list[sa.ColumnElement[bool]]:
    """The versions that may stand: the phase's that replaced the earlier ones (of the one power; received by the
    deadline), the values bound when sent."""
    counted = [SubmissionRow.phase_id == sa.bindparam("phase_id"), SubmissionRow.stands.is_(True)]
    if one_power:
        counted.append(SubmissionRow.power == sa.bindparam("power"))
    if by_deadline:
        counted.append(SubmissionRow.submitted_at <= sa.bindparam("deadline", type_=SubmissionRow.submitted_at.type))
    return counted


def _last_received(one_power: bool, by_deadline: bool) -> sa.Select[Any]:
    counted = _counted(one_power, by_deadline)
    received_last = (SubmissionRow.submitted_at.desc(), SubmissionRow.version.desc())
    if one_power:  # one power: its newest row, by the index (cheaper than ranking)
        return sa.select(SubmissionRow).where(*counted).order_by(*received_last).limit(1)
    rank = sa.func.row_number().over(partition_by=SubmissionRow.power, order_by=received_last).label("rank")
    ranked = sa.select(SubmissionRow.id, rank).where(*counted).subquery()
    return sa.select(SubmissionRow).join(ranked, ranked.c.id == SubmissionRow.id).where(ranked.c.rank == 1)


_LAST_RECEIVED = {(one, by): _last_received(one, by) for one in (False, True) for by in (False, True)}
"""Each power's (or the one power's) last received version that may stand, by (one power, by the deadline):
built once, as every status and every processing asks it."""


def standing_in_sql(
    s: Session, phase_id: int, deadline: datetime | None, *, power: str | None = None
) -> dict[str, SubmissionRow]:
    """:func:`standing` for every power of a phase (or only ``power``), by the ``deadline`` if one is given,
    in two queries: each power's last received version among those that replaced the earlier ones, then the
    versions that instructions among them name. A row or two a power, however many versions there are."""
    params: dict[str, Any] = {"phase_id": phase_id}
    if power is not None:
        params["power"] = power
    if deadline is not None:
        params["deadline"] = deadline
    last: list[SubmissionRow] = list(s.scalars(_LAST_RECEIVED[power is not None, deadline is not None], params))
    out = {r.power: r for r in last if r.reinstates is None}
    wanted = [(r.power, r.reinstates) for r in last if r.reinstates is not None]
    if wanted:
        counted = _counted(power is not None, deadline is not None)
        pairs = [sa.and_(SubmissionRow.power == p, SubmissionRow.version == v) for p, v in wanted]
        # A named version that was late (or replaced nothing) is not among them: nothing of that power stands.
        for r in s.scalars(sa.select(SubmissionRow).where(*counted, sa.or_(*pairs)), params):
            out[r.power] = r
    return out
