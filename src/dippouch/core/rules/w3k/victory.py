"""W3K's victory and draws: pure functions of a position the game layer calls at the end of a year."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dippouch.core.messages import N_
from dippouch.core.position import Position
from dippouch.core.rules.base import register_victory

I18N_DOMAIN = "rules"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/rules.po)."""

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["draw_powers", "winner"]


def _capitals(variant: Variant) -> dict[str, list[int]]:
    gmap = variant.map
    caps = variant.victory.get("capitals", {})
    return {str(k): [gmap.province_of(gmap.loc(str(n))) for n in v] for k, v in dict(caps).items()}


def winner(variant: Variant, position: Position) -> str | None:
    """The power that has won: ``[victory] centres`` centres and one capital of each kingdom, else ``None``."""
    need = int(variant.victory.get("centres", 55))
    caps = _capitals(variant)
    for power in variant.power_names:
        owned = {p for p, o in position.centres.items() if o == power}
        if len(owned) >= need and all(owned & set(c) for c in caps.values()):
            return power
    return None


def draw_powers(variant: Variant, position: Position) -> list[str] | None:
    """The powers that may share a draw now, or ``None`` if no draw is possible.

    "To draw, a group of players must eliminate all players that do not control both of one country's
    potential capital cities": every power still in the game (with a unit or a centre) must hold both
    capitals of some kingdom.
    """
    caps = _capitals(variant)
    alive = [
        p
        for p in variant.power_names
        if any(u.power == p for u in position.units.values()) or p in position.centres.values()
    ]
    for power in alive:
        owned = {p for p, o in position.centres.items() if o == power}
        if not any(set(c) <= owned for c in caps.values()):
            return None
    return alive or None


register_victory(
    "w3k_capitals",
    winner,
    draw_powers,
    describe_victory=N_(
        "The winner must also hold one capital of each kingdom (England: London or York; Scotland: "
        "Edinburgh or Glasgow; Ireland: Dublin or Belfast)."
    ),
    describe_draw=N_(
        "A draw is only between kingdoms: every power still in the game must hold both capitals of one "
        "kingdom (London and York, Edinburgh and Glasgow, or Dublin and Belfast); then the survivors may agree it "
        "by unanimous vote."
    ),
)
