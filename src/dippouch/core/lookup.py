"""The core's one registry: every name a variant file may use and every plug-in a rule module adds.

Rule modules (:mod:`dippouch.core.rules`) are plug-ins: when imported they register map hooks, behaviours
for hook points, hook sets, victory and draw tests, state keys, order syntax, order formats, legal orders
and drawings of their order kinds. Each registry is a dictionary here, at the bottom of the core (this
module imports no other core module; the type checker alone reads :mod:`~dippouch.core.position`, which
imports no registry), so that the modules which read a registry (the variant builder,
the schema, notation, the rule hooks, the renderer) and the modules which fill it import only this, and
the imports keep pointing one way. The registering functions with their checks and documentation stay
with the module whose idea they belong to (:func:`dippouch.core.rules.base.behaviour`,
:func:`dippouch.core.notation.register_syntax`, :func:`register_order_kind` below...); only the storage
is here, once.

Kept out of the schema so that a command playing a variant already built (read back from
:mod:`dippouch.compiled`) does not import the schema's declarations, which only checking a file needs.

A registry whose entries take a variant or an order types them ``Any``: naming
:class:`~dippouch.core.variant.Variant` or :class:`~dippouch.core.orders.Order` here, even for the type
checker only, would make them (they read this module) and this module import each other. The registering
functions type their arguments in full (:func:`dippouch.core.rules.base.register_victory`,
:func:`dippouch.core.notation.register_format`...), so what enters a registry is checked where it enters.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dippouch.core.position import Position

__all__ = [
    "BEHAVIOURS",
    "BUILTIN_BEHAVIOURS",
    "DESCRIPTIONS",
    "DRAW_HOOKS",
    "FORMATS",
    "HOOK_POINTS",
    "HOOK_SETS",
    "MAP_HOOKS",
    "ORDER_KINDS",
    "RULE_MODULES",
    "STATE_KEYS",
    "SYNTAX",
    "UNIT_BADGES",
    "VICTORY_HOOKS",
    "Drawing",
    "OrderKind",
    "behaviour_names",
    "closest",
    "drawing_of",
    "legal_order_makers",
    "load_rule_modules",
    "register_order_kind",
    "register_unit_badge",
    "registered_names",
]


def closest(word: str, pool: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The closest name in ``pool`` (case-insensitive), for "did you mean" hints."""
    lowered = {p.lower(): p for p in pool}
    got = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[got[0]] if got else None


# ------------------------------------------------------------------------------------------------ rules

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

#: Hook point -> behaviour name -> ``fn(hooks, *args)`` (:func:`dippouch.core.rules.base.behaviour`).
BEHAVIOURS: dict[str, dict[str, Callable[..., Any]]] = {p: {} for p in HOOK_POINTS}
#: Names a hook point understands without a rule module: ``build_sites = "home"`` (the standard rule) and
#: ``"owned"`` (any owned centre).
BUILTIN_BEHAVIOURS: dict[str, tuple[str, ...]] = {"build_sites": ("home", "owned")}
#: ``[rules] hooks = "<name>"`` -> a ``RuleHooks`` subclass (:func:`dippouch.core.rules.base.register_hooks`).
HOOK_SETS: dict[str, type[Any]] = {}
#: What a registered behaviour, hook set, victory test or draw condition does, in a player's words, by
#: (point, name): the variant pages describe a variant's rules with these (never by the variant's name).
#: Points: the hook points, ``"hooks"`` (hook sets), ``"victory"`` and ``"draw"``.
DESCRIPTIONS: dict[tuple[str, str], str] = {}
#: Victory tests a variant names with ``[victory] hook = "name"``: (variant, position) -> winner or None.
VICTORY_HOOKS: dict[str, Callable[[Any, Position], str | None]] = {}
#: Draw conditions a variant names with ``[victory] draw_hook = "name"``: (variant, position) -> the powers
#: that may share a draw now, or None when no draw is possible.
DRAW_HOOKS: dict[str, Callable[[Any, Position], list[str] | None]] = {}
#: ``Position.state`` key -> ``check(variant, value) -> problem or None`` (:func:`~dippouch.core.rules.base.state_key`).
STATE_KEYS: dict[str, Callable[[Any, Any], str | None]] = {}
#: ``[variant] map_hooks = ["name"]`` -> ``fn(data) -> extra fleet edges`` (read by :mod:`dippouch.core.variant`).
MAP_HOOKS: dict[str, Callable[[Mapping[str, Any]], Iterable[tuple[str, str]]]] = {}


def behaviour_names(point: str) -> list[str]:
    """Every name ``[rules] <point>`` may take, built-in ones first (the schema and the errors list them)."""
    return [*BUILTIN_BEHAVIOURS.get(point, ()), *sorted(BEHAVIOURS.get(point, {}))]


_NAMES: dict[str, Callable[[], list[str]]] = {
    "map_hooks": lambda: sorted(MAP_HOOKS),
    "hook_sets": lambda: sorted(HOOK_SETS),
    "victory_hooks": lambda: sorted(VICTORY_HOOKS),
    "draw_hooks": lambda: sorted(DRAW_HOOKS),
}


def registered_names(registry: str) -> list[str]:
    """The names registered in ``registry`` (``map_hooks``, ``hook_sets``, ``victory_hooks``, ``draw_hooks``)
    once every rule module is loaded: what the schema checks a variant file's names against."""
    load_rule_modules()
    source = _NAMES.get(registry)
    if source is None:
        raise ValueError(f"no registry {registry!r}; known: {', '.join(sorted(_NAMES))}")
    return source()


# ------------------------------------------------------------------------------------------------ orders

#: ``[rules]`` switch -> (parser, verbs): extra order syntax (:func:`dippouch.core.notation.register_syntax`).
#: A rule may have several parsers (one per order kind), tried in the order they were registered.
SYNTAX: dict[str, list[tuple[Callable[..., Any], tuple[str, ...]]]] = {}
SYNTAX_GENERATION = [0]
"""Counts syntax registrations: a lexicon made before the latest one is made again."""
#: Order class -> ``formatter(variant, order, full) -> text`` (:func:`dippouch.core.notation.register_format`).
FORMATS: dict[type[Any], Callable[[Any, Any, bool], str]] = {}


@dataclass(frozen=True, slots=True)
class Drawing:
    """How an order is drawn, as the renderer's vocabulary of shapes says it: a description, not a picture.

    The core describes and the renderer draws, so the renderer never names an order class of a variant:
    a rule module registers, for each order kind it adds, a function from the order to a ``Drawing``
    (:func:`register_order_kind`), and the renderer keeps one drawing function per ``shape``.

    Shapes: ``"move"`` (``unit`` -> ``dest``; ``dashed``: by convoy), ``"retreat"`` (``unit`` -> ``dest``),
    ``"support"`` (``unit`` supports ``target`` to hold, or to move to ``dest``), ``"convoy"`` (``unit``
    carries ``target`` to ``dest``), ``"hold"``, ``"remove"`` and ``"ring"`` (a mark around ``unit``),
    ``"build"`` (a new unit of ``kind`` at ``unit``), ``"hand_over"`` (``unit`` handed to ``power``), and
    ``"note"`` (no mark: ``text`` under the legend, with the ordering power's name before it).
    """

    shape: str
    css: str
    """The class of the order's SVG group (what pages and tests select)."""
    unit: int | None = None
    """The ordered unit's location id (a build's location)."""
    target: int | None = None
    dest: int | None = None
    kind: str | None = None
    power: str | None = None
    text: str = ""
    dashed: bool = False
    dislodged: bool = False
    """In a retreat phase the ordered unit is a dislodged one, drawn beside its province."""


@dataclass(frozen=True, slots=True)
class OrderKind:
    """What a rule module registers for one order class beyond the standard ones."""

    cls: type[Any]
    rule: str | None
    """The ``[rules]`` switch that brings the kind into a variant (``w3k_orders``), or None."""
    draw: Callable[[Any], Drawing | None]
    key: tuple[str, str] | None = None
    """(label, shape) of the sample the map's key shows when the rule is on, or None."""
    legal: Callable[..., None] | None = None
    """``legal(hooks, position, power, orders, standard)``: add the kind's legal orders to ``power``'s lists
    (``orders``, changed in place), as :meth:`RuleHooks.extra_legal_orders` is asked; None: none are listed."""


#: Order class -> its drawing and key sample, the standard orders' included (:mod:`dippouch.core.orders`).
ORDER_KINDS: dict[type[Any], OrderKind] = {}


def register_order_kind(
    cls: type[Any],
    draw: Callable[[Any], Drawing | None],
    *,
    rule: str | None = None,
    key: tuple[str, str] | None = None,
    legal: Callable[..., None] | None = None,
) -> None:
    """Register how orders of ``cls`` are drawn (``None``: not drawn), the key's sample for them, and (for a
    variant's own kind) how its legal orders are listed. Kinds are kept in registration order, which is the
    order their legal orders are added to a unit's list and their samples shown in the key."""
    ORDER_KINDS[cls] = OrderKind(cls, rule, draw, key, legal)


def legal_order_makers(rules: Mapping[str, Any]) -> list[Callable[..., None]]:
    """The legal-order makers of the order kinds a variant's ``[rules]`` bring in, in registration order."""
    return [k.legal for k in ORDER_KINDS.values() if k.legal is not None and k.rule is not None and rules.get(k.rule)]


def drawing_of(order: object) -> Drawing | None:
    """How ``order`` is drawn: by its class's registration (a subclass uses its nearest registered base)."""
    for cls in type(order).__mro__:
        kind = ORDER_KINDS.get(cls)
        if kind is not None:
            return kind.draw(order)
    return None


#: Marks beside units that a variant's state asks for: ``fn(variant, position) -> province abbreviation ->
#: (CSS class, letter)`` (W3K's conversions under way). The renderer draws each as a small lettered disc.
UNIT_BADGES: list[Callable[[Any, Position], Mapping[str, tuple[str, str]]]] = []


def register_unit_badge(fn: Callable[[Any, Position], Mapping[str, tuple[str, str]]]) -> None:
    UNIT_BADGES.append(fn)


# ------------------------------------------------------------------------------------------------ loading

RULE_MODULES = "dippouch.core.rules"
"""The package of variant rule modules: each registers, when imported, the map hooks, rule hooks, order
syntax, formats, drawings, victory tests and state keys that variant files name (``map_hooks =
["w3k_seas"]``, ``[rules] hooks = "w3k"``)."""


def load_rule_modules() -> None:
    """Import the variant rule modules (once; later calls cost a dictionary look-up). The one way they are loaded.

    The rule modules are plugins: they import the core (hooks, notation, variants) to register what they
    provide, and no core module imports them. They are loaded here by name, as a plugin host loads its
    plugins, before a variant is built, its file checked or a game's victory judged, so that every registry is
    complete when it is read, and the core's imports only point down (tests/project/test_import_layers.py).
    """
    importlib.import_module(RULE_MODULES)
