"""Finding a game's rows and reading what they mean: the game by name, the variant it plays, its settings,
its open phase, a power's name; and the two writes every action shares (an event in the log, a new phase).

Every function takes the session its caller opened, so the caller's transaction (and its locks) covers it.
"""

from __future__ import annotations

import difflib
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, defer, object_session

from dippouch.catalog import built_variant, load_variant, variant_from_data
from dippouch.core.errors import DippouchError, NotFound, VariantError
from dippouch.core.messages import PhaseName, hint, msg
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import Ending, GameError, GameSettings, RecordNotFound, position_from_data
from dippouch.store.db import Database
from dippouch.store.models import EventRow, GameRow, PhaseRow, SubmissionRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "active_phases",
    "current_phase",
    "game_row",
    "game_row_adding",
    "game_row_and",
    "game_settings",
    "game_variant",
    "log_event",
    "next_version_in",
    "open_next_phase",
    "phase_position",
    "power_name",
    "require_current",
    "require_current_for",
]


# The variant's stored copy (kilobytes of JSON) is read only when the variant is not built already
# (:func:`game_variant`): every submission and status reads this row. Built once: nearly every use of the store
# reads it, and building the statement cost more CPU than the database spends answering it.
_GAME_ROW = sa.select(GameRow).options(defer(GameRow.variant_data)).where(GameRow.name == sa.bindparam("name"))
_GAME_ROW_LOCKED = _GAME_ROW.with_for_update()
_GAME_ROW_SHARED = _GAME_ROW.with_for_update(read=True)


def game_row_adding(*columns: sa.ColumnElement[Any]) -> sa.Select[Any]:
    """:func:`game_row`'s statement with ``columns`` read beside the row (each a correlated subquery on the game,
    say): built once by its caller, sent by :func:`game_row_and`."""
    return _GAME_ROW.add_columns(*columns)


def game_row_and(s: Session, q: sa.Select[Any], name: str) -> tuple[GameRow, tuple[Any, ...]]:
    """The game's row and the columns ``q`` (:func:`game_row_adding`) added to it, in one statement; a game not
    found is refused as :func:`game_row` refuses it."""
    r = s.execute(q, {"name": name}).first()
    if r is None:
        game_row(s, name)  # raises, naming the closest game
        return game_row_and(s, q, name)  # made between the two statements (each its own snapshot on PostgreSQL)
    return r[0], tuple(r[1:])


def game_row(s: Session, name: str, *, lock: bool = False, share: bool = False) -> GameRow:
    """The game's row; ``lock`` locks it alone (processing, votes, coordinator actions), ``share``
    together with other ``share`` holders (submissions), so both wait for a phase being processed."""
    q = _GAME_ROW_LOCKED if lock else _GAME_ROW_SHARED if share else _GAME_ROW
    g = s.scalars(q, {"name": name}).first()
    if g is None:
        names = list(s.scalars(sa.select(GameRow.name)))
        close = difflib.get_close_matches(name, names, n=1)
        if not names:
            raise RecordNotFound(
                msg(
                    "no game %(game)s. There are no games yet: %(hint)s.",
                    game=repr(name),
                    hint=hint("new-game", "create one with `dippouch new`"),
                )
            )
        games = ", ".join(sorted(names))
        if close:
            raise RecordNotFound(
                msg(
                    "no game %(game)s; did you mean %(close)s? Games: %(games)s",
                    game=repr(name),
                    close=repr(close[0]),
                    games=games,
                )
            )
        raise RecordNotFound(msg("no game %(game)s. Games: %(games)s", game=repr(name), games=games))
    return g


def game_variant(g: GameRow) -> Variant:
    """The game's own variant: the copy stored at creation, or (older games without one) its file. Built
    once per stored copy and options (its hash names the copy), without reading the copy again, and kept on
    the database the row was read from, per game while the hash stands (:attr:`Database.variants`, shared with
    its reader, as the positions are)."""
    s = object_session(g)
    db: Database | None = s.info.get("db") if s is not None else None
    kept = db.variants.get(g.id) if db is not None and g.variant_hash else None
    if kept is not None and kept[0] == g.variant_hash and kept[1] == g.options:
        return kept[2]
    hit = built_variant(g.variant_hash, g.options) if g.variant_hash else None
    if hit is None:
        if g.variant_data is None:
            return load_variant(g.variant, g.options)  # no stored copy: the file decides, and may change
        try:
            hit = variant_from_data(
                g.variant_data, g.options, source=f"{g.variant} (the copy stored with {g.name})", digest=g.variant_hash
            )
        except VariantError as e:
            raise GameError(
                msg(
                    "the copy of variant %(variant)s stored with game %(game)s no longer loads: %(reason)s; %(hint)s",
                    variant=repr(g.variant),
                    game=repr(g.name),
                    reason=e.msg,
                    hint=hint(
                        "upgrade-variant",
                        "`dippouch upgrade-variant %(game)s` switches the game to the variant file",
                        game=g.name,
                    ),
                )
            ) from None
    if db is not None and g.variant_hash:
        db.keep_variant(g.id, g.variant_hash, g.options, hit)
    return hit


def game_settings(g: GameRow) -> GameSettings:
    """The game's rules of procedure (deadlines, draws, missed-phase limit)."""
    return GameSettings.from_data(g.settings)


def active_phases(s: Session, g: GameRow) -> list[PhaseRow]:
    """The game's current line of play (abandoned phases left out), in order."""
    q = sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status != "abandoned").order_by(PhaseRow.seq)
    return list(s.scalars(q))


def current_phase(s: Session, g: GameRow, *, lock: bool = False) -> PhaseRow | None:
    """The game's open phase (``None``: the game is over)."""
    q = sa.select(PhaseRow).where(PhaseRow.game_id == g.id, PhaseRow.status == "open")
    if lock:
        q = q.with_for_update()
    return s.scalars(q).first()


def require_current(s: Session, g: GameRow) -> PhaseRow:
    """The open phase, or a clear error when the game is over."""
    ph = current_phase(s, g)
    if ph is None:
        ending = Ending.from_data(g.ending) if g.ending else None
        if ending:
            raise GameError(
                msg("game %(game)s is over: %(why)s (roll back to reopen it)", game=repr(g.name), why=ending.message)
            )
        raise GameError(msg("game %(game)s is over (roll back to reopen it)", game=repr(g.name)))
    return ph


def require_current_for(s: Session, g: GameRow, v: Variant, phase: str | None) -> PhaseRow:
    """The open phase, which must be ``phase`` when one is named: orders, whose sender may have had the page open
    since before the game ended."""
    ending = Ending.from_data(g.ending) if g.ending and current_phase(s, g) is None else None
    if ending is not None:
        # A player's page kept open while the game ended: how it ended is the whole answer (a processed phase
        # or a rollback is the coordinator's business, not theirs).
        raise GameError(
            msg(
                "Game %(game)s ended before these orders arrived: %(why)s These orders were not recorded.",
                game=repr(g.name),
                why=ending.message,
            )
        )
    if phase is None:
        return require_current(s, g)
    try:
        wanted = v.calendar.name(v.calendar.parse(phase))
    except DippouchError as e:
        raise GameError(
            msg("cannot read the phase %(phase)s: %(reason)s", phase=PhaseName(repr(phase)), reason=e.msg)
        ) from None
    ph = current_phase(s, g)
    if ph is not None and ph.name == wanted:
        return ph
    done = s.scalars(
        sa.select(PhaseRow)
        .where(PhaseRow.game_id == g.id, PhaseRow.branch == g.branch, PhaseRow.name == wanted)
        .order_by(PhaseRow.seq.desc())
    ).first()
    # What is open now, a sentence of its own after the refusal.
    if ph is None:
        now_open = msg("Game %(game)s is over (roll back to reopen it)", game=repr(g.name))
    elif ph.deadline:
        now_open = msg(
            "The open phase is %(open)s, deadline %(deadline)s UTC; send orders for that phase",
            open=PhaseName(ph.name),
            deadline=f"{ph.deadline:%Y-%m-%d %H:%M}",
        )
    else:
        now_open = msg("The open phase is %(open)s (paused); send orders for that phase", open=PhaseName(ph.name))
    if done is not None and done.status == "processed":
        if done.processed_at:
            raise GameError(
                msg(
                    "%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. "
                    "%(reason)s.",
                    phase=PhaseName(wanted),
                    time=f"{done.processed_at:%Y-%m-%d %H:%M:%S}",
                    reason=now_open,
                )
            )
        raise GameError(
            msg(
                "%(phase)s was processed, before these orders arrived; they were not recorded. %(reason)s.",
                phase=PhaseName(wanted),
                reason=now_open,
            )
        )
    raise GameError(
        msg(
            "%(phase)s is not open in game %(game)s; these orders were not recorded. %(reason)s.",
            phase=PhaseName(wanted),
            game=repr(g.name),
            reason=now_open,
        )
    )


def power_name(v: Variant, text: str) -> str:
    """The power ``text`` names, by its canonical name, or a clear error naming the closest one."""
    try:
        return v.power(text).name
    except NotFound as e:
        raise GameError(e.msg) from None


def log_event(s: Session, g: GameRow, now: datetime, kind: str, **detail: Any) -> None:
    """Add an entry to the game's event log (in the caller's transaction)."""
    s.add(EventRow(game_id=g.id, at=now, kind=kind, detail=detail))


def open_next_phase(
    s: Session,
    g: GameRow,
    v: Variant,
    settings: GameSettings,
    *,
    start_data: dict[str, Any],
    seq: int,
    now: datetime,
) -> PhaseRow:
    """Open the game's next phase from ``start_data`` (a stored position); a paused game's phase gets no
    deadline, and the game keeps the phase's whole time for when it resumes."""
    pos = position_from_data(v, start_data)
    kind = v.calendar.kind(pos.phase)
    ph = PhaseRow(
        game_id=g.id,
        branch=g.branch,
        seq=seq,
        name=v.calendar.name(pos.phase),
        kind=kind.value,
        status="open",
        position=start_data,
        opened_at=now,
        deadline=None if g.status == "paused" else settings.deadline(kind, now),
    )
    if g.status == "paused":
        g.paused_remaining = settings.duration(kind).total_seconds()
    s.add(ph)
    s.flush()
    db: Database | None = s.info.get("db")
    if db is not None:  # a session of the store's own (not a savepoint's inner one)
        db.opened(s, v, ph.id, pos)
    return ph


def phase_position(db: Database, v: Variant, ph: PhaseRow) -> Position:
    """The position a phase starts from, parsed once per phase (:meth:`Database.position`). For reading only:
    callers must not change the Position."""
    if ph.id is None:  # not flushed yet
        return position_from_data(v, ph.position)
    return db.position(v, ph.id, ph.position)


def next_version_in(s: Session, phase_id: int, power: str) -> int:
    """The number the power's next version in the phase gets, read in the caller's session."""
    n = s.scalars(
        sa.select(sa.func.max(SubmissionRow.version)).where(
            SubmissionRow.phase_id == phase_id, SubmissionRow.power == power
        )
    ).first()
    return (n or 0) + 1
