"""Variants: their pages, the valid-move browser, place search and the adjudication contract; pages and JSON."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.catalog import variants_usable
from dippouch.core.variant import Variant
from dippouch.web.http.deps import (
    ERRORS,
    WebDep,
    answers,
    api_language,
    board_answer,
    can_charge,
    charged_job,
    language,
    render,
    words,
)
from dippouch.web.http.security import (
    BadInput,
    WebNotFound,
    client_id,
)
from dippouch.web.views import variant_pages
from dippouch.web.views.answers.games import Place, VariantListing
from dippouch.web.views.answers.variants import AdjudicationAnswer, MovesAnswer, VariantView
from dippouch.web.views.maps import NO_MAP, board_file
from dippouch.web.views.variant_origin import Origin, origin_of, origins

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (a board file of a variant without a built map: the thumbnail's)."""

router = APIRouter(tags=["api"])


@router.get("/variants", include_in_schema=False, response_class=HTMLResponse)
def variants_page(request: Request) -> Response:
    good, broken = variants_usable()
    found = origins()
    # dippouch's own and the installation's variants first, then the shelf (imported from other judges).
    own: list[dict[str, Any]] = []
    shelf: list[dict[str, Any]] = []
    for v in good:
        origin = found.get(v.name) or Origin(kind="file")
        (shelf if origin.kind == "shelf" else own).append(
            {
                "name": v.name,
                "title": v.title,
                "description": v.description,
                "powers": len(v.powers),
                "centres": len(v.map.supply_centres),
                "origin": origin,
            }
        )
    return render(request, "variants.html", {"variants": own, "shelf": shelf, "broken": broken})


@router.get("/variants/{name}", include_in_schema=False, response_class=HTMLResponse)
def variant_page(request: Request, name: str) -> Response:
    """The page reads what ``GET /api/variants/{name}`` answers, as its model, with the opening map beside."""
    variant_pages.find_variant(name, words(request).gettext)  # an unknown name refused in the reader's language
    lang = language(request)
    vv = VariantView.model_validate(variant_pages.variant_view(name, lang=lang), context={"lang": lang})
    return render(request, "variant.html", {"v": vv, "origin": origin_of(vv.name)})


@router.get("/variants/{name}/board-{digest}.svg", include_in_schema=False)
def variant_board(request: Request, name: str, digest: str, web: WebDep) -> Response:
    """The board file every game of the variant whose copy draws the same board names (a game page's picture
    draws its shapes and names by reference to it): the variant's board, nothing of any game, so public, kept
    a year by browsers and shared caches alike (its address names its content's hash). An old hash (a page from
    before the variant's file changed) is answered with the board as it is now, not to be kept."""
    t = words(request)
    made = board_file(variant_pages.find_variant(name, t.gettext))
    if made is None:
        raise WebNotFound(NO_MAP)
    return board_answer(request, web, made, digest, public=True)


@router.get("/variants/{name}/powers.css", include_in_schema=False)
def powers_css(name: str) -> Response:
    """Power colours as classes (``pw-0`` ...): the CSP allows no inline styles."""
    v = variant_pages.find_variant(name)
    rules = []
    for i, p in enumerate(v.powers):
        colour = p.colour if re.fullmatch(r"#[0-9a-fA-F]{3,8}", p.colour) else "#888888"
        rules.append(f".pw-{i}{{--pw:{colour}}}")
    return Response("\n".join(rules) + "\n", media_type="text/css", headers={"Cache-Control": "max-age=3600"})


@router.get("/variants/{name}/moves", include_in_schema=False, response_class=HTMLResponse)
def moves_page(request: Request, name: str, q: str = "") -> Response:
    """The move browser reads what ``GET /api/variants/{name}/moves`` answers, and the variant's own answer."""
    variant = variant_pages.find_variant(name, words(request).gettext)
    mv = MovesAnswer.model_validate(variant_pages.moves(name, q))
    lang = language(request)
    vv = VariantView.model_validate(variant_pages.variant_view(name, with_map=False, lang=lang), context={"lang": lang})
    return render(request, "moves.html", {"mv": mv, "v": vv, "map_svg": _moves_map(variant, mv, lang)})


def _moves_map(variant: Variant, mv: MovesAnswer, lang: str) -> str | None:
    """The opening board with no heading and no legend, its view the territory and every place it goes (as
    the page's viewer shows it: the frame filled with the board, nothing cut; the whole opening map showed the
    heading's end above St Petersburg, and 1000 AD's board in part of its frame with its legend cut off); None
    without a territory, or without a built map."""
    if mv.province is None:
        return None
    from dippouch.render import RenderOptions
    from dippouch.render.focus import places_svg

    places = [mv.province.abbr, *(d.abbr for u in mv.units for d in u.moves)]
    try:
        return places_svg(variant, variant.start, places, RenderOptions(lang=lang))
    except (FileNotFoundError, ValueError):  # no map built, or a geometry of another format: no map shown
        return None


@router.get("/api/variants", **answers(list[VariantListing]))
def api_variants() -> list[VariantListing]:
    """The variants: name, title, powers, number of supply centres; a file that does not load is listed
    with ``"broken": true`` and its problems, and the others stay usable."""
    good, broken = variants_usable()
    # Validated from the fields each kind has, so only those are answered (a usable one has no "broken": null).
    out = [
        VariantListing.model_validate(
            {"name": v.name, "title": v.title, "powers": list(v.power_names), "centres": len(v.map.supply_centres)}
        )
        for v in good
    ]
    out += [
        VariantListing.model_validate(
            {"name": b.name, "broken": True, "file": str(b.path), "problems": list(b.problems)}
        )
        for b in broken
    ]
    return sorted(out, key=lambda row: row.name)


@router.get("/api/variants/{name}", **answers(VariantView))
def api_variant(request: Request, name: str) -> VariantView:
    """A variant: rules in brief (in ``?lang=``'s language), powers, centres, options, and the key from
    abbreviation to full name."""
    view = variant_pages.variant_view(name, with_map=False)
    return VariantView.model_validate(view, context={"lang": api_language(request)})


@router.get("/api/variants/{name}/moves", **answers(MovesAnswer))
def api_moves(name: str, q: str = "") -> MovesAnswer:
    """Every valid move from a territory (by abbreviation, full name or alias) for each unit that can stand there."""
    return MovesAnswer.model_validate(variant_pages.moves(name, q))


@router.get("/api/variants/{name}/search", **answers(list[Place]))
def api_search(name: str, q: str = "") -> list[Place]:
    """Territories whose name, abbreviation or alias matches ``q`` (for pick lists)."""
    return [Place.model_validate(p) for p in variant_pages.search(name, q)]


@router.post(
    "/api/adjudicate",
    response_model=None,
    responses={
        **ERRORS,
        200: {"model": AdjudicationAnswer, "description": "Each order's resolution and the next phase."},
        400: {
            "model": AdjudicationAnswer,
            "description": "The request was refused: its error, as the contract says it.",
        },
    },
)
async def api_adjudicate(request: Request) -> Response:
    """The adjudication contract over HTTP: the same request and response objects as `dippouch adjudicate`
    (docs/adjudication-contract.md), answered by the same code (:mod:`dippouch.contract`); a bad request
    answers ``{"error": ...}`` with status 400."""
    from dippouch.contract import MAX_WEB_ORDERS, encode_response, handle_line

    request.app.state.limiter.hit("adjudicate", client_id(request), "adjudication requests")
    await run_in_threadpool(can_charge, request)  # who asks may be a session to look up: not on the loop
    raw = await request.body()
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput("the request body is not UTF-8 text") from None
    text = line.replace("\n", " ")
    answer = await run_in_threadpool(charged_job, request, handle_line, text, max_orders=MAX_WEB_ORDERS)
    return Response(
        encode_response(answer), status_code=400 if "error" in answer else 200, media_type="application/json"
    )
