"""A standard board one order from a solo, for the ratings' tests (tests/play/rated_games.py) and their
benchmark (benchmarks/bench_ratings.py, which seeds its finished games from it)."""

from __future__ import annotations

from typing import Any

from dippouch.catalog import load_variant
from dippouch.game import position_to_data


def solo_board() -> dict[str, Any]:
    """Fall 1901, France holding 18 centres (England's and Germany's, whose units are gone, and neutrals)."""
    v = load_variant("standard")
    data = position_to_data(v, v.start)
    taken = {"lon", "lvp", "edi", "ber", "kie", "mun", "spa", "por", "bel", "hol", "den", "nwy", "swe", "tun", "gre"}
    centres: dict[str, list[str]] = {"France": sorted(taken)}
    for power, provs in data["supply_centers"].items():
        centres.setdefault(power, []).extend(p for p in provs if p not in taken)
    centres = {p: c for p, c in centres.items() if c}
    units = [u for u in data["units"] if u["power"] not in ("England", "Germany")]
    return {**data, "phase": "Fall 1901 Movement", "supply_centers": centres, "units": units}
