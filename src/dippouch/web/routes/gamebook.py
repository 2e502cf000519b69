"""A game's book as PDF: every phase's map with its orders and results, its results in the Judge's words and
the press the game has published (:mod:`dippouch.play.gamebook`), made once and kept."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from starlette.requests import Request

from dippouch.core.messages import PhaseName, msg, nmsg, quantity
from dippouch.play.gamebook import BookPlan, book_key, book_plan, published_press
from dippouch.play.replays import ReplayExports
from dippouch.saying import say
from dippouch.store.history import phase_record
from dippouch.store.press import messages as store_press
from dippouch.web.http.budget import BOOK_PAGE
from dippouch.web.http.deps import (
    ViewerDep,
    WebDep,
    budget_of,
    game_file,
    game_url,
    language,
    made_once,
    pool_of,
)
from dippouch.web.http.jobs import book_pdf
from dippouch.web.http.security import BadInput, Viewer
from dippouch.web.http.service import Web
from dippouch.web.views import games
from dippouch.web.views.fog import ClearGame
from dippouch.web.views.maps import map_available

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])


@router.get("/games/{name}/book.pdf", include_in_schema=False)
def game_book(request: Request, name: ClearGame, web: WebDep, viewer: ViewerDep) -> Response:
    """The game book: a title page with the contents, each processed phase's map (a big board as its atlas)
    and its results with the press written in it, the board as it stands. A first book takes seconds to
    minutes (every phase's map drawn): it runs in the budget's drawing lane, its estimate (by the maps) charged
    to the asker before it starts, and is kept until a phase is processed or a letter published; the next
    request draws nothing. A book too long to make in one request is refused with the replay's page, which
    shows every phase."""
    plan = book_plan(web.access.phases(name))
    press = published_press(web.read, name)
    lang = language(request)
    books = web.kept(__name__, ReplayExports)  # a store of made bytes by key, as the replay's exports are kept
    key = book_key(name, plan, press, lang)
    maps = len(plan.phases) + (plan.final is not None)
    estimate = maps * BOOK_PAGE
    longest = budget_of(request).longest
    if estimate > longest and books.cached(key) is None:
        raise BadInput(
            msg(
                "this game's book has %(maps)s maps, about %(seconds)s s of drawing: more than one request may take "
                "here (%(most)s s); its replay shows every phase, %(page)s",
                maps=maps,
                seconds=quantity(estimate, 0),
                most=quantity(longest),
                page=f"{game_url(name)}/replay",
            )
        )
    data = made_once(
        request, books, key, lambda: _made(request, web, name, viewer, plan, press, lang), estimate=estimate
    )
    return game_file(data, "application/pdf", name, "-book.pdf", max_age=60)  # a phase processed changes it


def _made(
    request: Request,
    web: Web,
    name: str,
    viewer: Viewer,
    plan: BookPlan,
    press: list[store_press.Message],
    lang: str,
) -> bytes:
    """The book's phases read here (the pictures as the renderer reads them, the records the results are written
    from), the book made in the work pool's drawing processes, in the reader's language ``lang``."""
    variant = web.variant_of(name)
    pages = [*plan.phases, *([plan.final[1]] if plan.final is not None else [])]
    pictures = (
        {(p.phase_id, p.view): games.phase_map_record(web, name, p.phase_id, p.view, viewer) for p in pages}
        if map_available(variant)
        else None
    )
    records = {p.phase_id: phase_record(web.read, name, phase_id=p.phase_id) for p in plan.phases}
    n = len(plan.phases)
    played = (
        nmsg(
            "%(num)d phase played, %(first)s to %(last)s",
            "%(num)d phases played, %(first)s to %(last)s",
            n,
            first=PhaseName(plan.phases[0].phase),
            last=PhaseName(plan.phases[-1].phase),
        )
        if n
        else msg("No phase played yet")
    )
    letters = (
        nmsg("%(num)d published letter of the press", "%(num)d published letters of the press", len(press))
        if press
        else msg("No press published (a game's press is published as its rules say, once it is over)")
    )
    about = [say(played, lang), say(letters, lang)]
    return pool_of(request).call("draw", book_pdf, variant, name, plan, press, records, pictures, about, lang)
