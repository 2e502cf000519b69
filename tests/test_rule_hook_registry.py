"""The hook points are one list: the rule hooks register behaviours under it and the variant schema declares a
``[rules]`` key for each, so a point added to one is never missing from the other."""

from __future__ import annotations

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
