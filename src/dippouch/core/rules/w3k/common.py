"""What W3K's order kinds share: the state keys they keep, reading a power's name, checking state values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.core.notation import OrderReader

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

PROXIES = "w3k_proxies"
"""``Position.state`` key: province abbreviation -> the power a unit is handed to this season."""
SUPPLY = "w3k_supply"
"""``Position.state`` key: power -> units' supply received (or, negative, sent) this Winter."""
CONVERTING = "w3k_converting"
"""``Position.state`` key: province abbreviation -> the unit type converting (by abbreviation, so a saved
game survives a corrected map)."""
ORDERS_RULE = "w3k_orders"
"""The ``[rules]`` switch that brings W3K's order kinds into a variant."""

WORD = {"A": "army", "F": "fleet"}
A = {"A": "an army", "F": "a fleet"}
FLIP = {"A": "F", "F": "A"}


def power_name(r: OrderReader) -> str:
    """The rest of the order as a power name (``Player Manchester``, ``the Crown``, ``Irish Confederacy``)."""
    r.accept(("player", "the"))
    words = r.raw[r.pos :]
    text = " ".join(w for w in words if w not in (".", ";", ","))
    if not text:
        raise r.fail(msg("name the power, e.g. 'to Manchester'"), token="")
    try:
        name = r.variant.power(text).name
    except KeyError as e:
        raise r.fail(e.msg if isinstance(e, DippouchError) else msg(str(e.args[0])), token=text) from None
    r.pos = len(r.words)
    return name


def without(state: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != key}


def province_key(variant: Variant, kinds: tuple[str, ...]) -> Callable[[str], str | None]:
    def ok(abbr: str) -> str | None:
        try:
            prov = variant.map.province(abbr)
        except KeyError:
            return "no such province"
        return None if prov.kind.value in kinds else f"not a {' or '.join(kinds)} province"

    return ok


def power_key(variant: Variant) -> Callable[[str], str | None]:
    return lambda name: None if name in variant.power_names else f"not a power ({', '.join(variant.power_names)})"
