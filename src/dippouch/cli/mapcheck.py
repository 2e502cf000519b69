"""``dippouch mapcheck VARIANT``: a map's vital signs, for authors correcting map data."""

from __future__ import annotations

import json
from dataclasses import asdict

import typer

from dippouch.cli import app


@app.command()
def mapcheck(
    variant: str = typer.Argument(..., help="Variant name or path to a .toml file."),
    factor: float = typer.Option(
        1.6, help="An edge is long above FACTOR times the usual edge length at both its ends."
    ),
    min_km: float = typer.Option(0.0, "--min-km", help="...and above this many kilometres."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    strict: bool = typer.Option(False, help="Also fail on long edges without a justification."),
) -> None:
    """Print counts, coasts without a sea, cut-off pieces and long edges; exit 1 on problems."""
    from dippouch.core.variant import load_variant
    from dippouch.mapcheck import check_map, format_report

    rep = check_map(load_variant(variant), factor=factor, min_km=min_km)
    if as_json:
        data = asdict(rep)
        data["unexplained"] = len(rep.unexplained)
        typer.echo(json.dumps(data, indent=2))
    else:
        typer.echo(format_report(rep))
    if rep.problems or (strict and rep.unexplained):
        raise typer.Exit(1)
