"""Which variants the heavy per-variant tests run over: dippouch's own, and one of the shelf.

The shelf (src/dippouch/variants/shelf) holds some thirty variants imported from DPjudge. Drawing, playing
random games and checking the legal-order lists of each in every test file that runs over variants would
multiply those files' time by six; tests/variants/test_shelf.py checks every shelf variant at once instead
(loads, passes the check, drawing current), and each heavy file takes its own shelf sample, a different one
per file so that together they cover many kinds of map. ``DIPPOUCH_TEST_SHELF=all`` runs them over every
variant (before changing the importer, the renderer or the shelf).

Imported by bare name (``from test_shelf_sample import heavy_variants``): pytest puts tests/ on the path.
"""

from __future__ import annotations

import os

import pytest

from dippouch.catalog import shelf_names, variant_names

__all__ = ["heavy_variants"]

ALL = "DIPPOUCH_TEST_SHELF"


def heavy_variants(sample: str) -> list[str]:
    """Every variant but the shelf's, and the shelf variant ``sample``; every variant when
    ``DIPPOUCH_TEST_SHELF=all``. A sample that is not on the shelf is an error, not a silent skip."""
    names = variant_names()
    shelf = set(shelf_names())
    if os.environ.get(ALL, "").lower() == "all":
        return names
    if sample not in shelf:
        raise ValueError(f"{sample!r} is not a shelf variant; choose one of {', '.join(sorted(shelf))}")
    return [n for n in names if n not in shelf] + [sample]


def test_heavy_variants_are_dippouchs_own_and_one_of_the_shelf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALL, raising=False)
    got = heavy_variants("ancmed")
    assert {"standard", "1897", "1000ad", "hundred", "hundred3", "w3k"} <= set(got)
    assert [n for n in got if n in set(shelf_names())] == ["ancmed"]
    with pytest.raises(ValueError, match="not a shelf variant"):
        heavy_variants("standard")
    monkeypatch.setenv(ALL, "all")
    assert heavy_variants("ancmed") == variant_names()
