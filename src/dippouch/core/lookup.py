"""What the variant loader and the variant file checker (:mod:`dippouch.core.schema`) both need at once.

Kept out of the schema so that a command playing a variant already built (read back from
:mod:`dippouch.compiled`) does not import the schema's declarations, which only checking a file needs.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Sequence

__all__ = ["BEHAVIOUR_SOURCE", "HOOK_POINTS", "NAME_SOURCES", "RULE_MODULES", "closest", "load_rule_modules"]

#: Names from the core's registries, provided by the modules that own them (``core.variant``: map hooks;
#: ``core.rules.base``: hook sets, victory and draw hooks, and the behaviours of each hook point), so that
#: the schema imports none of them and the core's imports keep pointing one way.
NAME_SOURCES: dict[str, Callable[[], list[str]]] = {}
BEHAVIOUR_SOURCE: list[Callable[[str], list[str]]] = []


def closest(word: str, pool: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The closest name in ``pool`` (case-insensitive), for "did you mean" hints."""
    lowered = {p.lower(): p for p in pool}
    got = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[got[0]] if got else None


#: Hook points a ``[rules]`` key may name a behaviour for (the :class:`~dippouch.core.rules.base.RuleHooks`
#: method of the same name is replaced). The one list: the hooks (:mod:`dippouch.core.rules.base`) register
#: behaviours under these names and the schema (:mod:`dippouch.core.schema`) declares a ``[rules]`` key for each.
HOOK_POINTS = (
    "prepare_orders",
    "orders_refused",
    "may_order",
    "movement_kind",
    "may_enter",
    "may_support",
    "unit_strength",
    "support_left",
    "cuts_support",
    "stand_in_order",
    "extra_order_result",
    "adjustment_delta",
    "unit_cost",
    "build_sites",
    "may_build_kind",
    "adjustment_order",
    "removal_order",
    "phase_end",
)

RULE_MODULES = "dippouch.core.rules"
"""The package of variant rule modules: each registers, when imported, the map hooks, rule hooks, order
syntax, formats, victory tests and state keys that variant files name (``map_hooks = ["w3k_seas"]``,
``[rules] hooks = "w3k"``)."""


def load_rule_modules() -> None:
    """Import the variant rule modules (once; later calls cost a dictionary look-up). The one way they are loaded.

    The rule modules are plugins: they import the core (hooks, notation, variants) to register what they
    provide, and no core module imports them. They are loaded here by name, as a plugin host loads its
    plugins, before a variant is built, its file checked or a game's victory judged, so that every registry is
    complete when it is read, and the core's imports only point down (tests/test_import_layers.py).
    """
    importlib.import_module(RULE_MODULES)
