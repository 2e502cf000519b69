"""``dippouch mapcheck VARIANT``: a map's vital signs, for authors correcting map data."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from dippouch.cli import app
from dippouch.cli.words import said
from dippouch.core.messages import Msg, Quantity, msg, nmsg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

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
        # Typer prints the message as given: said here, in the locale's language.
        raise typer.BadParameter(said(msg("give one variant (several only with --boards)")), param_hint="VARIANTS")
    variant = variants[0]
    if names not in ("auto", "full", "abbr"):
        raise typer.BadParameter(
            said(msg("must be auto, full or abbr, not %(names)s", names=repr(names))), param_hint="--names"
        )
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
            typer.echo(said(msg("%(variant)s: not built (%(error)s)", variant=v.name, error=str(e))))
            missing.append(v.name)
            continue
        typer.echo(f"{v.name}: {rep.summary()}")
        laid_out += rep.laid_out
        if rep.unreadable:
            bad.append(v.name)
    counted = _listing(
        msg(
            "unreadable boards: %(num)s of %(measured)s measured (%(drawn)s drawn without a picture)",
            num=len(bad),
            measured=len(names) - len(missing),
            drawn=laid_out,
        ),
        bad,
    )
    if missing:
        counted = msg("%(line)s; not built: %(names)s", line=counted, names=" ".join(missing))
    typer.echo(said(counted))
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
        typer.echo(
            said(
                msg(
                    "geometry check: skipped (%(module)s is not installed: pip install 'dippouch[mapgen]')",
                    module=str(e.name),
                )
            )
        )
        return False
    except FileNotFoundError as e:
        typer.echo(said(msg("geometry check: skipped (%(error)s)", error=str(e))))
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
        typer.echo(said(msg("drawing check: skipped (%(error)s)", error=str(e))))
        return False
    # NAMES is the option's value (auto, full or abbr), kept as typed.
    typer.echo(said(msg("drawing check (%(names)s names, the sample game's busiest phase as drawn):", names=names)))
    typer.echo(rep.summary())
    typer.echo(said(msg("misplaced: %(num)s", num=rep.misplaced)))
    from dippouch.mapcheck import check_crowding

    crowd = check_crowding(v, names=names)
    typer.echo(said(msg("every unit a province can hold, at its spot:")))
    for count, pairs in (
        (msg("units over each other %(num)s", num=len(crowd.units_crowded)), crowd.units_crowded),
        (msg("units over names %(num)s", num=len(crowd.units_on_names)), crowd.units_on_names),
        (msg("leader lines covered %(num)s", num=len(crowd.leaders_covered)), crowd.leaders_covered),
    ):
        typer.echo("  " + said(_listing(count, ["-".join(p) for p in pairs])))
    from dippouch.mapcheck import check_print
    from dippouch.render.atlas import MIN_NAME_PT

    least = _points(MIN_NAME_PT)
    small = False
    for pr in check_print(v, names=names):
        sheets = len(pr.pages) - 1
        paper = pr.paper.upper()
        printed = (
            nmsg(
                "printed on %(paper)s (%(pages)s pages: the overview and %(num)d sheet)",
                "printed on %(paper)s (%(pages)s pages: the overview and %(num)d sheets)",
                sheets,
                paper=paper,
                pages=len(pr.pages),
            )
            if sheets
            else msg("printed on %(paper)s (1 page)", paper=paper)
        )
        # A page's title and its count of small names: the atlas's own words, as the page prints them.
        pages = "".join(f", {p.title} {p.small}" for p in pr.pages if p.small)
        line = msg(
            "%(printed)s: names under %(least)s pt %(small)s%(pages)s; names on no page at %(least)s pt or more "
            "%(num)s",
            printed=printed,
            least=least,
            small=pr.small,
            pages=pages,
            num=len(pr.unreadable),
        )
        typer.echo(said(_listing(line, pr.unreadable)))
        small = small or bool(pr.small or pr.unreadable)
    return bool(rep.misplaced or crowd.units_crowded or crowd.units_on_names or crowd.leaders_covered or small)


def _listing(line: Msg, names: list[str]) -> Msg:
    """``line`` and then the names it counts, when there are any (``...: a b c``): the colon is the
    language's own (French puts a space before it)."""
    return msg("%(line)s: %(names)s", line=line, names=" ".join(names)) if names else line


def _points(size: float) -> Quantity:
    """A size in points as the locale writes a number: whole where it is whole (``6``, as ``:g`` wrote it)."""
    return quantity(int(size) if size.is_integer() else size)
