"""The hook points are one list: the rule hooks register behaviours under it and the variant schema declares a
``[rules]`` key for each, so a point added to one is never missing from the other."""

from __future__ import annotations

import sys

from dippouch.core import lookup, schema
from dippouch.core.rules import base


def test_the_hooks_and_the_schema_read_the_same_list_of_hook_points() -> None:
    assert base.HOOK_POINTS is lookup.HOOK_POINTS
    assert set(base._BEHAVIOURS) == set(lookup.HOOK_POINTS)
    undeclared = [p for p in lookup.HOOK_POINTS if p not in schema.RULES.fields]
    assert undeclared == []


def test_every_hook_point_is_a_method_of_the_standard_rules() -> None:
    assert [p for p in lookup.HOOK_POINTS if not callable(getattr(base.RuleHooks, p, None))] == []


def test_a_behaviour_for_an_unknown_point_names_the_known_ones() -> None:
    try:
        base.behaviour("may_sail", "x")
    except ValueError as e:
        assert "no hook point 'may_sail'" in str(e) and "may_enter" in str(e)
    else:
        raise AssertionError("an unknown hook point was accepted")


def test_the_registries_are_kept_once_in_lookup() -> None:
    """The modules that fill or read a registry share lookup's dictionaries (no copy that could drift)."""
    from dippouch.core import notation

    lookup.load_rule_modules()
    assert base._BEHAVIOURS is lookup.BEHAVIOURS
    assert base._CLASSES is lookup.HOOK_SETS
    assert base._STATE_KEYS is lookup.STATE_KEYS
    assert base.VICTORY_HOOKS is lookup.VICTORY_HOOKS
    assert vars(notation)["FORMATS"] is lookup.FORMATS
    assert "w3k" in lookup.HOOK_SETS and "w3k_seas" in lookup.MAP_HOOKS
    assert lookup.registered_names("map_hooks") == sorted(lookup.MAP_HOOKS)


def test_every_order_kind_registers_how_it_is_drawn_and_each_extra_kind_how_it_is_written() -> None:
    """The renderer draws by registered shape: an order class without a registration would not be drawn."""
    from dippouch.core.orders import Order

    lookup.load_rule_modules()
    found: list[type[Order]] = []
    todo = list(Order.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        # ``dataclass(slots=True)`` makes a new class: the one without slots is left behind, unnamed by its module.
        if cls.__module__.startswith("dippouch.") and getattr(sys.modules[cls.__module__], cls.__name__, None) is cls:
            found.append(cls)
    extra = [c for c in found if c.__module__.startswith("dippouch.core.rules")]
    assert len(found) >= 8 + 3 and extra
    assert [c.__name__ for c in found if c not in lookup.ORDER_KINDS] == []
    assert [c.__name__ for c in extra if c not in lookup.FORMATS] == []
    assert all(lookup.ORDER_KINDS[c].rule for c in extra)  # a variant's kinds come with the rule that brings them
