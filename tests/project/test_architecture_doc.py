"""docs/architecture.md's floors are the measured ones: each room drawn on the floor the import graph puts it
(one above the highest room it imports, every import counted, TYPE_CHECKING ones too). A room that gains an
import upward moves, and the page must say so."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from test_import_layers import _room, typed_graph

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
NAMES_END = 40
"""The chart's column where the rooms end and their description begins."""


def measured() -> dict[str, int]:
    rooms: dict[str, set[str]] = {}
    for name, deps in typed_graph().items():
        r = _room(name)
        rooms.setdefault(r, set()).update(_room(m) for m in deps if _room(m) not in ("", r))
    rooms.pop("", None)

    @cache
    def floor(r: str) -> int:
        return 1 + max((floor(d) for d in rooms.get(r, ())), default=0)

    return {r: floor(r) for r in rooms}


def drawn() -> dict[str, int]:
    text = DOC.read_text(encoding="utf-8")
    chart = text.split("```", 2)[1]
    out: dict[str, int] = {}
    level = 0
    for line in chart.splitlines():
        if m := re.match(r"(\d+)\s", line):
            level = int(m.group(1))
        for name in re.findall(r"([a-z_][a-z0-9_]*)(?:/|\.py)", line[:NAMES_END]):
            out[name] = level
    return out


def test_the_chart_draws_every_room_on_its_measured_floor() -> None:
    got, want = drawn(), measured()
    assert got == want, {
        "drawn but not measured so": {r: got.get(r) for r in got if got.get(r) != want.get(r)},
        "measured": {r: want.get(r) for r in set(got) | set(want) if got.get(r) != want.get(r)},
    }


def test_the_reader_finds_the_chart() -> None:
    got = drawn()
    assert got["core"] == 1 and got["cli"] == max(got.values()) and len(got) >= 20
