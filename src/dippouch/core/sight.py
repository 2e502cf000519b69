"""Fog of war: what one power sees of a position.

A fog-of-war game (any variant, :attr:`dippouch.game.GameSettings.fog`) is adjudicated as any other; only what
each door shows a power is narrowed. The rule follows the fog games of the web judges: a power sees

* every province one of its units stands in (a dislodged unit still stands where it was attacked), and every
  province that unit could move to by the map's adjacency for its kind (a fleet by sea and along its coast, an
  army over land: a fleet in Spain's south coast sees the Gulf of Lyon, not Gascony);
* every supply centre it owns, and the provinces next to it by land or sea (a centre's garrison watches its
  borders whichever way an enemy comes);
* in those provinces, the units standing there and who owns the centre.

Nothing else: a unit not next to anything of the power is never seen, whatever it does. The rule is pure and
cheap (a union of adjacency sets); it runs at the doors, never in the adjudicator.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dippouch.core.mapdata import GameMap
from dippouch.core.position import Dislodged, Position, Unit
from dippouch.core.variant import Variant

__all__ = ["Sight", "sight", "sight_of", "veil"]


@dataclass(frozen=True, slots=True)
class Sight:
    """What some powers see of one position (one power's, or the union of a player's seats)."""

    powers: frozenset[str]
    provinces: frozenset[int]
    """Province ids seen."""
    units: Mapping[int, Unit]
    """Province id -> the unit seen standing there."""
    dislodged: Mapping[int, Dislodged]
    """Province id -> the dislodged unit seen there, waiting to retreat."""
    centres: Mapping[int, str]
    """Supply-centre province id -> its owner, for the centres seen (unowned centres absent, as in a position)."""

    def sees(self, province: int) -> bool:
        return province in self.provinces


def _unit_view(gmap: GameMap, unit: Unit) -> set[int]:
    """The provinces a unit sees: its own, and where it could move. A fleet's reach is its location's (coasts
    matter); every other kind (armies, 1000 AD's defensive armies) sees over land."""
    prov = gmap.province_of(unit.loc)
    seen = {prov}
    if unit.kind == "F":
        seen.update(gmap.fleet_reach[unit.loc])
    else:
        seen.update(gmap.army_adj[prov])
    return seen


def _centre_view(gmap: GameMap, province: int) -> set[int]:
    """A centre and its neighbours by land or by sea (from any of its coasts)."""
    seen = {province}
    seen.update(gmap.army_adj[province])
    for loc in gmap.fleet_locations(province):
        seen.update(gmap.fleet_reach[loc])
    return seen


def sight_of(variant: Variant, position: Position, powers: Iterable[str]) -> Sight:
    """What ``powers`` together see of ``position`` (a person playing two seats sees with both)."""
    who = frozenset(powers)
    gmap = variant.map
    seen: set[int] = set()
    for unit in position.units.values():
        if unit.power in who:
            seen |= _unit_view(gmap, unit)
    for d in position.dislodged.values():
        if d.unit.power in who:
            seen |= _unit_view(gmap, d.unit)
    for prov, owner in position.centres.items():
        if owner in who:
            seen |= _centre_view(gmap, prov)
    return Sight(
        powers=who,
        provinces=frozenset(seen),
        units={p: u for p, u in position.units.items() if p in seen},
        dislodged={p: d for p, d in position.dislodged.items() if p in seen},
        centres={p: o for p, o in position.centres.items() if p in seen},
    )


def sight(variant: Variant, position: Position, power: str) -> Sight:
    """What ``power`` sees of ``position``."""
    return sight_of(variant, position, (power,))


def veil(position: Position, seen: Sight) -> Position:
    """``position`` with only what ``seen`` shows: the units and centre owners outside it taken away, so a
    renderer or a writer of the position cannot show them by mistake. The phase, the homes (the variant's
    own data, known to all) and the variant's state are kept."""
    return position.with_(units=dict(seen.units), dislodged=dict(seen.dislodged), centres=dict(seen.centres))
