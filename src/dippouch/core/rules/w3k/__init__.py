"""Wars of the Three Kingdoms (W3K): sea areas, conversion, proxy orders, supply transfer, lots, victory.

Everything here is selected by data in ``w3k.toml`` (``[variant] map_hooks = ["w3k_seas"]`` and the
``[rules]`` table), never by the variant's name, so a corrected or derived map keeps working.

Sea movement
    The rulebook groups sea regions into Sea Areas (after the BBC Shipping Forecast): one Primary Sea
    Region and some Local Sea Regions each. The map file says only which area a sea region belongs to and
    what it touches directly (``borders``); :func:`derive_sea_edges` applies the rulebook's two rules to
    produce every fleet move at sea. Keeping the rules in code and the geography in data means a
    correction to one border updates every move that follows from it, which hand-written lists would not.

The package has a module per idea: :mod:`.seas` (sea movement), one module per order kind (:mod:`.convert`,
:mod:`.hand_over`, :mod:`.transfer`), each registering its parsing, formatting, legal orders and drawing,
:mod:`.hooks` (the ``w3k`` hook set joining them to the adjudicator) and :mod:`.victory`.

Rules (the ``w3k`` hook set, ``[rules] hooks = "w3k"``)
    * Convert: a unit in a coastal centre its power owns, ordered to convert in two consecutive movement
      seasons, becomes the other type at the end of the second. Meanwhile it holds (the adjudicator's
      default stand-in), gives no support and may be supported; any attack on it disrupts the conversion.
      Conversions under way live in ``Position.state["w3k_converting"]`` (province abbreviation ->
      the unit type converting), by abbreviation so a saved game survives a corrected map.
    * Proxy orders: the owner's order hands a unit to another power for this season only; only that
      power's order for it counts. Decided before the phase is resolved (:meth:`W3KHooks.prepare_orders`).
    * Supply transfer in Winter: "Send 2 units' supply to Manchester" moves build allowance from the
      sender to the recipient before any builds are judged; builds are then honoured in the order listed.
      A power may not list both builds and removals; removals owed and not ordered are drawn by lots from
      the ``rng`` the caller passes in, and the draw is written into each removal's reason.
    * Mercy position: a power with no centres keeps one unit (it owes removals only beyond one).
    * Victory and draws: :func:`winner` and :func:`draw_powers`, pure functions of a position.
"""

from __future__ import annotations

from dippouch.core.rules.w3k.convert import Convert
from dippouch.core.rules.w3k.hand_over import Proxy
from dippouch.core.rules.w3k.hooks import W3KHooks

# The order kinds register in import order (convert, hand_over, then transfer through hooks), which is the
# order the map key shows their samples and messages list their verbs in.
from dippouch.core.rules.w3k.seas import SeaAreas, derive_sea_edges, sea_areas
from dippouch.core.rules.w3k.transfer import SendSupply
from dippouch.core.rules.w3k.victory import draw_powers, winner

__all__ = [
    "Convert",
    "Proxy",
    "SeaAreas",
    "SendSupply",
    "W3KHooks",
    "derive_sea_edges",
    "draw_powers",
    "sea_areas",
    "winner",
]
