"""``dippouch map``: a variant's opening position, or a game's phase, as SVG, PNG or PDF.

The file's suffix chooses the format. A game's phase is drawn with its orders and results once processed
(``--no-orders`` leaves them off; ``--after`` draws the position the phase led to); an open phase is drawn
without orders, which stay sealed until the deadline.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from dippouch.cli import app
from dippouch.cli.words import said
from dippouch.core.messages import Msg, Quantity, msg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

_FORMATS = (".svg", ".png", ".pdf")


def _fail(message: Msg | str) -> None:
    """Refuse in one line on stderr: a message in the locale's language, a text (a library's, or one already
    said) as it is."""
    sys.stderr.write(f"error: {said(message) if isinstance(message, Msg) else message}\n")
    raise typer.Exit(2)


@app.command("map")
def map_command(
    variant: str | None = typer.Argument(None, help="Variant name (its opening position); or use --game."),
    out: str = typer.Option(..., "--out", "-o", help="File to write: FILE.svg, FILE.png or FILE.pdf."),
    game: str | None = typer.Option(None, "--game", "-g", help="Draw a phase of this game instead."),
    phase: str | None = typer.Option(
        None, "--phase", help="The game's phase, e.g. 'Fall 1901 Movement' (default: the board as it stands now)."
    ),
    phase_id: int | None = typer.Option(None, "--id", help="Phase id from `dippouch history`."),
    orders: bool = typer.Option(True, "--orders/--no-orders", help="Draw the phase's orders and results."),
    after: bool = typer.Option(False, "--after", help="Draw the position the phase led to."),
    names: str = typer.Option("auto", "--names", help="auto (full names where they fit), abbr or full."),
    scale: float = typer.Option(1.5, "--scale", help="PNG size as a multiple of the map's own size."),
    paper: str = typer.Option("a4", "--paper", help="PDF paper: a4, a3 or letter (turned to fit the map best)."),
    atlas: bool = typer.Option(
        False, "--atlas", help="PDF: the overview and regional sheets where the map is too big to read on one page."
    ),
    db: str | None = typer.Option(None, "--db", help="Database URL (with --game)."),
) -> None:
    """Draw a map: a variant's opening, or a game's phase (with orders and results), as SVG, PNG or PDF."""
    suffix = Path(out).suffix.lower()
    if suffix not in _FORMATS:
        _fail(msg("cannot tell the format from %(file)s: name the file .svg, .png or .pdf", file=repr(out)))
    if (variant is None) == (game is None):
        _fail(msg("give a variant name or --game GAME (one of them)"))
    if names not in ("auto", "abbr", "full"):
        _fail(msg("--names must be auto, abbr or full, not %(names)s", names=repr(names)))
    if not 0.1 <= scale <= 10:
        _fail(msg("--scale must be between 0.1 and 10, not %(scale)s", scale=scale))
    if paper.lower() not in ("a4", "a3", "letter"):
        _fail(msg("--paper must be a4, a3 or letter, not %(paper)s", paper=repr(paper)))
    if suffix != ".pdf" and (atlas or paper.lower() != "a4"):
        _fail(msg("--paper and --atlas are for a PDF; name the file .pdf, not %(file)s", file=repr(out)))
    from dippouch.cli.errors import user_problem

    try:
        svg, v, title = _draw(variant, game, phase, phase_id, orders, after, names, db)
        data = _convert(svg, suffix, scale, paper.lower(), v if atlas else None, title)
        Path(out).write_bytes(data)
        if suffix == ".pdf" and not atlas:
            _small_print_note(svg, paper.lower())
    except typer.Exit:
        raise
    except (ImportError, ValueError) as e:
        _fail(str(e))
    except Exception as e:
        problem = user_problem(e)
        if problem is None:
            raise
        _fail(problem)
    sys.stdout.write(said(msg("wrote %(file)s (%(size)s bytes)", file=out, size=quantity(len(data)))) + "\n")


def _draw(
    variant: str | None,
    game: str | None,
    phase: str | None,
    phase_id: int | None,
    orders: bool,
    after: bool,
    names: str,
    db: str | None,
) -> tuple[str, Variant, str]:
    """The drawing, its variant and a title for its page."""
    from dippouch.render import RenderOptions, render_phase_svg, render_svg
    from dippouch.store import history as store_history
    from dippouch.store import status as store_status
    from dippouch.store import variant_copy

    options = RenderOptions(names=names)
    if game is None:
        from dippouch.catalog import load_variant

        assert variant is not None
        v = load_variant(variant)
        return render_svg(v, v.start, options=options), v, f"{v.title}: {v.calendar.name(v.start.phase)}"
    from dippouch.store import GameStore

    store = GameStore(db)
    if phase is None and phase_id is None:
        # The board as it stands: the open phase (its orders sealed), or the final position of a game that is over.
        from datetime import UTC, datetime

        current = store_status.status(store, game, now=datetime.now(UTC)).phase
        if current is None:
            after = True
        phase = current
    record = store_history.phase_record(store, game, phase, phase_id)
    v = variant_copy.variant_of(store, game)
    show = orders and record.get("status") != "open"
    svg = render_phase_svg(v, record, after=after, orders=show, options=options)
    return svg, v, f"{game}: {record['name']}" + (" (after)" if after else "")


def _small_print_note(svg: str, paper: str) -> None:
    """A line on stderr where the one page prints names too small to read on paper (W3K's at 2.3 pt)."""
    from dippouch.render.atlas import MIN_NAME_PT, smallest_name_pt

    pt = smallest_name_pt(svg, paper)
    if 0 < pt < MIN_NAME_PT:
        note = msg(
            "on one page of %(paper)s the smallest names print at %(size)s pt; --atlas prints regional sheets where "
            "every name is at least %(least)s pt",
            paper=paper.upper(),
            size=quantity(round(pt, 1)),
            least=_points(MIN_NAME_PT),
        )
        sys.stderr.write(f"note: {said(note)}\n")


def _convert(svg: str, suffix: str, scale: float, paper: str, atlas: Variant | None, title: str) -> bytes:
    """The file's bytes; a PDF is on a standard paper size (``paper``), as an atlas when ``atlas`` is given."""
    if suffix == ".svg":
        return svg.encode("utf-8")
    from dippouch.render import atlas_pdf, map_pdf, svg_to_png

    if suffix == ".png":
        return svg_to_png(svg, scale=scale)
    return atlas_pdf(atlas, svg, title, paper) if atlas is not None else map_pdf(svg, title, paper)


def _points(size: float) -> Quantity:
    """A size in points as the locale writes a number: whole where it is whole (``6``, as ``:g`` wrote it)."""
    return quantity(int(size) if size.is_integer() else size)
