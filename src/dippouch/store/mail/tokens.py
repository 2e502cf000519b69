"""Players' mail tokens: the secret a receipt teaches a player and a later message proves its sender with
(``letters/proof.py``), kept with the game's mail settings and made anew when a seat's address changes."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.game import as_utc
from dippouch.store.db import Database
from dippouch.store.mail.models import GameMailRow

__all__ = ["known_token", "new_token", "player_token", "set_up_defaults"]


def new_token() -> str:
    """A player's token: short enough to copy from a receipt into a subject, 50 bits of secret, no look-alike
    letters (``letters/proof.py`` finds it in mail)."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "dp-" + "".join(secrets.choice(alphabet) for _ in range(10))


def set_up_defaults(now: datetime) -> dict[str, Any]:
    """A game's mail settings before ``mail setup`` (a row made only to keep players' tokens): results and
    notices stay off; ``mail setup`` then starts them from its own moment."""
    return {"since": as_utc(now).isoformat(), "enabled": False, "set_up": False}


def player_token(store: Database, game_id: int, power: str, address: str, *, now: datetime) -> str:
    """The power's token for its registered address (made on first use, and anew when the address changes:
    a new player does not inherit the last one's secret). Kept with the game's mail settings."""
    addr = address.strip().lower()
    with store.session() as s, s.begin():
        row = s.scalars(sa.select(GameMailRow).where(GameMailRow.game_id == game_id).with_for_update()).first()
        cfg: dict[str, Any] = dict(row.config) if row is not None else set_up_defaults(now)
        tokens = dict(cfg.get("tokens") or {})
        mine = dict(tokens.get(power) or {})
        if mine.get("address") == addr and mine.get("token"):
            return str(mine["token"])
        mine = {"token": new_token(), "address": addr, "made": as_utc(now).isoformat()}
        tokens[power] = mine
        cfg["tokens"] = tokens
        if row is None:
            s.add(GameMailRow(game_id=game_id, config=cfg))
        else:
            row.config = cfg
        return str(mine["token"])


def known_token(store: Database, game_id: int, power: str, address: str) -> str | None:
    """The power's token if one was made for this address (``None``: none taught yet, so none to prove with)."""
    with store.session() as s:
        row = s.get(GameMailRow, game_id)
        mine = dict((dict(row.config).get("tokens") or {}).get(power) or {}) if row is not None else {}
    if mine.get("address") == address.strip().lower() and mine.get("token"):
        return str(mine["token"])
    return None
