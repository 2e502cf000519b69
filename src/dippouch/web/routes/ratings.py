"""Ratings: the leaderboards, overall and per variant, and the hall of fame; page and JSON (``/ratings``,
``GET /api/ratings``).

The numbers are :mod:`dippouch.play.ratings`'s, the same ``dippouch ratings`` prints, read from the stored
ratings (kept up to date by the worker's task as games finish): a page reads a few index ranges and scores
nothing. What counts (no practice game, no bot, no private game) is that module's to say; everyone may read
the result, signed in or not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.catalog import load_variant
from dippouch.core.errors import DippouchError
from dippouch.i18n import DEFAULT
from dippouch.play.ratings import HallEntry, RatingBoard, board, groups, hall_of_fame, one_on_one, unscored
from dippouch.play.ratings import person_rating as ratings_of
from dippouch.saying import say
from dippouch.store.finished_games import person_names
from dippouch.store.ratings.ledger import PoolCount, pools
from dippouch.web.http.deps import WebDep, answers, language, render, words
from dippouch.web.http.service import Web
from dippouch.web.views.answers.ratings import FameLine, Leaderboard, RatingLine, RatingsView

router = APIRouter(tags=["api"])

I18N_DOMAIN = "site"

TOP = 20
"""Lines a leaderboard shows unless asked for more."""
MOST = 500
"""The most lines one may ask for (``?top=``)."""

PAGES = 100_000
"""The highest page one may ask for (a bound on the offset a query skips)."""

TopQuery = Annotated[int, Query(ge=1, le=MOST, description="The most lines each list holds.")]
PageQuery = Annotated[
    int,
    Query(
        ge=1,
        le=PAGES,
        description="Which page of ``top`` lines the leaderboard shows: the overall one, or ``variant``'s.",
    ),
]


def _title(variant: str) -> str:
    try:
        return load_variant(variant).title
    except DippouchError:
        return variant  # a variant no longer installed: its games still count, under its name


def _board(web: Web, sizes: Mapping[str, PoolCount], variant: str | None, top: int, page: int = 1) -> Leaderboard:
    b: RatingBoard = board(web.read, variant, offset=(page - 1) * top, limit=top, sizes=sizes)
    return Leaderboard(
        variant=variant,
        title="Overall" if variant is None else _title(variant),
        people=b.people,
        games=b.games,
        page=page,
        pages=max(1, math.ceil(b.people / top)),
        one_on_one=variant is not None and one_on_one(variant),
        lines=[
            RatingLine(
                rank=p.rank,
                person_id=p.person_id,
                name=p.name,
                rating=round(p.rating, 2),
                games=p.games,
                finished=round(p.finished * 100, 1) if p.finished is not None else None,
            )
            for p in b.places
        ],
    )


def _fame(web: Web, entries: list[HallEntry]) -> list[FameLine]:
    names = person_names(web.read, (h.person_id for h in entries))
    return [
        FameLine(
            game=h.game,
            variant=h.variant,
            ended_at=h.ended_at,
            power=h.power,
            person_id=h.person_id,
            name=names[h.person_id].name if h.person_id in names and not names[h.person_id].deleted else None,
            score=round(h.score, 2),
            system=h.system,
            share=round(h.share * 100, 1),
        )
        for h in entries
    ]


@dataclass(frozen=True)
class PoolRating:
    """A person's rating in one pool as their page shows it, with their place on its leaderboard."""

    variant: str | None
    """``None``: the overall pool."""
    title: str
    rating: float
    games: int
    rank: int
    rated: int
    """How many people the pool rates."""


@dataclass(frozen=True)
class PersonRatings:
    """A person's ratings as their page shows them: the overall one (absent for someone who has played only
    one-on-one games, rated in their own pool alone) and one per variant they were rated in, so a duel
    player's standing is on their page and not only on the ratings page."""

    overall: PoolRating | None
    variants: tuple[PoolRating, ...]


def person_rating(web: Web, person_id: int) -> PersonRatings | None:
    """``person_id``'s ratings as stored (``None``: not rated yet)."""
    mine = ratings_of(web.read, person_id)
    if not mine:
        return None
    lines = {
        pool: PoolRating(pool, _title(pool) if pool else "", round(r.rating, 2), r.games, r.rank, r.rated)
        for pool, r in mine.items()
    }
    overall = lines.pop(None, None)
    return PersonRatings(overall, tuple(sorted(lines.values(), key=lambda r: (r.title.casefold(), r.variant))))


def ratings_view(
    web: Web, variant: str | None, top: int, page: int = 1, *, for_page: bool = False, lang: str = DEFAULT
) -> RatingsView:
    """The leaderboards and hall of fame; ``variant`` keeps only that variant's leaderboard and hall (an
    unknown one is refused naming those that have one). ``page`` pages the overall leaderboard, or
    ``variant``'s; the others show their first ``top`` lines. Why a game is not scored is said in ``lang``."""
    chosen = variant or None
    sizes = pools(web.read)
    known = list(groups(web.read, sizes))
    if chosen is not None:
        boards = [_board(web, sizes, chosen, top, page)]  # refuses an unknown variant first
        overall = _board(web, sizes, None, top)
    else:
        overall = _board(web, sizes, None, top, page)
        # Past the first page the overall leaderboard is read alone: the others are on the first.
        # One-on-one pools first: rated apart from the overall one, they are shown apart from the variants'.
        boards = (
            [_board(web, sizes, g, top) for g in sorted(known, key=lambda g: not one_on_one(g))] if page == 1 else []
        )
    return RatingsView(
        top=top,
        page=page,
        variant=chosen,
        variants=known,
        overall=overall,
        by_variant=boards,
        solos=_fame(web, hall_of_fame(web.read, solo=True, group=chosen, limit=top)),
        best=_fame(web, hall_of_fame(web.read, solo=False, group=chosen, limit=top)),
        # Public games only, as in the hall: an unlisted game's name is its secret.
        unscored=[f"{game}: {say(why, lang)}" for game, why in unscored(web.read)],
        variant_titles={g: _title(g) for g in known} if for_page else None,
    )


@router.get("/ratings", include_in_schema=False, response_class=HTMLResponse)
def ratings_page(
    request: Request, web: WebDep, variant: str | None = None, top: TopQuery = TOP, page: PageQuery = 1
) -> Response:
    """The ratings page shows what ``GET /api/ratings`` answers."""
    r = ratings_view(web, variant, top, page, for_page=True, lang=language(request))
    # The page names the overall board in the reader's language; the JSON answer keeps "Overall".
    overall = r.overall.model_copy(update={"title": words(request).gettext("Overall")})
    return render(request, "ratings.html", {"r": r.model_copy(update={"overall": overall})})


@router.get("/api/ratings", **answers(RatingsView))
def api_ratings(web: WebDep, variant: str | None = None, top: TopQuery = TOP, page: PageQuery = 1) -> RatingsView:
    """Ratings from every finished game (Ghost Ratings; practice games, bots and private games never count):
    the overall leaderboard, one per variant (or only ``variant``'s), and the hall of fame, the solos and
    the best results short of a solo, each with its game. ``page`` pages the overall leaderboard, or
    ``variant``'s (past the first page of the overall one, the variants' are left out)."""
    return ratings_view(web, variant, top, page)
