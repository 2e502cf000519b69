"""``dippouch variants``: what can be played, and a variant's vital signs."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from dippouch.cli import app


@app.command()
def variants(name: str = typer.Argument(None, help="Show one variant in detail.")) -> None:
    """List the variants, or show one: powers, centres, map counts, options."""
    from dippouch.core.mapdata import ProvinceKind
    from dippouch.core.variant import load_variant, variant_names

    out = Console()
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
    table = Table("power", "letter", "home centres", "units")
    for p in v.powers:
        homes = " ".join(sorted(m.provinces[h].abbr for h in v.start.homes.get(p.name, ())))
        units = " ".join(f"{u.kind} {m.locations[u.loc].abbr}" for u in v.start.units_of(p.name))
        table.add_row(p.name, p.letter, homes, units)
    out.print(table)
    opts = v.data.get("options", {})
    if opts:
        out.print("[bold]Options[/bold]")
        for key, spec in opts.items():
            out.print(f"  {key} = {spec.get('default')!r}: {spec.get('description', '')}")


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
