"""``dippouch variants``: what can be played, and a variant's vital signs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from dippouch.cli import app

if TYPE_CHECKING:
    from dippouch.core.variant import Variant


@app.command()
def variants(
    name: str = typer.Argument(None, help="Show one variant in detail."),
    key: bool = typer.Option(False, "--key", help="The variant's places: abbreviation, full name, other names."),
    abbrev: bool = typer.Option(False, "--abbrev", help="Write places by the map's abbreviations."),
) -> None:
    """List the variants, or show one: powers, centres, map counts, options; --key for the map's key."""
    from dippouch.core.mapdata import ProvinceKind
    from dippouch.core.notation import format_unit
    from dippouch.core.variant import load_variant, variant_names
    from dippouch.names import joined, place_list

    out = Console()
    if key and name is None:
        raise typer.BadParameter("name the variant whose key to show, e.g. `dippouch variants w3k --key`")
    if key:
        _key(out, load_variant(name))
        return
    if name is None:
        table = Table("variant", "title", "powers", "centres", "victory")
        for n in variant_names():
            v = load_variant(n)
            table.add_row(n, v.title, str(len(v.powers)), str(len(v.map.supply_centres)), _victory(v.victory))
        out.print(table)
        return
    v = load_variant(name)
    m = v.map
    passable = [p for p in m.provinces if p.kind != ProvinceKind.IMPASSABLE]
    out.print(f"[bold]{v.title}[/bold] ({v.name})\n{v.description}")
    out.print(
        f"{len(passable)} provinces, {len(m.supply_centres)} supply centres, "
        f"{m.army_edge_count()} army and {m.fleet_edge_count()} fleet borders; "
        f"starts {v.calendar.name(v.start.phase)}; victory: {_victory(v.victory)}"
    )
    full = not abbrev
    table = Table("power", "letter", "home centres", "units")
    for p in v.powers:
        homes = joined(place_list(v, v.start.homes.get(p.name, ()), full=full))
        units = joined([format_unit(v, u.kind, u.loc, full=full) for u in v.start.units_of(p.name)])
        table.add_row(p.name, p.letter, homes, units)
    out.print(table)
    out.print(
        f"Places by their full names; `dippouch variants {v.name} --key` lists every abbreviation and other name."
    )
    opts = v.data.get("options", {})
    if opts:
        out.print("[bold]Options[/bold]")
        for key, spec in opts.items():
            out.print(f"  {key} = {spec.get('default')!r}: {spec.get('description', '')}")


def _key(out: Console, v: Variant) -> None:
    """The map's key: what each abbreviation stands for, and the other names the order reader knows."""
    from dippouch.core.mapdata import ProvinceKind

    m = v.map
    table = Table("abbr.", "name", "kind", "centre", "also read", title=f"{v.title}: places")
    for loc in sorted(m.locations, key=lambda loc: loc.abbr):
        prov = m.provinces[loc.province]
        if prov.kind == ProvinceKind.IMPASSABLE:
            continue
        coast = loc.coast is not None
        kind = "coast" if coast else prov.kind.value
        aliases = "" if coast else ", ".join(prov.aliases)
        centre = "" if coast else ("yes" if prov.supply_centre else "")
        table.add_row(loc.abbr, loc.name, kind, centre, aliases)
    out.print(table)


def _victory(victory: dict[str, object] | object) -> str:
    """One line a coordinator can read: the target, per power where powers differ, and extra conditions."""
    if not isinstance(victory, dict):
        return "see rules"
    parts = []
    by_power = victory.get("by_power")
    if isinstance(by_power, dict):
        targets: dict[object, list[str]] = {}
        for power, n in by_power.items():
            targets.setdefault(n, []).append(str(power))
        parts.append("; ".join(f"{n} centres ({', '.join(ps)})" for n, ps in sorted(targets.items(), key=str)))
    elif "centres" in victory:
        parts.append(f"{victory['centres']} centres")
    if victory.get("capitals"):
        parts.append("plus a capital of each kingdom")
    if victory.get("remaining"):
        parts.append(f"or {victory['remaining']} powers left")
    return ", ".join(parts) or "see rules"
