"""Tournaments: the list and one tournament's standings (``/tournaments``, ``/tournaments/{name}``), their JSON
(``GET /api/tournaments``, ``GET /api/tournaments/{name}``), and the forms and calls that create one and add or
remove its games.

The numbers are :mod:`dippouch.play.tournaments`'s, the same ``dippouch tournament standings`` prints,
recomputed from the games at each request (each finished game's scores kept with the app until that game
changes: :class:`~dippouch.play.tournaments.ScoresCache`). Everyone may read a tournament. Who may change one:

- **create**: the installation's coordinator, or any person signed in (who then runs it);
- **add a game**: whoever runs the tournament (the installation's coordinator, or the person who created it),
  and only a game they coordinate (:meth:`~dippouch.web.http.security.Viewer.coordinates`: a game's coordinator key,
  a game a person started from a template, or the installation's key): adding a game lists it on a public page;
- **remove a game**: whoever runs the tournament.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.catalog import variant_names
from dippouch.core.messages import N_, msg
from dippouch.i18n import DEFAULT
from dippouch.play import tournaments as use
from dippouch.ranking.scoring import ScoringSystem, systems
from dippouch.saying import say
from dippouch.store.tournaments.stored import Tournament, tournament
from dippouch.web.http.deps import ViewerDep, WebDep, WriterDep, answers, language, render, words
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.security import Forbidden, NeedsKey, Viewer
from dippouch.web.http.service import Web
from dippouch.web.views.answers.records import ScoringSystemInfo
from dippouch.web.views.answers.tournaments import (
    StandingLine,
    TournamentGameLine,
    TournamentLine,
    TournamentsView,
    TournamentView,
)

I18N_DOMAIN = "tournaments"

router = APIRouter(tags=["api"])

NEED_SIGN_IN = N_(
    "sign in first: a tournament is created by the installation's coordinator or by a person signed in "
    "(ask for a link by e-mail on the sign-in page, /signin)"
)
NEED_CREATOR = N_(
    "a tournament is created by the installation's coordinator or by a person signed in; a key of one game "
    "is not enough: sign in as a person (/signin)"
)


def tournament_url(name: str) -> str:
    """A tournament's page: its name quoted whole."""
    return "/tournaments/" + quote(name, safe="")


def may_create(viewer: Viewer) -> bool:
    return viewer.coordinates(None) or viewer.person_id is not None


def runs(viewer: Viewer, t: Tournament) -> bool:
    """Whether the viewer runs ``t``: the installation's coordinator, or the person who created it."""
    return viewer.coordinates(None) or (t.creator_id is not None and viewer.person_id == t.creator_id)


def require_create(viewer: Viewer) -> None:
    if not viewer.signed_in:
        raise NeedsKey(NEED_SIGN_IN)
    if not may_create(viewer):
        raise Forbidden(NEED_CREATOR)


def require_run(viewer: Viewer, t: Tournament) -> None:
    if not viewer.signed_in:
        raise NeedsKey(msg("sign in first: tournament %(name)s is run by the person who created it", name=repr(t.name)))
    if not runs(viewer, t):
        raise Forbidden(
            msg(
                "only the person who created tournament %(name)s, or the installation's coordinator, changes its games",
                name=repr(t.name),
            )
        )


def require_add(web: Web, viewer: Viewer, t: Tournament, game: str) -> None:
    """The viewer runs ``t`` and coordinates ``game`` (a game they may not see is not found, as everywhere)."""
    require_run(viewer, t)
    web.require_visible(game, viewer)
    if not viewer.coordinates(game):
        raise Forbidden(
            msg(
                "you may add only games you coordinate to a tournament (its page is public); %(game)s is not one of "
                "them",
                game=repr(game),
            )
        )


def _info(system: ScoringSystem) -> ScoringSystemInfo:
    return ScoringSystemInfo(name=system.name, title=system.title, source=system.source)


def tournaments_view(web: Web, viewer: Viewer, *, page: bool = False) -> TournamentsView:
    return TournamentsView(
        tournaments=[
            TournamentLine(
                name=s.tournament.name,
                system=s.tournament.system,
                system_title=s.system.title if s.system is not None else s.tournament.system,
                variant=s.tournament.variant,
                games=len(s.tournament.games),
                finished=s.finished,
                created_at=s.tournament.created_at,
            )
            for s in use.list_tournaments(web.read)
        ],
        systems=[_info(s) for s in systems().values()],
        may_create=may_create(viewer) if page else None,
        variants=variant_names() if page and may_create(viewer) else None,
    )


def tournament_view(web: Web, name: str, viewer: Viewer, *, page: bool = False, lang: str = DEFAULT) -> TournamentView:
    s = use.standings(web.read, name, web.kept(__name__, use.ScoresCache))
    return TournamentView(
        name=s.tournament.name,
        system=_info(s.system),
        variant=s.tournament.variant,
        created_at=s.tournament.created_at,
        standings=[
            StandingLine(
                rank=line.rank,
                person_id=line.person_id,
                name=line.name,
                total=round(line.total, 4),
                games=line.games,
                best=round(line.best, 4),
            )
            for line in s.lines
        ],
        games=[
            TournamentGameLine(
                game=g.game,
                round=g.round,
                variant=g.variant,
                status=g.status,
                note=say(g.note, lang) if g.note is not None else None,
            )
            for g in s.games
        ],
        counted=s.counted,
        hidden=s.hidden,
        may_add=runs(viewer, s.tournament) if page else None,
    )


def _create(web: Web, viewer: Viewer, name: str, system: str, variant: str) -> Tournament:
    require_create(viewer)
    # The installation's key alone is no person: its tournaments are run by whoever holds that key.
    creator = viewer.person_id if not viewer.coordinates(None) else None
    return use.new_tournament(web.store, name, system, variant=variant, creator_id=creator, now=web.now())


def _add(web: Web, viewer: Viewer, name: str, game: str, in_round: str | int | None) -> Tournament:
    t = tournament(web.read, name)
    require_add(web, viewer, t, game.strip())
    return use.add_game(web.store, t.name, game, in_round=in_round, now=web.now())


def _remove(web: Web, viewer: Viewer, name: str, game: str) -> Tournament:
    t = tournament(web.read, name)
    require_run(viewer, t)
    return use.remove_game(web.store, t.name, game)


# --------------------------------------------------------------------------------------------------
# Pages and their forms


@router.get("/tournaments", include_in_schema=False, response_class=HTMLResponse)
def tournaments_page(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    """The list of tournaments shows what ``GET /api/tournaments`` answers, and the form that creates one."""
    return render(request, "tournaments.html", {"r": tournaments_view(web, viewer, page=True)})


@router.post("/tournaments", include_in_schema=False)
def tournaments_create(request: Request, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Create a tournament (``name``, ``system``, ``variant`` or empty for any) and open its page."""
    t = _create(web, viewer, form.get("name", ""), form.get("system", ""), form.get("variant", ""))
    said = words(request).gettext("Tournament %(name)s created: add its games below.") % {"name": t.name}
    return redirect(tournament_url(t.name), said)


@router.get("/tournaments/{name}", include_in_schema=False, response_class=HTMLResponse)
def tournament_page(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    """A tournament's standings and games, as ``GET /api/tournaments/{name}`` answers them."""
    view = tournament_view(web, name, viewer, page=True, lang=language(request))
    return render(request, "tournament.html", {"r": view, "url": tournament_url(view.name)})


@router.post("/tournaments/{name}/games", include_in_schema=False)
def tournament_add(request: Request, name: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Add a game (``game``, ``round`` or empty) to the tournament."""
    game = form.get("game", "")
    t = _add(web, viewer, name, game, form.get("round", ""))
    said = words(request).gettext("Game %(game)s added.") % {"game": game.strip()}
    return redirect(tournament_url(t.name), said)


@router.post("/tournaments/{name}/games/remove", include_in_schema=False)
def tournament_remove(request: Request, name: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Take a game (``game``) out of the tournament; the game itself is untouched."""
    game = form.get("game", "")
    t = _remove(web, viewer, name, game)
    said = words(request).gettext("Game %(game)s taken out of the tournament.") % {"game": game.strip()}
    return redirect(tournament_url(t.name), said)


# --------------------------------------------------------------------------------------------------
# JSON


class NewTournament(BaseModel):
    name: str = Field(max_length=200, description="Its name, which is part of its address.")
    system: str = Field(
        max_length=100, description="A shipped scoring system's name (GET /api/tournaments lists them)."
    )
    variant: str = Field("", max_length=200, description="The one variant its games must play; empty for any.")


class AddedGame(BaseModel):
    game: str = Field(max_length=200, description="A game you coordinate.")
    round: int | None = Field(None, description="The round it is played in (1 to 99); null for none.")


@router.get("/api/tournaments", **answers(TournamentsView))
def api_tournaments(web: WebDep, viewer: ViewerDep) -> TournamentsView:
    """Every tournament (newest first), with its scoring system and how many of its games are finished."""
    return tournaments_view(web, viewer)


@router.post("/api/tournaments", **answers(TournamentView))
def api_create(web: WebDep, viewer: WriterDep, body: NewTournament) -> TournamentView:
    """Create a tournament (the installation's coordinator, or a person signed in, who then runs it)."""
    t = _create(web, viewer, body.name, body.system, body.variant)
    return tournament_view(web, t.name, viewer)


@router.get("/api/tournaments/{name}", **answers(TournamentView))
def api_tournament(name: str, web: WebDep, viewer: ViewerDep) -> TournamentView:
    """A tournament's standings under its scoring system (each player's total over its finished games, the
    games counted, the best game), and its games with their round and status; recomputed from the games."""
    return tournament_view(web, name, viewer)


@router.post("/api/tournaments/{name}/games", **answers(TournamentView))
def api_add(name: str, web: WebDep, viewer: WriterDep, body: AddedGame) -> TournamentView:
    """Add a game you coordinate to a tournament you run."""
    t = _add(web, viewer, name, body.game, body.round)
    return tournament_view(web, t.name, viewer)


@router.delete("/api/tournaments/{name}/games/{game}", **answers(TournamentView))
def api_remove(name: str, game: str, web: WebDep, viewer: WriterDep) -> TournamentView:
    """Take a game out of a tournament you run (the game itself is untouched)."""
    t = _remove(web, viewer, name, game)
    return tournament_view(web, t.name, viewer)
