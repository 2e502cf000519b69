"""The games as mail reads them: each game's mail settings (``mail setup``), its players and open phase for
intake, and the facts notices are made of (phases processed, events, who stands in civil disorder).

Rows are read through :mod:`~dippouch.store.rows` and handed out as frozen values, so no row leaves the store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import msg
from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.mail.models import GameMailRow, MailNoticeRow
from dippouch.store.models import EventRow, GameRow, PhaseRow
from dippouch.store.readiness import powers_in_civil_disorder as disorder_now
from dippouch.store.rows import current_phase, game_row, game_variant
from dippouch.store.standing import standing_versions

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MailGame",
    "MailPhase",
    "MailPlayer",
    "OpenPhase",
    "civil_disorder",
    "events_since",
    "game_id",
    "games_for_mail",
    "mail_config",
    "mail_games",
    "open_phase",
    "processed_since",
    "update_mail_config",
]


def game_id(store: Database, game: str) -> int:
    """The game's id, or a refusal naming the games there are."""
    with store.session() as s:
        gid = s.scalars(sa.select(GameRow.id).where(GameRow.name == game)).first()
        if gid is None:
            names = list(s.scalars(sa.select(GameRow.name).order_by(GameRow.name)))
            if names:
                raise GameError(msg("no game %(game)s; games: %(games)s", game=repr(game), games=", ".join(names)))
            raise GameError(msg("no game %(game)s", game=repr(game)))
        return int(gid)


# -- what intake reads of a game ---------------------------------------------------------------------------


def mail_config(store: Database, game_id: int) -> dict[str, Any]:
    """A game's mail settings (``mail setup``; empty before)."""
    with store.session() as s:
        row = s.get(GameMailRow, game_id)
        return dict(row.config) if row is not None else {}


@dataclass(frozen=True)
class MailPlayer:
    power: str
    name: str
    email: str | None
    replaced_at: datetime | None
    assigned_at: datetime


@dataclass(frozen=True)
class MailPhase:
    id: int
    name: str
    position: dict[str, Any]
    deadline: datetime | None


@dataclass(frozen=True)
class MailGame:
    """A game as mail intake reads it: its players, settings, mail settings and open phase."""

    id: int
    name: str
    status: str
    variant: Any
    settings: dict[str, Any]
    players: list[MailPlayer]
    phase: MailPhase | None
    config: dict[str, Any]


def games_for_mail(store: Database, *, set_up_only: bool = False) -> list[MailGame]:
    """Every game mail can reach (``set_up_only``: those with mail settings), oldest first, with its
    current phase."""
    out = []
    q = sa.select(GameRow).order_by(GameRow.id)
    if set_up_only:
        q = q.join(GameMailRow, GameMailRow.game_id == GameRow.id)
    with store.read_session() as s:
        for g in s.scalars(q):
            cfg_row = s.get(GameMailRow, g.id)
            if set_up_only and (cfg_row is None or not dict(cfg_row.config).get("enabled", True)):
                continue
            ph = current_phase(s, g)
            out.append(
                MailGame(
                    g.id,
                    g.name,
                    g.status,
                    game_variant(g),
                    dict(g.settings),
                    [MailPlayer(r.power, r.name, r.email, r.replaced_at, r.assigned_at) for r in g.players],
                    MailPhase(ph.id, ph.name, ph.position, ph.deadline) if ph is not None else None,
                    dict(cfg_row.config) if cfg_row is not None else {},
                )
            )
    return out


# -- what notices are made of ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenPhase:
    id: int
    name: str
    deadline: datetime | None
    position: dict[str, Any]
    with_orders: frozenset[str]
    """Powers whose standing version on time has at least one accepted order (never what the orders are)."""
    photographed: frozenset[str]
    """Powers whose photographs came on time (they wait for the coordinator's review)."""


def mail_games(store: Database) -> list[MailGame]:
    """The games whose mail is set up and on (``mail setup``), with their current phase."""
    return [g for g in games_for_mail(store, set_up_only=True) if g.config.get("since")]


def open_phase(store: Database, game_id: int) -> OpenPhase | None:
    """The game's open phase, with which powers have orders standing and which sent photographs."""
    from dippouch.game import LineCheck
    from dippouch.store.mail.review import photo_powers

    with store.session() as s:
        ph = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == game_id, PhaseRow.status == "open")).first()
        if ph is None:
            return None
        standing = standing_versions(ph, on_time_only=True)
        with_orders = frozenset(
            p for p, sub in standing.items() if any(LineCheck.from_data(d).accepted for d in sub.lines)
        )
        return OpenPhase(ph.id, ph.name, ph.deadline, ph.position, with_orders, frozenset(photo_powers(s, ph)))


def processed_since(store: Database, game_id: int, since: datetime) -> list[tuple[int, str, str]]:
    """(id, name, kind) of the game's phases processed since ``since`` whose results are not mailed yet."""
    with store.session() as s:
        rows = s.scalars(
            sa.select(PhaseRow)
            .where(PhaseRow.game_id == game_id, PhaseRow.status == "processed", PhaseRow.processed_at >= since)
            .order_by(PhaseRow.id)
        )
        return [
            (ph.id, ph.name, ph.kind)
            for ph in rows
            if ph.next_position is not None and s.get(MailNoticeRow, f"results:{ph.id}") is None
        ]


def events_since(
    store: Database, game_id: int, since: datetime, kinds: Sequence[str]
) -> list[tuple[int, str, dict[str, Any]]]:
    """(id, kind, detail) of the game's events of these kinds since ``since``, oldest first."""
    with store.session() as s:
        rows = s.scalars(
            sa.select(EventRow)
            .where(EventRow.game_id == game_id, EventRow.at >= since, EventRow.kind.in_(list(kinds)))
            .order_by(EventRow.id)
        )
        return [(e.id, e.kind, dict(e.detail)) for e in rows]


def civil_disorder(store: Database, game_id: int) -> list[str]:
    """The powers in civil disorder now (by the rules the store processes with)."""
    with store.session() as s:
        g = s.get(GameRow, game_id)
        if g is None:
            return []
        return sorted(disorder_now(s, g, game_variant(g)))


def update_mail_config(
    store: Database, game: str, now: datetime, changes: dict[str, Any], check: Any
) -> dict[str, Any]:
    """Create or change a game's mail settings under the game's lock; the first call marks the moment mail
    starts (a row kept only for tokens starts then too). ``check(cfg)`` refuses settings that make no sense."""
    now = as_utc(now)
    with store.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        row = s.get(GameMailRow, g.id)
        cfg: dict[str, Any] = dict(row.config) if row is not None else {"since": now.isoformat(), "enabled": True}
        if cfg.pop("set_up", True) is False:
            cfg["since"], cfg["enabled"] = now.isoformat(), True
        for k, val in changes.items():
            if val is not None:
                cfg[k] = val
        check(cfg)
        if row is None:
            s.add(GameMailRow(game_id=g.id, config=cfg))
        else:
            row.config = cfg
        return cfg
