"""A variant's rules in a few sentences, written from its data (calendar, victory, rule switches).

Only words: the rules themselves live in the variant file and the core's hooks. A switch this module
does not know is listed by name rather than left out, so a new variant never shows a wrong summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.rules.base import HOOK_POINTS, description
from dippouch.core.variant import Variant

__all__ = ["rules_summary"]

_RULE_WORDS: dict[str, str] = {
    "build_sites=owned": "Builds may be made in any vacant supply centre the power owns, not only home centres.",
    "proxy_orders": "A power may hand a unit to another power for one season (a proxy order); the other power then orders it.",
    "supply_transfer": "In winter a power may send the supply of units to another power, which may then build beyond its own count.",
    "w3k_orders": "Armies on the coast may convert to fleets and back (Convert), taking a season.",
    "moves_as": "Some units move as another kind: {value}.",
    "unit_strength": "Units of special strength: {value}.",
    "unit_costs": "Some units cost more than one centre to keep: {value}.",
    "unit_limits": "Limits per power on special units: {value}.",
    "extra_build_centres": "Further centres where a power may build while it owns them: {value}.",
}

_SKIP = {
    "unit_names",
    "opening_builds",
    "homes_from_owned_year",
    "opening_sites",
    "early_build_sites",
    "homeland_kinds",
}


def _victory(victory: Mapping[str, Any]) -> str:
    by_power = victory.get("by_power")
    parts = []
    if isinstance(by_power, Mapping):
        targets: dict[Any, list[str]] = {}
        for power, n in by_power.items():
            targets.setdefault(n, []).append(str(power))
        parts.append(
            "A power wins on reaching its own target: "
            + "; ".join(f"{n} centres ({', '.join(ps)})" for n, ps in sorted(targets.items(), key=str))
            + "."
        )
    elif "centres" in victory:
        parts.append(f"A power wins with {victory['centres']} supply centres.")
    hook = victory.get("hook")
    if hook:
        parts.append(description("victory", str(hook)) or f"Victory has a further condition ({hook}).")
    if victory.get("remaining"):
        parts.append(f"The game also ends when only {victory['remaining']} powers remain; they rank by size.")
    draw_hook = victory.get("draw_hook")
    if not victory.get("draws", True):
        parts.append("Draws are not allowed.")
    elif draw_hook:
        parts.append(description("draw", str(draw_hook)) or f"A draw has a further condition ({draw_hook}).")
    elif victory.get("draws", True):
        parts.append("The surviving powers may agree a draw by unanimous vote.")
    return " ".join(parts)


def _listed(value: Any) -> str:
    return ", ".join(str(x) for x in value) if isinstance(value, list) else str(value)


def rules_summary(v: Variant) -> list[str]:
    cal = v.calendar
    steps = ", ".join(
        " ".join(x for x in (s.season, s.kind.label) if x) + (f" (+{s.offset} years)" if s.offset else "")
        for s in cal.steps
    )
    lines = [
        v.description,
        f"{len(v.powers)} powers, {len(v.map.supply_centres)} supply centres. The game starts in "
        f"{cal.name(v.start.phase)}; each {'year' if cal.cycle_years == 1 else f'{cal.cycle_years}-year turn'} "
        f"runs {steps}.",
        _victory(v.victory),
    ]
    if cal.last_year:
        lines.append(f"The game ends after {cal.last_year}.")
    if not any(s.kind == PhaseKind.ADJUSTMENTS for s in cal.steps):
        lines.append("There are no adjustment phases.")
    for key, value in v.rules.items():
        if key in _SKIP:
            continue
        text = _RULE_WORDS.get(f"{key}={value}") or _RULE_WORDS.get(key)
        if text is None and key == "hooks":
            text = description("hooks", str(value)) or f"Special rule: the {value} rules."
        if text is None and key in HOOK_POINTS:
            # A named behaviour (or several, for phase_end) says in its own registration what it does.
            names = value if isinstance(value, list) else [value]
            lines += [description(key, str(n)) or f"Special rule: {key} = {n}." for n in names]
        elif text is None:
            lines.append(f"Special rule: {key} = {value}.")
        else:
            shown = ", ".join(f"{k}: {_listed(x)}" for k, x in value.items()) if isinstance(value, Mapping) else value
            lines.append(text.format(value=shown))
    # One rule carried out by several hooks (1000 AD's anarchy) is said once.
    return list(dict.fromkeys(ln for ln in lines if ln))
