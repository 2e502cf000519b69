"""The opening explorer: the choice of variant (``/explorer``) and, for a variant and a power, one node of its
openings (``/explorer/{variant}/{power}?path=...``): the power's order sets played from there in the public
finished games, each with how many games played it, the power's mean centres at the end of the first years and
how those games ended for it; page and JSON (``GET /api/explorer``, ``GET /api/explorer/{variant}/{power}``).

The figures are :mod:`dippouch.play.explorer`'s (one query a request); which games count (public finished
ones) is the store's to say (:mod:`dippouch.store.learning.explorer`), as in the ratings' public lists. Everyone may read
it, signed in or not: it names no game and no player.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.names import phase_words
from dippouch.play.explorer import (
    MAX_PATH,
    OUTCOMES,
    Explored,
    Figures,
    UnknownChoice,
    explore,
    explorer_variants,
    path_text,
)
from dippouch.web.http.deps import WebDep, answers, language, render
from dippouch.web.http.security import WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.answers.explorer import (
    ExplorerBranch,
    ExplorerIndex,
    ExplorerStep,
    ExplorerVariant,
    ExplorerView,
    NodeFigures,
    OutcomeCount,
    YearMean,
)

I18N_DOMAIN = "site"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/site.po)."""

router = APIRouter(tags=["api"])

PathQuery = Annotated[
    str,
    Query(
        max_length=MAX_PATH,
        description="The steps from the start, ``|`` between them, each ``phase: order; order`` (as a branch's "
        "``path`` gives it); empty: the power's first orders.",
    ),
]


def _figures(f: Figures) -> NodeFigures:
    return NodeFigures(
        games=f.games,
        centres=[YearMean(year=c.year, mean=c.mean, games=c.games) for c in f.centres],
        outcomes=[OutcomeCount(outcome=o, games=f.count(o), share=round(f.share(o) * 100, 1)) for o in OUTCOMES],
    )


def explorer_view(web: Web, variant: str, power: str, path: str, *, lang: str | None = None) -> ExplorerView:
    """One node of ``power``'s openings in ``variant``; an unknown variant or power is not found (naming the
    closest). ``lang``: the phases named in the reader's language (the page); the JSON answer keeps the
    calendar's names, which ``?path=`` reads."""
    try:
        e: Explored = explore(web.read, variant, power, path)
    except UnknownChoice as err:
        raise WebNotFound(err.msg) from None
    shown = (lambda name: phase_words(name, lang)) if lang else (lambda name: name)
    return ExplorerView(
        variant=e.variant,
        variant_title=e.variant_title,
        power=e.power,
        powers=list(e.powers),
        path=path_text(e.path),
        steps=[
            ExplorerStep(phase=shown(s.phase), orders=list(s.orders), path=path_text(e.path[: i + 1]))
            for i, s in enumerate(e.path)
        ],
        total=e.total,
        years=list(e.years),
        figures=_figures(e.figures),
        branches=[
            ExplorerBranch(
                phase=shown(b.step.phase),
                orders=list(b.step.orders),
                path=path_text(b.path),
                share=round(b.share * 100, 1),
                figures=_figures(b.figures),
            )
            for b in e.branches
        ],
    )


def _variants(web: Web) -> list[ExplorerVariant]:
    """Every variant with its powers and public finished games."""
    return [
        ExplorerVariant(name=v.name, title=v.title, powers=list(v.powers), games=v.games)
        for v in explorer_variants(web.read)
    ]


@router.get("/explorer", include_in_schema=False, response_class=HTMLResponse)
def explorer_home(request: Request, web: WebDep) -> Response:
    """The choice of variant and power; the page shows what ``GET /api/explorer`` answers."""
    return render(request, "explorer.html", {"index": ExplorerIndex(variants=_variants(web)), "x": None})


@router.get("/explorer/{variant}/{power}", include_in_schema=False, response_class=HTMLResponse)
def explorer_page(request: Request, web: WebDep, variant: str, power: str, path: PathQuery = "") -> Response:
    """One node of a power's openings; the page shows what ``GET /api/explorer/{variant}/{power}`` answers."""
    view = explorer_view(web, variant, power, path, lang=language(request))
    return render(request, "explorer.html", {"index": None, "x": view})


@router.get("/api/explorer", **answers(ExplorerIndex))
def api_explorer(web: WebDep) -> ExplorerIndex:
    """Every variant with its powers and how many public finished games the explorer reads for it."""
    return ExplorerIndex(variants=_variants(web))


@router.get("/api/explorer/{variant}/{power}", **answers(ExplorerView))
def api_explorer_node(web: WebDep, variant: str, power: str, path: PathQuery = "") -> ExplorerView:
    """The power's openings in the variant's public finished games, at the node ``path`` (empty: its first
    orders): each continuation's games, the power's mean centres at the end of the first years and how those
    games ended for it (wins, draws, survivals, eliminations), most played first. An unknown variant or power
    is refused naming the closest."""
    return explorer_view(web, variant, power, path)
