"""The standard map's fast loops, behind the readable code they must agree with.

The readable resolver and legal-order generator (:mod:`dippouch.core.movement`,
:mod:`dippouch.core.legal_orders`) are the front door: every rule is written there once, every hook asked.
Under the standard rules the same answers come from the map alone, and the hot paths of a server, a bot or
the benchmark take them from here instead:

- :mod:`.movement`: a movement phase's standard orders settled inline (what ``_Judge.general`` would
  accept, accepted without the general judgement);
- :mod:`.legal_orders`: a position's legal orders joined from per-map and per-group caches.
- :mod:`.decisions`: the types the readable resolver and the fast loop share (so neither imports the other
  for them).

Each is held to its readable twin by agreement tests: tests/core/test_movement_paths_agree.py,
tests/core/test_adjustment_paths_agree.py, tests/core/test_legal.py (the fast and general listings),
tests/core/test_legal_vs_adjudicator.py and the DATC cases, which run both ways.
"""
