"""Small builders shared by the tests: positions written as unit texts, so a test reads like a board."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase
from dippouch.core.position import Position, Unit
from dippouch.core.results import Resolution
from dippouch.core.variant import Variant


def prov(v: Variant, name: str) -> int:
    """Province id of an abbreviation, name, alias or coast."""
    return v.map.province_of(v.map.loc(name))


def place(v: Variant, units: Mapping[str, Iterable[str]]) -> dict[int, Unit]:
    """Units from texts per power: ``{"England": ["F lon", "A yor"], "Russia": ["F stp/sc"]}``."""
    placed: dict[int, Unit] = {}
    for power, texts in units.items():
        for text in texts:
            kind, where = text.split()
            loc = v.map.loc(where)
            placed[v.map.province_of(loc)] = Unit(power, kind, loc)
    return placed


def owned(v: Variant, centres: Mapping[str, Iterable[str]] | None) -> dict[int, str]:
    """Centre ownership from province names per power."""
    return {prov(v, c): power for power, cs in (centres or {}).items() for c in cs}


def board(
    v: Variant,
    phase: Phase | str,
    units: Mapping[str, Iterable[str]],
    centres: Mapping[str, Iterable[str]] | None = None,
    *,
    homes: Mapping[str, frozenset[int]] | None = None,
    state: Mapping[str, object] | None = None,
) -> Position:
    """A position; ``phase`` is a Phase or a phase name; homes default to the variant's start."""
    when = v.calendar.parse(phase) if isinstance(phase, str) else phase
    return Position(
        when,
        place(v, units),
        owned(v, centres),
        dict(v.start.homes if homes is None else homes),
        state=dict(state or {}),
    )


# --- driving `dippouch adjudicate` (the JSON Lines contract) in-process ------------------------------


def adjudicate_lines(*requests: Any) -> list[dict[str, Any]]:
    """Send requests (objects, or raw strings sent as they are) and return the parsed response lines."""
    from typer.testing import CliRunner

    import dippouch.cli.adjudicate  # noqa: F401  (registers the command)
    from dippouch.cli import app

    lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
    result = CliRunner().invoke(app, ["adjudicate"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def adjudicate_one(request: Any) -> dict[str, Any]:
    """One request that must succeed; its response."""
    (response,) = adjudicate_lines(request)
    assert "error" not in response, response
    return response


def results_by_input(response: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A response's results keyed by the order text as submitted (automatic orders left out)."""
    return {r["input"]: r for r in response["results"] if r["input"] is not None}


def standard_with_hooks(directory: Path, hooks: str) -> Variant:
    """The standard variant with its ``[rules] hooks`` set to a registered test hook set: the same rules by
    another path (a hook overridden with the standard behaviour switches the fast paths off)."""
    name = f"standard_{hooks}"
    path = directory / f"{name}.toml"
    path.write_text(
        f'[variant]\nextends = "standard"\nname = "{name}"\n\n[rules]\nhooks = "{hooks}"\n', encoding="utf-8"
    )
    return load_variant(str(path))


def canonical(res: Resolution) -> tuple[Any, ...]:
    """Everything a phase's resolution says, in a form two resolutions can be compared by (reasons as text)."""
    nxt = res.next
    return (
        [(r.power, r.order, r.result, r.dislodged, r.destroyed, r.automatic, r.reason, r.index) for r in res.results],
        nxt.phase,
        dict(nxt.units),
        dict(nxt.centres),
        {p: (d.unit, d.retreats, d.attacker_from) for p, d in nxt.dislodged.items()},
    )


def comparable_game_file(data: dict[str, Any]) -> dict[str, Any]:
    """A game file without the database's own ids: phase and submission ids go, and a carried submission
    names the one it was carried from by (branch, seq, power, version), which survives an import."""
    where = {
        sub["id"]: (p["branch"], p["seq"], sub["power"], sub["version"])
        for p in data["phases"]
        for sub in p.get("submissions", [])
    }
    phases = []
    for p in data["phases"]:
        subs = [
            {
                **{k: v for k, v in sub.items() if k not in ("id", "carried_from")},
                "carried_from": where.get(sub.get("carried_from")),
            }
            for sub in p.get("submissions", [])
        ]
        phases.append({**{k: v for k, v in p.items() if k != "id"}, "submissions": subs})
    return {**data, "phases": phases}
