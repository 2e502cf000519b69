"""Submissions: a power's orders for the open phase, recorded as a new version and checked line by line.

A submission is committed before :func:`submit` returns, so an acknowledged submission is never lost.
Submissions share the game's row lock (they do not hold each other up) and wait for a phase being
processed; one power's versions are numbered and stamped one at a time (:func:`lock_power`). Nothing is
replaced: a resubmission is a new version, and which version stands is :mod:`dippouch.store.standing`'s.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, load_only

from dippouch.core.messages import Msg, PhaseName, msg
from dippouch.core.variant import Variant
from dippouch.game import (
    Changed,
    GameError,
    LineCheck,
    as_utc,
    check_orders,
    may_submit,
    read_version_lines,
    ready_refusal,
    seen_position,
    submission_stands,
    unordered,
)
from dippouch.store.db import Database
from dippouch.store.domains import record_in
from dippouch.store.gamefile import SOURCES
from dippouch.store.models import SubmissionRow
from dippouch.store.rows import (
    game_row,
    game_settings,
    game_variant,
    phase_position,
    power_name,
    require_current_for,
)
from dippouch.store.standing import standing_in_sql

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["SubmitResult", "lock_power", "named_version_of", "submit", "version_name"]


@dataclass(frozen=True)
class SubmitResult:
    phase: str
    power: str
    version: int
    lines: list[LineCheck]
    late: bool
    ready: bool
    deadline: datetime | None
    label: str | None = None
    """The player's own number for this version, if they gave one."""
    reinstates: int | None = None
    """Our version number of the earlier submission this one says stands ("version 2 stands")."""
    standing: int | None = None
    """The version that now stands for the power (on time), after this submission."""
    notes: tuple[str, ...] = ()
    """Version lines read from the submission."""
    stands: bool = True
    """Whether this version replaced the earlier ones (see :func:`dippouch.game.submission_stands`)."""
    standing_orders: list[str] = field(default_factory=list)
    """The orders of the standing version, as they will be carried out."""
    unordered: list[tuple[list[str], Msg]] = field(default_factory=list)
    """What happens to the units (or builds) the standing orders leave out: (units, what happens) pairs."""
    ready_refused: Msg | None = None
    """Why ``--ready`` was refused (the submission is recorded, not ready)."""
    variant: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    """The game's variant and options, to write the orders for reading."""
    game_variant: Variant | None = field(default=None, compare=False, repr=False)
    """The variant the game plays (its stored copy), to write the orders for reading: the file of a user
    variant may be out of reach of the process that reads the receipt."""
    received: datetime | None = None
    """The arrival time recorded (the database's clock, read under the power's lock, unless given)."""
    submission_id: int | None = None
    """The submission's row: what a message's record names as the submission made of it."""


def _changed_since(s: Session, mine: tuple[Any, ...], power: str, seen: int) -> Msg:
    """Why orders written over version ``seen`` are refused: the version that arrived after it, and when."""
    latest = s.scalars(
        sa.select(SubmissionRow)
        .options(load_only(SubmissionRow.version, SubmissionRow.submitted_at))
        .where(*mine)
        .order_by(SubmissionRow.version.desc())
        .limit(1)
    ).first()
    if latest is None or not 0 <= seen <= latest.version:  # a version this phase never had (a made-up number)
        return msg(
            "%(power)s has no version %(version)s in this phase; nothing was recorded. Reload the page and send again",
            power=power,
            version=seen,
        )
    when = f"{as_utc(latest.submitted_at):%Y-%m-%d %H:%M}"
    if seen == 0:
        return msg(
            "orders for %(power)s arrived while these were written: version %(version)s at %(time)s UTC. Nothing was "
            "recorded; look at it and send again to replace it",
            power=power,
            version=latest.version,
            time=when,
        )
    return msg(
        "%(power)s's orders changed while these were written: version %(version)s arrived at %(time)s UTC, after the "
        "version %(seen)s these were written over. Nothing was recorded; look at version %(version)s and send again to "
        "replace it",
        power=power,
        version=latest.version,
        seen=seen,
        time=when,
    )


def submit(
    db: Database,
    name: str,
    power: str,
    text: str,
    *,
    now: datetime | None,
    ready: bool = False,
    phase: str | None = None,
    source: str = "cli",
    recorded_at: datetime | None = None,
    label: str | None = None,
    reinstates: int | None = None,
    replace_with_nothing: bool = False,
    based_on: int | None = None,
    then: Callable[[SubmitResult], Iterable[object]] | None = None,
) -> SubmitResult:
    """Record a submission (a new version), checked line by line; committed before returning.

    ``now`` is when it was *received*: that decides whether it is on time and, between versions, which
    came last (a letter received on the 5th and typed in on the 13th comes before an e-mail of the
    10th); ``None`` is the database's clock. ``recorded_at`` is when it was typed in, when that is later
    (post). Version lines in the text ("Version 2", "Version 2 stands";
    :func:`dippouch.game.read_version_lines`) or ``label`` and ``reinstates`` give the player's numbering
    and say which earlier version stands.

    ``phase`` names the phase the orders were written for (a web form, an e-mail subject): when that
    phase is no longer open (it was processed while the orders were on their way) the orders are
    refused with a message saying so, rather than recorded for a phase they were not written for.
    Without ``phase`` they go to whichever phase is open.

    ``based_on`` names the power's latest version the orders were written over (a page's form, a program that
    read the player's view): when another has arrived since (a second tab, another device, an e-mail, the
    coordinator) the orders are refused (:class:`~dippouch.game.Changed`, naming it), so that nothing the
    player sent is replaced by what they typed without seeing it. Without it the new version replaces any.

    The game's row is locked (shared with other submissions) before the open phase is read, so a
    phase being processed is either seen before processing starts (and this submission is used if on
    time) or after it has committed.

    A version with no accepted order is recorded but does not replace the earlier orders unless
    ``replace_with_nothing`` (or a line "no orders") says it does; ``ready`` is then refused too (see
    :func:`dippouch.game.submission_stands`). The result says which version now stands.

    ``then`` (mail intake) makes of the result what became of the message the orders came in, recorded in this
    same transaction by the domain that registered the value's type (:func:`dippouch.store.domains.record_in`:
    the mail's :class:`~dippouch.store.mail.finish.Finish`): the submission and its message's record are
    committed together or not at all, so a process killed in between never leaves orders applied without their
    message's record, nor a message that a second try would apply again.
    """
    if source not in SOURCES:
        raise GameError(
            msg("unknown source %(source)s; choose one of %(sources)s", source=repr(source), sources=", ".join(SOURCES))
        )
    with db.session() as s, s.begin():
        g = game_row(s, name, share=True)
        v = game_variant(g)
        power = power_name(v, power)
        ph = require_current_for(s, g, v, phase)
        lock_power(s, ph.id, power)
        # The arrival time is read once the power's lock is held, so versions and times agree.
        now = db.db_now(s) if now is None else as_utc(now)
        db.pause_point("submit:locked")
        pos = phase_position(db, v, ph)
        if not may_submit(v, pos, power):
            raise GameError(msg("%(power)s has nothing to order in %(phase)s", power=power, phase=PhaseName(ph.name)))
        if recorded_at is not None and as_utc(recorded_at) < now:
            raise GameError(
                msg(
                    "received %(received)s UTC is after it was typed in (%(typed)s UTC); check the --received time",
                    received=f"{now:%Y-%m-%d %H:%M}",
                    typed=f"{as_utc(recorded_at):%Y-%m-%d %H:%M}",
                )
            )
        versions = read_version_lines(text)
        ready = ready or versions.ready
        label = label if label is not None else versions.label
        wanted = reinstates if reinstates is not None else versions.reinstates
        lines = check_orders(v, seen_position(v, pos, power, game_settings(g)), power, versions.text)
        # Only the rows the version rules need, by indexed lookups: a busy phase holds hundreds of one
        # power's versions, and loading them all (text and line checks) would make each submission O(versions).
        mine = (SubmissionRow.phase_id == ph.id, SubmissionRow.power == power)
        target: SubmissionRow | None = None
        if wanted is not None:
            if lines:
                raise GameError(
                    msg(
                        "this submission says version %(version)s stands and also gives orders; send either the orders "
                        "(a new version) or the instruction, not both",
                        version=wanted,
                    )
                )
            target = named_version_of(s, mine, wanted)
            if target is None:
                earlier = s.scalars(
                    sa.select(SubmissionRow)
                    .options(load_only(SubmissionRow.version, SubmissionRow.label))
                    .where(*mine)
                    .order_by(SubmissionRow.version)
                )
                known = ", ".join(version_name(r) for r in earlier) or "none yet"
                raise GameError(
                    msg(
                        "%(power)s has no version %(version)s in %(phase)s to stand (versions: %(versions)s)",
                        power=power,
                        version=wanted,
                        phase=PhaseName(ph.name),
                        versions=known,
                    )
                )
            if target.reinstates is not None:
                raise GameError(
                    msg(
                        "version %(version)s of %(power)s is itself an instruction (version %(stands)s stands); name "
                        "the version with the orders",
                        version=target.version,
                        power=power,
                        stands=target.reinstates,
                    )
                )
        version = (s.scalar(sa.select(sa.func.max(SubmissionRow.version)).where(*mine)) or 0) + 1
        if based_on is not None and based_on != version - 1:
            raise Changed(_changed_since(s, mine, power, based_on))
        if source == "mail" and now.microsecond == 0:
            now = _after_same_second(s, mine, now)
        if target is not None:
            # "Version 2 stands" counts as a submission that replaces (it names the orders that stand).
            stands = True
            named_lines = [LineCheck.from_data(d) for d in target.lines]
            refused = ready_refusal(named_lines, False) if ready else None
        else:
            stands = submission_stands(lines, replace_with_nothing)
            refused = ready_refusal(lines, replace_with_nothing) if ready else None
        row = SubmissionRow(
            phase_id=ph.id,
            power=power,
            version=version,
            submitted_at=now,
            text=text,
            lines=[line.to_data() for line in lines],
            ready=ready and refused is None,
            stands=stands,
            source=source,
            recorded_at=as_utc(recorded_at) if recorded_at is not None else None,
            label=label,
            reinstates=target.version if target is not None else None,
        )
        s.add(row)
        s.flush()
        late = ph.deadline is not None and now > ph.deadline
        standing = standing_in_sql(s, ph.id, ph.deadline, power=power).get(power)
        standing_lines = [LineCheck.from_data(d) for d in standing.lines] if standing else []
        result = SubmitResult(
            ph.name,
            power,
            version,
            lines,
            late,
            ready and refused is None,
            ph.deadline,
            label=label,
            reinstates=target.version if target is not None else None,
            standing=standing.version if standing is not None else None,
            notes=versions.notes,
            stands=stands,
            standing_orders=[ln.order for ln in standing_lines if ln.accepted and ln.order is not None],
            unordered=unordered(v, pos, power, standing_lines),
            ready_refused=refused,
            variant=g.variant,
            options=dict(g.options),
            game_variant=v,
            received=now,
            submission_id=row.id,
        )
        if then is not None:
            for value in then(result):
                record_in(db, s, value)
        return result


def lock_power(s: Session, phase_id: int, power: str) -> None:
    """Hold the power's versions of the phase until this transaction ends: the next version number is
    read, and the arrival time stamped, by one submission of the power at a time.

    Submissions share the game's row lock (they do not hold each other up), so two versions of one power
    arriving at once would both read the same highest version and the second would hit the unique key.
    PostgreSQL: a transaction-scoped advisory lock on (phase, power): powers do not wait for each other,
    and it is released at commit or rollback. SQLite: the transaction's write lock (``BEGIN IMMEDIATE``)
    already lets one writer in at a time."""
    if s.get_bind().dialect.name != "postgresql":
        return
    key = zlib.crc32(power.encode("utf-8")) - 2**31  # PostgreSQL's int4 range
    s.execute(
        sa.text("SELECT pg_advisory_xact_lock(CAST(:phase AS integer), CAST(:power AS integer))"),
        {"phase": phase_id, "power": key},
    )


def _after_same_second(s: Session, mine: tuple[sa.ColumnElement[bool], ...], now: datetime) -> datetime:
    """A mail's time is its Date line, to the whole second. A version we received within that same second
    (on the web, say) before this mail was read came before it: the mail is placed just after it, still in
    its own second, or the version sent first would stand (a player who sent orders on the web and their
    revision by mail a moment later had the web's orders counted)."""
    last = s.scalar(
        sa.select(sa.func.max(SubmissionRow.submitted_at)).where(
            *mine, SubmissionRow.submitted_at >= now, SubmissionRow.submitted_at < now + timedelta(seconds=1)
        )
    )
    return now if last is None else as_utc(last) + timedelta(microseconds=1)


def version_name(r: SubmissionRow) -> str:
    """A version as the player knows it: our number, and theirs when it differs."""
    return f"{r.version}" + (f" (your v{r.label})" if r.label and r.label != str(r.version) else "")


def named_version_of(s: Session, mine: tuple[sa.ColumnElement[bool], ...], wanted: int) -> SubmissionRow | None:
    """The version a player means by number: their own numbering (label) first, the last received of
    that label (they cannot know ours), then ours. At most two rows read, however many versions there are."""
    by_label = s.scalars(
        sa.select(SubmissionRow)
        .where(*mine, SubmissionRow.label == str(wanted))
        .order_by(SubmissionRow.submitted_at.desc(), SubmissionRow.version.desc())
        .limit(1)
    ).first()
    if by_label is not None:
        return by_label
    return s.scalars(sa.select(SubmissionRow).where(*mine, SubmissionRow.version == wanted).limit(1)).first()
