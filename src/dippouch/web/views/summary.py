"""A variant's rules in a few sentences, written from its data (calendar, victory, rule switches).

Only words: the rules themselves live in the variant file and the core's hooks. A switch this module
does not know is listed by name rather than left out, so a new variant never shows a wrong summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import N_, Arg, Msg, PhaseName, joined, msg, sentences
from dippouch.core.rules.base import HOOK_POINTS, description
from dippouch.core.variant import Variant

__all__ = ["I18N_DOMAIN", "rules_summary"]

I18N_DOMAIN = "rules"
"""The catalogue of the summary's sentences (said where the page shows them)."""

_RULE_WORDS: dict[str, str] = {
    "build_sites=owned": N_("Builds may be made in any vacant supply centre the power owns, not only home centres."),
    "proxy_orders": N_(
        "A power may hand a unit to another power for one season (a proxy order); the other power then orders it."
    ),
    "supply_transfer": N_(
        "In winter a power may send the supply of units to another power, which may then build beyond its own count."
    ),
    "w3k_orders": N_("Armies on the coast may convert to fleets and back (Convert), taking a season."),
    "moves_as": N_("Some units move as another kind: %(value)s."),
    "unit_strength": N_("Units of special strength: %(value)s."),
    "unit_costs": N_("Some units cost more than one centre to keep: %(value)s."),
    "unit_limits": N_("Limits per power on special units: %(value)s."),
    "extra_build_centres": N_("Further centres where a power may build while it owns them: %(value)s."),
}
"""A rule switch in words (``key=value`` before ``key``): message templates, their ``%(value)s`` the switch's value."""

_SKIP = {
    "unit_names",
    "opening_builds",
    "homes_from_owned_year",
    "opening_sites",
    "early_build_sites",
    "homeland_kinds",
}


def _listed(items: Sequence[Arg]) -> Arg:
    """Items said one after the other, separated by commas, as the calendar's steps are listed."""
    if not items:
        return ""
    out: Arg = items[0]
    for item in items[1:]:
        out = msg("%(first)s, %(then)s", first=out, then=item)
    return out


def _described(point: str, name: str) -> Msg | None:
    """The words a behaviour registered (marked for the catalogue where it is registered), as a message."""
    words = description(point, name)
    return Msg(words) if words else None


def _victory(victory: Mapping[str, Any]) -> list[Msg]:
    by_power = victory.get("by_power")
    parts: list[Msg] = []
    if isinstance(by_power, Mapping):
        targets: dict[Any, list[str]] = {}
        for power, n in by_power.items():
            targets.setdefault(n, []).append(str(power))
        each = [
            msg("%(num)s centres (%(powers)s)", num=n, powers=", ".join(ps))
            for n, ps in sorted(targets.items(), key=str)
        ]
        parts.append(msg("A power wins on reaching its own target: %(targets)s.", targets=joined(*each) or ""))
    elif "centres" in victory:
        parts.append(msg("A power wins with %(num)s supply centres.", num=victory["centres"]))
    hook = victory.get("hook")
    if hook:
        parts.append(_described("victory", str(hook)) or msg("Victory has a further condition (%(hook)s).", hook=hook))
    if victory.get("remaining"):
        parts.append(
            msg("The game also ends when only %(num)s powers remain; they rank by size.", num=victory["remaining"])
        )
    draw_hook = victory.get("draw_hook")
    if not victory.get("draws", True):
        parts.append(msg("Draws are not allowed."))
    elif draw_hook:
        parts.append(
            _described("draw", str(draw_hook)) or msg("A draw has a further condition (%(hook)s).", hook=draw_hook)
        )
    elif victory.get("draws", True):
        parts.append(msg("The surviving powers may agree a draw by unanimous vote."))
    return parts


def _value(value: Any) -> str:
    return ", ".join(str(x) for x in value) if isinstance(value, list) else str(value)


def rules_summary(v: Variant) -> list[Msg | str]:
    """The variant's rules in a few sentences: its own description as its file writes it, then message values
    said in the reader's language where they are shown."""
    cal = v.calendar
    steps: list[Arg] = []
    for step in cal.steps:
        named: Arg = PhaseName(" ".join(x for x in (step.season, step.kind.label) if x))
        steps.append(msg("%(step)s (+%(years)s years)", step=named, years=step.offset) if step.offset else named)
    counted = msg(
        "%(powers)s powers, %(centres)s supply centres.", powers=len(v.powers), centres=len(v.map.supply_centres)
    )
    start = PhaseName(cal.name(v.start.phase))
    if cal.cycle_years == 1:
        runs = msg("The game starts in %(start)s; each year runs %(steps)s.", start=start, steps=_listed(steps))
    else:
        runs = msg(
            "The game starts in %(start)s; each %(years)s-year turn runs %(steps)s.",
            start=start,
            years=cal.cycle_years,
            steps=_listed(steps),
        )
    lines: list[Msg | str] = [v.description, sentences(counted, runs)]
    victory = _victory(v.victory)
    if victory:
        lines.append(sentences(*victory))
    if cal.last_year:
        lines.append(msg("The game ends after %(year)s.", year=cal.last_year))
    if not any(s.kind == PhaseKind.ADJUSTMENTS for s in cal.steps):
        lines.append(msg("There are no adjustment phases."))
    for key, value in v.rules.items():
        if key in _SKIP:
            continue
        template = _RULE_WORDS.get(f"{key}={value}") or _RULE_WORDS.get(key)
        if template is None and key == "hooks":
            lines.append(_described("hooks", str(value)) or msg("Special rule: the %(hooks)s rules.", hooks=value))
        elif template is None and key in HOOK_POINTS:
            # A named behaviour (or several, for phase_end) says in its own registration what it does.
            names = value if isinstance(value, list) else [value]
            lines += [
                _described(key, str(n)) or msg("Special rule: %(key)s = %(value)s.", key=key, value=n) for n in names
            ]
        elif template is None:
            lines.append(msg("Special rule: %(key)s = %(value)s.", key=key, value=_value(value)))
        elif "%(value)s" in template:
            shown = ", ".join(f"{k}: {_value(x)}" for k, x in value.items()) if isinstance(value, Mapping) else value
            lines.append(Msg(template, {"value": str(shown)}))
        else:
            lines.append(Msg(template))
    # One rule carried out by several hooks (1000 AD's anarchy) is said once.
    return list(dict.fromkeys(ln for ln in lines if ln))
