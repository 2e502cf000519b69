"""The bots' one door to the engine: every core name the bots use is imported here and nowhere else.

Bots choose only from the engine's own legal orders (:func:`legal_orders`, the one truth per rule), count
builds with the variant's own adjustment rule (:func:`adjustment_delta`) and look ahead with the real
adjudicator. Keeping the imports in one module means a rename in the core is an edit of these lines alone.
"""

from __future__ import annotations

from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.jsonio import position_to_json
from dippouch.core.legal_orders import all_legal_orders, legal_orders, prepare
from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.notation import format_order, parse_order
from dippouch.core.order_checks import check_submission
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome, Resolution
from dippouch.core.rules.base import RuleHooks, hooks_for
from dippouch.core.variant import Variant
from dippouch.game import adjustment_delta, game_end, powers_to_act

__all__ = [
    "Build",
    "Convoy",
    "DippouchError",
    "Disband",
    "GameMap",
    "Hold",
    "Move",
    "Order",
    "OrderResult",
    "Outcome",
    "PhaseKind",
    "Position",
    "ProvinceKind",
    "Resolution",
    "Retreat",
    "RuleHooks",
    "Support",
    "Unit",
    "Variant",
    "Waive",
    "adjudicate",
    "adjustment_delta",
    "all_legal_orders",
    "check_submission",
    "format_order",
    "game_end",
    "hooks_for",
    "legal_orders",
    "parse_order",
    "position_to_json",
    "powers_to_act",
    "prepare",
]
