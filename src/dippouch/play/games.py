"""A game as the coordinator makes and keeps it, once for every door: created (the desk's form, ``POST
/api/games`` and ``dippouch new`` give the same options: visibility and secret ballot included), imported from a
game file, its variant upgraded, exported, its visibility, deadlines and addresses changed, its links made and
revoked.

What changes somebody's chances is asked of the fairness rule first
(:func:`dippouch.play.fairness.require_alone`): a new link for a seated power while its orders are sealed reads
them, and so does an unsealed export; in a player-run game the table decides those. What changes nobody's
chances (visibility, the deadlines of phases to come, addresses, links of empty seats) stays the coordinator's.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dippouch.core.messages import msg
from dippouch.game import GameError, GameSettings
from dippouch.play.fairness import Actor, require_alone
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import sealing as store_sealing
from dippouch.store import status as store_status
from dippouch.store import transfer as store_transfer
from dippouch.store import variant_copy as store_variant
from dippouch.store.access import VISIBILITIES, AccessStore
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals."""

__all__ = [
    "coordinator_key",
    "create",
    "export_file",
    "import_file",
    "player_key",
    "revoke_key",
    "set_deadlines",
    "set_email",
    "set_visibility",
    "upgrade_variant",
]


def create(
    store: GameStore,
    name: str,
    variant: str,
    *,
    now: datetime,
    settings: GameSettings,
    options: Mapping[str, Any] | None = None,
    visibility: str = "public",
    position: Any = None,
) -> str:
    """A new game of ``variant`` whose first phase opens now, seen as ``visibility`` says: the same options from
    every door. The visibility is checked before the game is made, so a refusal leaves nothing behind."""
    if visibility not in VISIBILITIES:
        raise GameError(
            msg(
                "visibility must be one of %(choices)s, not %(value)s",
                choices=", ".join(VISIBILITIES),
                value=repr(visibility),
            )
        )
    store_games.create_game(
        store, name, variant, now=now, options=dict(options or {}), settings=settings, position=position
    )
    if visibility != "public":
        AccessStore(store).set_visibility(name, visibility)
    return name


def import_file(store: GameStore, data: Any, *, name: str | None = None) -> str:
    """A game file (as exported) made a game here, under ``name`` if given; its name."""
    return store_transfer.import_game(store, data, name=name or None)


def upgrade_variant(store: GameStore, game: str, *, now: datetime, check_only: bool = False) -> Any:
    """Move ``game`` to its variant file's current version, where the file's changes keep its position valid
    (:func:`dippouch.store.variant_copy.upgrade_variant`); ``check_only`` says what would change."""
    return store_variant.upgrade_variant(store, game, now=now, check_only=check_only)


def export_file(
    store: GameStore,
    game: str,
    *,
    by: Actor,
    now: datetime,
    unsealed: bool = False,
    reason: str | None = None,
    by_vote: bool = False,
) -> dict[str, Any]:
    """The coordinator's game file; ``unsealed`` with the open phase's orders (to move a running game), which is
    recorded with ``reason`` and shown to the players, and in a player-run game is the table's to decide."""
    if unsealed:
        require_alone(store, game, "unseal", by=by, by_vote=by_vote)
        return store_transfer.game_file(store, game, view="unsealed", now=now, who=by.who, reason=reason)
    return store_transfer.game_file(store, game, view="coordinator", now=now)


def set_visibility(store: GameStore, game: str, visibility: str) -> None:
    """Public, unlisted or private (refused otherwise, with the choices)."""
    AccessStore(store).set_visibility(game, visibility)


def set_deadlines(store: GameStore, game: str, deadlines: Mapping[str, str], *, now: datetime) -> GameSettings:
    """The time each kind of phase gets, for phases opened from now on (the running deadline stays)."""
    return store_deadlines.set_deadlines(store, game, deadlines, now=now)


def set_email(store: GameStore, game: str, power: str, address: str | None, *, now: datetime) -> str:
    """The address ``power``'s orders by mail must come from (``None``: none); the power's name as the game
    spells it."""
    return store_games.set_email(store, game, power, address, now=now)


def player_key(
    store: GameStore, game: str, power: str, *, by: Actor, now: datetime, reason: str = "", by_vote: bool = False
) -> tuple[int, str]:
    """A new key for ``power``'s player (id, secret). For a seated power while the phase is sealed the key reads
    the player's orders before the deadline: it needs a reason, recorded and shown to the players, and in a
    player-run game the table's vote."""
    seated = dict((p, cur) for p, cur, _ in store_games.players(store, game))
    if seated.get(power):
        from dippouch.store.sealing import is_sealed

        st = store_status.status(store, game, now=now, drift=False, due=False)
        if is_sealed("open" if st.phase is not None else "processed", st.deadline, now):
            require_alone(store, game, "unseal", by=by, by_vote=by_vote)
    store_sealing.record_unsealing(
        store,
        game,
        who=by.who,
        reason=reason,
        now=now,
        what=msg("a new key for %(power)s's player", power=power),
        power=power,
        seated_only=True,
    )
    return AccessStore(store).create_key("player", game=game, power=power, label=seated.get(power) or "", now=now)


def coordinator_key(store: GameStore, game: str | None, *, label: str, now: datetime) -> tuple[int, str]:
    """A new coordinator's key of ``game`` (``None``: the installation's); (id, secret), the secret shown once."""
    return AccessStore(store).create_key("coordinator", game=game, label=label[:200], now=now)


def revoke_key(store: GameStore, game: str, key_id: int, *, now: datetime) -> None:
    """Key ``key_id`` of ``game`` stops working at once, in every browser signed in with it."""
    AccessStore(store).revoke_key(key_id, game=game, now=now)
