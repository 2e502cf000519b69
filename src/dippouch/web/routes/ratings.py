"""Ratings: the leaderboards, overall and per variant, and the hall of fame; page and JSON (``/ratings``,
``GET /api/ratings``).

The numbers are :mod:`dippouch.play.ratings`'s, the same ``dippouch ratings`` prints, kept with the app
(:class:`~dippouch.play.ratings.RatingsCache`) until a game finishes, or a finished one changes its scoring
system or visibility: a page does not score every finished game again. What counts (no practice game, no
bot, no private game) is that module's to say; everyone may read the result, signed in or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.catalog import load_variant
from dippouch.core.errors import DippouchError
from dippouch.play.ratings import HallEntry, RatingsCache, Standings, leaderboard, standings
from dippouch.store.finished_games import person_names
from dippouch.web.answers.ratings import FameLine, Leaderboard, RatingLine, RatingsView
from dippouch.web.deps import WebDep, answers, render, words
from dippouch.web.service import Web

router = APIRouter(tags=["api"])

I18N_DOMAIN = "site"

TOP = 20
"""Lines a leaderboard shows unless asked for more."""
MOST = 500
"""The most lines one may ask for (``?top=``)."""

TopQuery = Annotated[int, Query(ge=1, le=MOST, description="The most lines each list holds.")]


def _title(variant: str) -> str:
    try:
        return load_variant(variant).title
    except DippouchError:
        return variant  # a variant no longer installed: its games still count, under its name


def _board(web: Web, s: Standings, variant: str | None, top: int) -> Leaderboard:
    places = leaderboard(web.read, s, variant, top)
    pool = s.ratings.overall if variant is None else s.ratings.by_group[variant]
    return Leaderboard(
        variant=variant,
        title="Overall" if variant is None else _title(variant),
        people=len(pool),
        games=s.rated_games(variant),
        lines=[
            RatingLine(
                rank=p.rank,
                person_id=p.person_id,
                name=p.name,
                rating=round(p.rating, 2),
                games=p.games,
                reliability=p.reliability,
                finished=round(p.finished * 100, 1) if p.finished is not None else None,
            )
            for p in places
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
class PersonRating:
    """A person's overall rating as their page shows it, with their place on the overall leaderboard."""

    rating: float
    games: int
    rank: int
    rated: int
    """How many people the overall leaderboard rates."""


def person_rating(web: Web, person_id: int) -> PersonRating | None:
    """``person_id``'s overall rating from the standings this room keeps (``None``: not rated yet)."""
    s = standings(web.read, web.kept(__name__, RatingsCache))
    pool = s.ratings.overall
    mine = pool.get(str(person_id))
    if mine is None:
        return None
    # Equal ratings share a place, as on the leaderboard.
    rank = 1 + sum(1 for r in pool.values() if r.rating > mine.rating)
    return PersonRating(round(mine.rating, 2), mine.games, rank, len(pool))


def ratings_view(web: Web, variant: str | None, top: int, *, page: bool = False) -> RatingsView:
    """The leaderboards and hall of fame; ``variant`` keeps only that variant's leaderboard and hall (an
    unknown one is refused naming those that have one)."""
    s = standings(web.read, web.kept(__name__, RatingsCache))
    chosen = variant or None
    groups = [chosen] if chosen is not None else list(s.groups)
    boards = [_board(web, s, g, top) for g in groups]  # refuses an unknown variant first
    return RatingsView(
        top=top,
        variant=chosen,
        variants=list(s.groups),
        overall=_board(web, s, None, top),
        by_variant=boards,
        solos=_fame(web, s.solos(chosen, top)),
        best=_fame(web, s.best(chosen, top)),
        # Public games only, as in the hall: an unlisted game's name is its secret.
        unscored=[f"{r.game.name}: {r.problem}" for r in s.results if r.problem and r.game.visibility == "public"],
        variant_titles={g: _title(g) for g in s.groups} if page else None,
    )


@router.get("/ratings", include_in_schema=False, response_class=HTMLResponse)
def ratings_page(request: Request, web: WebDep, variant: str | None = None, top: TopQuery = TOP) -> Response:
    """The ratings page shows what ``GET /api/ratings`` answers."""
    r = ratings_view(web, variant, top, page=True)
    # The page names the overall board in the reader's language; the JSON answer keeps "Overall".
    overall = r.overall.model_copy(update={"title": words(request).gettext("Overall")})
    return render(request, "ratings.html", {"r": r.model_copy(update={"overall": overall})})


@router.get("/api/ratings", **answers(RatingsView))
def api_ratings(web: WebDep, variant: str | None = None, top: TopQuery = TOP) -> RatingsView:
    """Ratings from every finished game (Ghost Ratings; practice games, bots and private games never count):
    the overall leaderboard, one per variant (or only ``variant``'s), and the hall of fame, the solos and
    the best results short of a solo, each with its game."""
    return ratings_view(web, variant, top)
