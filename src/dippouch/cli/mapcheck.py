"""``dippouch mapcheck VARIANT``: a map's vital signs, for authors correcting map data."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from dippouch.cli import app

if TYPE_CHECKING:
    from dippouch.core.variant import Variant


_VARIANTS = typer.Argument(..., help="Variant names or paths to .toml files (several with --boards).")


@app.command()
def mapcheck(
    variants: list[str] = _VARIANTS,
    factor: float = typer.Option(
        1.6, help="An edge is long above FACTOR times the usual edge length at both its ends."
    ),
    min_km: float = typer.Option(0.0, "--min-km", help="...and above this many kilometres."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    strict: bool = typer.Option(False, help="Also fail on long edges without a justification."),
    geometry: bool = typer.Option(
        True, help="Also check the built map geometry: drawn borders against the declared ones (needs shapely)."
    ),
    strict_geometry: bool = typer.Option(
        False, "--strict-geometry", help="Also fail on geometric mismatches and on misplaced names or markers."
    ),
    names: str = typer.Option(
        "auto", help="Names to draw for the drawing check: auto, full or abbr (as `dippouch map --names`)."
    ),
    boards: bool = typer.Option(
        False,
        "--boards",
        help="Only whether each built board reads (area spread, names under 9 px) and how many do not; "
        "exit 1 when any board drawn without a picture is unreadable.",
    ),
) -> None:
    """Print counts, coasts without a sea, cut-off pieces and long edges; exit 1 on problems."""
    from dippouch.catalog import load_variant
    from dippouch.mapcheck import check_map, format_report

    if boards:
        _boards_report(variants)
        return
    if len(variants) != 1:
        raise typer.BadParameter("give one variant (several only with --boards)", param_hint="VARIANTS")
    variant = variants[0]
    if names not in ("auto", "full", "abbr"):
        raise typer.BadParameter(f"must be auto, full or abbr, not {names!r}", param_hint="--names")
    rep = check_map(load_variant(variant), factor=factor, min_km=min_km)
    if as_json:
        data = asdict(rep)
        data["unexplained"] = len(rep.unexplained)
        typer.echo(json.dumps(data, indent=2))
    else:
        typer.echo(format_report(rep))
    geo_bad = False
    if geometry and not as_json:
        geo_bad = _geometry_report(load_variant(variant))
        geo_bad = _drawing_report(load_variant(variant), names) or geo_bad
    if rep.problems or (strict and rep.unexplained) or (strict_geometry and geo_bad):
        raise typer.Exit(1)


def _boards_report(names: list[str]) -> None:
    """One readability line per board and the count of unreadable ones (issue 42: a board drawn without a
    picture reads at its default view). A board not built is counted apart, not as readable."""
    from dippouch.catalog import load_variant
    from dippouch.mapcheck import check_readability

    bad, laid_out, missing = [], 0, []
    for name in names:
        v = load_variant(name)
        try:
            rep = check_readability(v)
        except FileNotFoundError as e:
            typer.echo(f"{v.name}: not built ({e})")
            missing.append(v.name)
            continue
        typer.echo(f"{v.name}: {rep.summary()}")
        laid_out += rep.laid_out
        if rep.unreadable:
            bad.append(v.name)
    typer.echo(
        f"unreadable boards: {len(bad)} of {len(names) - len(missing)} measured "
        f"({laid_out} drawn without a picture){': ' + ' '.join(bad) if bad else ''}"
        + (f"; not built: {' '.join(missing)}" if missing else "")
    )
    if bad or missing:
        raise typer.Exit(1)


def _geometry_report(v: Variant) -> bool:
    """Print the geometric checks; True when they found mismatches. A missing geometry file or a missing
    shapely is one line, not a failure: the map's data checks above stand on their own."""
    from dippouch.mapcheck import check_geometry

    try:
        from dippouch.render.mapgen.checks import format_geo_report

        geo = check_geometry(v)
    except ModuleNotFoundError as e:
        typer.echo(f"geometry check: skipped ({e.name} is not installed: pip install 'dippouch[mapgen]')")
        return False
    except FileNotFoundError as e:
        typer.echo(f"geometry check: skipped ({e})")
        return False
    typer.echo(format_geo_report(geo, v.name))
    from dippouch.mapcheck import check_readability

    typer.echo(check_readability(v).summary())
    return bool(geo.mismatches)


def _drawing_report(v: Variant, names: str) -> bool:
    """Print where the drawn map puts names and centre markers; True when any is misplaced."""
    from dippouch.mapcheck import check_drawing

    try:
        rep = check_drawing(v, names=names)
    except FileNotFoundError as e:
        typer.echo(f"drawing check: skipped ({e})")
        return False
    typer.echo(f"drawing check ({names} names, the sample game's busiest phase as drawn):")
    typer.echo(rep.summary())
    typer.echo(f"misplaced: {rep.misplaced}")
    from dippouch.mapcheck import check_crowding

    crowd = check_crowding(v, names=names)
    typer.echo("every unit a province can hold, at its spot:")
    typer.echo(f"  units over each other {len(crowd.units_crowded)}" + _pairs(crowd.units_crowded))
    typer.echo(f"  units over names {len(crowd.units_on_names)}" + _pairs(crowd.units_on_names))
    typer.echo(f"  leader lines covered {len(crowd.leaders_covered)}" + _pairs(crowd.leaders_covered))
    from dippouch.mapcheck import check_print
    from dippouch.render.atlas import MIN_NAME_PT

    small = False
    for pr in check_print(v, names=names):
        sheets = len(pr.pages) - 1
        typer.echo(
            f"printed on {pr.paper.upper()} ({len(pr.pages)} page{'s' if sheets else ''}"
            + (f": the overview and {sheets} sheets" if sheets else "")
            + f"): names under {MIN_NAME_PT:g} pt {pr.small}"
            + "".join(f", {p.title} {p.small}" for p in pr.pages if p.small)
            + f"; names on no page at {MIN_NAME_PT:g} pt or more {len(pr.unreadable)}"
            + (": " + " ".join(pr.unreadable) if pr.unreadable else "")
        )
        small = small or bool(pr.small or pr.unreadable)
    return bool(rep.misplaced or crowd.units_crowded or crowd.units_on_names or crowd.leaders_covered or small)


def _pairs(pairs: list[tuple[str, str]]) -> str:
    return (": " + " ".join("-".join(p) for p in pairs)) if pairs else ""
