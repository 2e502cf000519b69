"""``dippouch mapgen VARIANT``: build a variant's map geometry from its TOML and the committed coastline clip."""

from __future__ import annotations

import time

import typer

from dippouch.cli import app, keep_running
from dippouch.cli.words import said
from dippouch.core.messages import msg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""


@app.command()
def mapgen(
    variant: str = typer.Argument(None, help="Variant name or path to a .toml file."),
    all_: bool = typer.Option(False, "--all", help="Build every built-in variant."),
    check: bool = typer.Option(
        False, "--check", help="Write nothing; exit 1 if the committed file differs from a fresh build."
    ),
    plain: bool = typer.Option(False, "--plain", help="Skip the fitting step (plain Voronoi shapes), for comparison."),
) -> None:
    """Write variants/geometry/VARIANT.json (or geometry/ beside a user variant's file)."""
    keep_running()  # seconds to minutes of geometry: collect garbage as usual
    from dippouch.catalog import builtin_names, load_variant
    from dippouch.core.errors import DippouchError

    if all_ == bool(variant):
        raise DippouchError(msg("give one variant name, or --all (not both)"))
    try:
        from shapely.errors import GEOSException

        from dippouch.render.geometry import geometry_path
        from dippouch.render.mapgen.build import clip_gap, dumps
        from dippouch.render.mapgen.pipeline import build
    except ModuleNotFoundError as e:
        raise DippouchError(
            msg(
                "building maps needs %(module)s, which is not installed: pip install 'dippouch[mapgen]'",
                module=str(e.name),
            )
        ) from None
    names = builtin_names() if all_ else [variant]
    stale = []
    for name in names:
        v = load_variant(name)
        gap = clip_gap(v)
        if gap:
            typer.echo(f"{v.name}: note: {gap}", err=True)
        t0 = time.perf_counter()
        try:
            text = dumps(build(v, fit=not plain))
        except GEOSException as e:  # the geometry library could not overlay two shapes: say so, no traceback
            raise DippouchError(
                msg(
                    "building the map of %(variant)s failed in the geometry library (%(error)s); a shaping point or "
                    "patch just added may sit on a coastline or border: move it a little",
                    variant=repr(v.name),
                    error=(str(e).splitlines() or [""])[0],
                )
            ) from None
        took = time.perf_counter() - t0
        path = geometry_path(v)
        if check:
            same = path.exists() and path.read_text(encoding="utf-8") == text
            seconds = quantity(round(took, 1))
            if same:
                typer.echo(said(msg("%(variant)s: up to date (%(seconds)s s)", variant=v.name, seconds=seconds)))
            else:
                stale_said = msg(
                    "%(variant)s: DIFFERS from a fresh build (%(seconds)s s)", variant=v.name, seconds=seconds
                )
                typer.echo(said(stale_said))
            if not same:
                stale.append(v.name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        wrote = msg(
            "%(variant)s: wrote %(path)s (%(size)s KB, %(seconds)s s)",
            variant=v.name,
            path=str(path),
            size=quantity(len(text) // 1024),
            seconds=quantity(round(took, 1)),
        )
        typer.echo(said(wrote))
    if stale:
        raise typer.Exit(1)
