"""The Judge-style plain-text results of one phase, as a coordinator mails them to the players.

Plain text on purpose: it goes into e-mail, gets printed, photographed and posted (the W3K way), and must
read the same everywhere. Layout follows the old Diplomacy Judge: each power's orders with the result of
anything that did not simply succeed, then dislodgements with retreat options, centre ownership and its
changes, adjustments, and the next deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.game import Settings, adjustment_delta, as_utc, position_from_data

__all__ = ["phase_report"]

_SILENT = {"succeeds", "given", "available", "stands"}


def _result_note(r: Mapping[str, Any]) -> str:
    notes = []
    if r["result"] not in _SILENT:
        notes.append(str(r["result"]))
    if r.get("destroyed"):
        notes.append("destroyed")
    elif r.get("dislodged") and r["result"] != "dislodged":
        notes.append("dislodged")
    if r.get("automatic"):
        notes.append("no order received" if r["result"] in ("stands", "succeeds") else "automatic")
    text = f"  ({', '.join(notes)})" if notes else ""
    reason = r.get("reason") or ""
    if reason and r["result"] not in _SILENT:
        text += f"  -- {reason}"
    return text


def phase_report(variant: Variant, rec: Mapping[str, Any]) -> str:
    """The report for one phase record (see :meth:`dippouch.store.GameStore.phase_record`)."""
    m = variant.map
    settings = Settings.from_data(rec.get("settings", {}))
    pos = position_from_data(variant, rec["position"])
    kind = variant.calendar.kind(pos.phase)
    lines: list[str] = []
    title = f"{variant.calendar.name(pos.phase)} results, game {rec['game']} ({variant.title})"
    lines += [title, "=" * len(title)]
    if rec.get("processed_at"):
        lines.append(f"Processed {settings.describe(datetime.fromisoformat(rec['processed_at']))}.")
    if rec["status"] == "abandoned":
        lines.append("This phase was abandoned by a rollback: it is kept for the record, not part of the game.")
    if not rec.get("processed_at"):
        lines += ["", f"This phase has not been processed (it is {rec['status']})."]
        return "\n".join(lines) + "\n"
    if rec.get("next_position") is None:
        lines += ["", "The game ended before this phase was played."]
        if rec.get("ending"):
            lines.append(str(rec["ending"]["text"]))
        return "\n".join(lines) + "\n"
    lines.append("")

    by_power: dict[str, list[Mapping[str, Any]]] = {}
    for r in rec.get("results") or []:
        by_power.setdefault(str(r["power"]), []).append(r)
    missed = set(rec.get("missed") or [])
    width = max((len(p) for p in variant.power_names), default=8) + 2
    for power in variant.power_names:
        rs = by_power.get(power, [])
        if not rs and power not in missed:
            continue
        if power in missed and not rs:
            lines.append(f"{power + ':':<{width}}(no orders received)")
        for r in rs:
            lines.append(f"{power + ':':<{width}}{r['order']}{_result_note(r)}")
        lines.append("")

    nxt = position_from_data(variant, rec["next_position"])
    if kind == PhaseKind.MOVEMENT and nxt.dislodged:
        lines.append("The following units were dislodged:")
        for d in sorted(nxt.dislodged.values(), key=lambda d: (d.unit.power, m.locations[d.unit.loc].abbr)):
            unit = f"The {variant.power(d.unit.power).adjective} {_kind_word(d.unit.kind)} in {m.locations[d.unit.loc].name}"
            if d.retreats:
                opts = ", ".join(sorted(m.locations[x].abbr for x in d.retreats))
                lines.append(f"  {unit} can retreat to {opts}.")
            else:
                lines.append(f"  {unit} with no valid retreats was destroyed.")
        lines.append("")
    destroyed = [r for r in rec.get("results") or [] if r.get("destroyed")]
    if kind == PhaseKind.MOVEMENT and destroyed and not nxt.dislodged:
        lines.append(
            "Destroyed (no retreat possible): "
            + ", ".join(f"{r['power']} {r['order'].split(' ')[0]}" for r in destroyed)
        )
        lines.append("")

    gained, lost = _centre_changes(pos.centres, nxt.centres)
    if gained or lost:
        lines.append("Supply centre changes:")
        for power in variant.power_names:
            g = sorted(m.provinces[c].abbr for c in gained.get(power, []))
            lo = sorted(m.provinces[c].abbr for c in lost.get(power, []))
            if g or lo:
                parts = ([f"gains {', '.join(g)}"] if g else []) + ([f"loses {', '.join(lo)}"] if lo else [])
                lines.append(f"  {power + ':':<{width}}{'; '.join(parts)}")
        lines.append("")

    next_kind = variant.calendar.kind(nxt.phase)
    if pos.centres != nxt.centres or next_kind == PhaseKind.ADJUSTMENTS or kind == PhaseKind.ADJUSTMENTS:
        lines.append("Ownership of supply centres:")
        for power in variant.power_names:
            cs = sorted(m.provinces[c].abbr for c in nxt.centres_of(power))
            if cs:
                lines.append(f"  {power + ':':<{width}}{' '.join(cs)}  ({len(cs)})")
        unowned = sorted(m.provinces[c].abbr for c in m.supply_centres if c not in nxt.centres)
        if unowned:
            lines.append(f"  {'Unowned:':<{width}}{' '.join(unowned)}  ({len(unowned)})")
        lines.append("")

    if next_kind == PhaseKind.ADJUSTMENTS and rec.get("next_phase"):
        lines.append(f"Adjustments for {variant.calendar.name(nxt.phase)}:")
        for power in variant.power_names:
            c, u = len(nxt.centres_of(power)), len(nxt.units_of(power))
            if not c and not u:
                continue
            delta = adjustment_delta(variant, nxt, power)
            what = f"builds {delta}" if delta > 0 else f"removes {-delta}" if delta < 0 else "no change"
            lines.append(f"  {power + ':':<{width}}supply centres {c:>2}, units {u:>2}: {what}")
        lines.append("")

    if rec.get("ending"):
        lines.append(f"THE GAME IS OVER. {rec['ending']['text']}")
    elif rec.get("next_phase"):
        if rec.get("next_deadline"):
            when = settings.describe(datetime.fromisoformat(rec["next_deadline"]))
            lines.append(f"The next phase is {rec['next_phase']}; orders are due by {when}.")
        else:
            lines.append(f"The next phase is {rec['next_phase']}; the game is paused, no deadline is running.")
    return "\n".join(lines).rstrip() + "\n"


def _kind_word(kind: str) -> str:
    return {"A": "army", "F": "fleet"}.get(kind, f"unit ({kind})")


def _centre_changes(
    before: Mapping[int, str], after: Mapping[int, str]
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    gained: dict[str, list[int]] = {}
    lost: dict[str, list[int]] = {}
    for c in set(before) | set(after):
        b, a = before.get(c), after.get(c)
        if b == a:
            continue
        if a is not None:
            gained.setdefault(a, []).append(c)
        if b is not None:
            lost.setdefault(b, []).append(c)
    return gained, lost


def deadlines_ical(game: str, settings: Settings, deadlines: list[tuple[int, str, datetime]]) -> bytes:
    """An iCalendar feed of a game's deadlines, for players to subscribe to (the W3K "calendar feed").

    ``deadlines`` is (phase id, phase name, deadline) for each phase of the current line of play. Each event
    keeps its UID across regenerations, so a calendar program updates a moved deadline instead of adding one.
    Times are written in UTC, which every calendar program converts to its user's own zone; the game's
    zone is named in ``X-WR-TIMEZONE`` and in each description.
    """
    import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", "-//dippouch//game deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", f"{game}: deadlines")
    cal.add("x-wr-timezone", settings.timezone)
    for phase_id, name, deadline in deadlines:
        ev = icalendar.Event()
        ev.add("uid", f"{game}-{phase_id}@dippouch")
        ev.add("summary", f"{game}: orders due, {name}")
        ev.add("dtstart", as_utc(deadline))
        ev.add("dtend", as_utc(deadline))
        ev.add("dtstamp", deadline)
        ev.add("description", f"Deadline for {name} in game {game}: {settings.describe(deadline)}.")
        cal.add_component(ev)
    return bytes(cal.to_ical())
