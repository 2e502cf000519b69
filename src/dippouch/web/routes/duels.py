"""Quick one-on-one matchmaking on the web (docs/duels.md): the queue's page and its forms (``/duels``), and the
same as JSON (``GET``, ``POST`` and ``DELETE /api/duels``). What pairs whom, the limits, and how the people are
told are :mod:`dippouch.play.duels`'s; this module reads the form and answers. A person must be signed in: a
game is played by people, and the queue is theirs.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.play import duels as use
from dippouch.web.http.deps import ViewerDep, WebDep, WriterDep, answers, layer_words, render
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.security import NeedsKey, Viewer
from dippouch.web.http.service import Web
from dippouch.web.views.answers.base import Answer

I18N_DOMAIN = "site"

router = APIRouter(tags=["api"])


class DuelGameLine(Answer):
    game: str
    power: str
    status: str = Field(description="The game's state: active, paused or finished.")


class DuelQueue(Answer):
    """The one-on-one queue as the asker sees it."""

    waiting: bool = Field(description="Whether you wait for an opponent now.")
    pairing: str | None = Field(description="What you asked for while you wait: fva or any.")
    asked_at: datetime | None
    ahead: int | None = Field(description="People waiting who asked before you (0: the next request plays you).")
    others: int = Field(description="Other people waiting now.")
    running: int = Field(description="Your one-on-one games not finished.")
    most: int = Field(description="The most one-on-one games not finished one may play at once.")
    games: list[DuelGameLine] = Field(description="Your one-on-one games, the newest first.")


class DuelAsked(Answer):
    game: str | None = Field(description="The game you were paired into; null while you wait.")
    power: str | None
    opponent: str | None
    text: str


class DuelRequest(BaseModel):
    pairing: str = Field("fva", max_length=20, description="fva (France against Austria) or any (the game chooses).")


def _person(viewer: Viewer) -> int:
    if viewer.person_id is None:
        raise NeedsKey(msg("sign in first: a one-on-one game is played by a person signed in (/signin)"))
    return viewer.person_id


def queue(web: Web, viewer: Viewer) -> DuelQueue:
    v = use.queue_view(web.read, viewer.person_id)
    w = v.waiting
    return DuelQueue(
        waiting=w is not None,
        pairing=w.pairing if w else None,
        asked_at=w.asked_at if w else None,
        ahead=w.ahead if w else None,
        others=v.others,
        running=v.running,
        most=v.most,
        games=[DuelGameLine(game=g.game, power=g.power, status=g.status) for g in v.games],
    )


def _ask(web: Web, viewer: Viewer, pairing: str) -> use.Asked:
    person = _person(viewer)
    got = use.ask_for_duel(web.store, person, pairing, now=web.now())
    if got.got.game is not None:
        web.touched(got.got.game)
    return got


@router.get("/duels", include_in_schema=False, response_class=HTMLResponse)
def duels_page(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    """The queue's page: ask for a one-on-one game, or leave the queue; one's one-on-one games."""
    return render(request, "duels.html", {"r": queue(web, viewer), "signed_in": viewer.person_id is not None})


@router.post("/duels", include_in_schema=False)
def duels_ask(request: Request, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Ask for a one-on-one game (``pairing``): paired at once into a game, or put in the queue."""
    got = _ask(web, viewer, form.get("pairing", "fva"))
    said = layer_words(request, got.message)
    if got.got.game is not None:
        return redirect("/games/" + quote(got.got.game, safe=""), said)
    return redirect("/duels", said)


@router.post("/duels/leave", include_in_schema=False)
def duels_leave(request: Request, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Leave the queue."""
    person = _person(viewer)
    said = use.leave_queue(web.store, person, now=web.now())
    return redirect("/duels", layer_words(request, said))


@router.get("/api/duels", **answers(DuelQueue))
def api_queue(web: WebDep, viewer: ViewerDep) -> DuelQueue:
    """The one-on-one queue: how many wait, and for a person signed in their wait and their one-on-one games."""
    return queue(web, viewer)


@router.post("/api/duels", **answers(DuelAsked))
def api_ask(web: WebDep, viewer: WriterDep, body: DuelRequest) -> DuelAsked:
    """Ask for a one-on-one game: paired at once with the person waiting longest (``game`` names the new game,
    both seated), or put in the queue (``game`` null). At most one wait at a time, and a few games not finished."""
    got = _ask(web, viewer, body.pairing)
    return DuelAsked(
        game=got.got.game,
        power=got.got.power,
        opponent=got.got.opponent,
        text=str(got.message),
    )


@router.delete("/api/duels", **answers(DuelQueue))
def api_leave(web: WebDep, viewer: WriterDep) -> DuelQueue:
    """Leave the queue (nothing happens when you were not waiting); the queue as it is then."""
    person = _person(viewer)
    use.leave_queue(web.store, person, now=web.now())
    return queue(web, viewer)
