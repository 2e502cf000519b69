"""Open games and the replacement pool on the web: the list of games waiting for players (``/open``), a game's
opening (what it asks, sign-up with ranked wishes, the coordinator's desk of sign-ups), claiming an abandoned
seat, and a person's public page (name, games played, reliability; never an address).

Pages and the JSON API call the same functions here, as the other rooms do (:mod:`dippouch.web.service`).
Acting as a person needs a browser signed in as that person: a sign-up or a claim is always the caller's own
(no call names someone else). Every state-changing call is CSRF-checked for cookie callers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request

from dippouch.people.assign import ANY
from dippouch.store import openings as store_openings
from dippouch.store.reliability import ALL, Shown, profile
from dippouch.web.answers import (
    ClaimAnswer,
    DrawAnswer,
    OpeningView,
    OpenList,
    PersonProfile,
    SignupAnswer,
)
from dippouch.web.deps import answers, game_url, render, viewer_of, web_of, writer
from dippouch.web.forms import read_form, redirect
from dippouch.web.inputs import number, number_or_none
from dippouch.web.security import (
    BadInput,
    NeedsKey,
    NotFound,
    Viewer,
)
from dippouch.web.service import Web

__all__ = ["api", "pages"]

pages = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", tags=["open games"])

MAX_WISHES = 20
"""Ranked wishes a sign-up may list (W3K has ten powers)."""


# --------------------------------------------------------------------------------------------------
# What the pages and the API show and do


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def _opening_data(o: store_openings.Opening, *, desk: bool, me: int | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": o.game,
        "variant": o.variant,
        "press": o.press,
        "min_reliability": o.min_reliability,
        "mode": o.mode,
        "deadlines": dict(o.deadlines),
        "deadline": _iso(o.deadline),
        "seats_total": len(o.powers),
        "seats_taken": o.taken,
        "empty": list(o.empty),
        "powers": list(o.powers),
        "signups": len(o.waiting),
        "open": o.closed_at is None and bool(o.empty),
        "signed_up": any(s.person_id == me for s in o.waiting) if me is not None else False,
    }
    if me is not None:
        mine = next((s for s in o.waiting if s.person_id == me), None)
        if mine is not None:
            data["my_wishes"] = list(mine.preferences)
    if desk:
        data["waiting"] = [
            {
                "person": s.person_id,
                "name": s.name,
                "preferences": list(s.preferences),
                "reliability": s.reliability,
                "signed_at": s.signed_at.isoformat(),
            }
            for s in o.waiting
        ]
        if o.draw is not None:
            data["draw"] = o.draw
    return data


def open_list(web: Web) -> dict[str, Any]:
    """Games waiting for players, and seats wanting a replacement."""
    return {
        "games": [_opening_data(o, desk=False, me=None) for o in store_openings.open_games(web.read)],
        "replacements": [
            {
                "game": x.game,
                "variant": x.variant,
                "power": x.power,
                "reason": x.reason,
                "min_reliability": x.min_reliability,
                "deadline": _iso(x.deadline),
            }
            for x in store_openings.offered_seats(web.read)
        ],
    }


def opening_view(web: Web, name: str, viewer: Viewer) -> dict[str, Any]:
    web.require_visible(name, viewer)
    o = store_openings.opening(web.read, name)
    if o is None:
        if viewer.coordinates(name):
            return {"game": name, "opened": False, "powers": list(web.variant_of(name).power_names)}
        raise NotFound(f"{name} is not open for players")
    data = _opening_data(o, desk=viewer.coordinates(name), me=viewer.person_id)
    data["opened"] = True
    data["replacements"] = [x.power for x in store_openings.offered_seats(web.read, name)]
    return data


def _counted_for(viewer: Viewer, person_id: int) -> Shown:
    """The games hiding their players' names that count on ``person_id``'s page for this reader: all of them
    for the person themselves (and the installation's coordinator), the ones they coordinate for a game's
    coordinator, none for anyone else (:mod:`dippouch.store.reliability`)."""
    if viewer.person_id == person_id or viewer.coordinates(None):
        return ALL
    return frozenset(g for g in viewer.coordinated_games() if g is not None)


def person_view(web: Web, person_id: int, viewer: Viewer) -> dict[str, Any]:
    p = profile(web.read, person_id, shown=_counted_for(viewer, person_id))
    if p is None:
        raise NotFound(f"no person {person_id} here")
    r = p.record
    data: dict[str, Any] = {
        "id": p.id,
        "name": p.name,
        "games": p.games,
        "reliability": p.reliability,
        "record": {
            "on_time": r.on_time,
            "late": r.late,
            "missed": r.missed,
            "excused": r.excused,
            "seats": r.seats,
            "abandoned": r.abandoned,
        },
    }
    if p.hidden_games:
        data["hidden_games"] = p.hidden_games
    return data


def _person(viewer: Viewer) -> int:
    if viewer.person_id is None:
        raise NeedsKey("sign in as a person first (a link mailed to you): sign-ups and claims are a person's own")
    return viewer.person_id


def _mode(text: str) -> str:
    text = text.strip().lower()
    if text not in store_openings.MODES:
        raise BadInput(f"assignment mode {text!r}: choose {' or '.join(store_openings.MODES)}")
    return text


def open_game(web: Web, name: str, viewer: Viewer, press: str, min_reliability: int, mode: str) -> dict[str, Any]:
    web.require_coordinator(name, viewer)
    with web.writes:
        store_openings.open_game(
            web.store, name, now=web.now(), press=press, min_reliability=min_reliability, mode=_mode(mode)
        )
    web.touched(name)
    return opening_view(web, name, viewer)


def sign_up(web: Web, name: str, viewer: Viewer, wishes: list[str]) -> dict[str, Any]:
    me = _person(viewer)
    web.require_visible(name, viewer)
    if len(wishes) > MAX_WISHES:
        raise BadInput(f"{len(wishes)} wishes; rank at most {MAX_WISHES} powers")
    with web.writes:
        o = store_openings.sign_up(web.store, name, me, wishes, now=web.now())
    web.touched(name)
    seated = next((s.seated_as for s in o.signups if s.person_id == me and s.seated_as), None)
    return {"game": name, "signed_up": seated is None, "seated_as": seated, "seats_taken": o.taken}


def withdraw(web: Web, name: str, viewer: Viewer) -> dict[str, Any]:
    me = _person(viewer)
    web.require_visible(name, viewer)
    with web.writes:
        store_openings.withdraw(web.store, name, me, now=web.now())
    return {"game": name, "signed_up": False, "seated_as": None}


def assign(web: Web, name: str, viewer: Viewer, person: int, power: str) -> dict[str, Any]:
    web.require_coordinator(name, viewer)
    with web.writes:
        power = store_openings.assign_signup(web.store, name, person, power, now=web.now())
    web.touched(name)
    return {"game": name, "power": power}


def draw(web: Web, name: str, viewer: Viewer) -> dict[str, Any]:
    """The coordinator draws the powers for the people waiting now, before the game is full (the rest of
    the empty powers stay open for sign-up)."""
    web.require_coordinator(name, viewer)
    with web.writes:
        got = store_openings.fill_from_preferences(web.store, name, now=web.now())
    web.touched(name)
    if not got:
        raise BadInput(f"nobody is waiting for a power in {name}")
    return {"game": name, "seated": {str(k): v for k, v in sorted(got.items())}}


def free(web: Web, name: str, viewer: Viewer, power: str) -> dict[str, Any]:
    web.require_coordinator(name, viewer)
    with web.writes:
        power = store_openings.free_seat(web.store, name, power, now=web.now())
    web.touched(name)
    return {"game": name, "power": power}


def claim(web: Web, name: str, viewer: Viewer, power: str) -> dict[str, Any]:
    """Take a seat from the pool; the old player's links for the power stop working."""
    me = _person(viewer)
    web.require_visible(name, viewer)
    now = web.now()
    with web.writes:
        power = store_openings.claim_seat(web.store, name, power, me, now=now)
        web.access.revoke_power_keys(name, power, now=now)
    web.touched(name)
    return {"game": name, "power": power}


# --------------------------------------------------------------------------------------------------
# The JSON API (every answer's shape is in dippouch.web.answers)


NEED_SIGN_IN = "sign in first: this call needs a person signed in (a link mailed to you) or a coordinator's key"
"""What a state-changing call here tells a caller with no credentials: sign-ups are a person's, not a key's."""


class Strict(BaseModel):
    """A request body that names only its own fields: one naming a person (to act for someone else) is
    refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


class OpeningIn(Strict):
    press: str = Field("", max_length=store_openings.MAX_PRESS, description="The press rules, as free text.")
    min_reliability: int = Field(0, ge=0, le=100, description="Percent a player's reliability must reach.")
    mode: str = Field("coordinator", max_length=20, description="coordinator or preferences")


class SignupIn(Strict):
    preferences: list[str] = Field(
        default_factory=list,
        max_length=MAX_WISHES,
        description='Power names, best first; "any" for every power not named.',
    )


class AssignIn(Strict):
    person: int = Field(description="The person (who signed up) to seat.")
    power: str = Field(max_length=100)


class PowerIn(Strict):
    power: str = Field(max_length=100)


@api.get("/open", **answers(OpenList))
def api_open(request: Request) -> dict[str, Any]:
    """Games waiting for players (variant, deadlines, press, seats, reliability asked) and seats wanting a
    replacement."""
    return open_list(web_of(request))


@api.get("/people/{person_id}", **answers(PersonProfile))
def api_person(request: Request, person_id: int) -> dict[str, Any]:
    """A person's public profile: name, games played, reliability and the record behind it. An anonymous
    game counts once it ends; before, only for the person and the game's coordinator (``hidden_games``)."""
    return person_view(web_of(request), person_id, viewer_of(request))


@api.get("/games/{name}/opening", **answers(OpeningView))
def api_opening(request: Request, name: str) -> dict[str, Any]:
    """A game's opening; its coordinator also sees the sign-ups with their wishes and reliability."""
    return opening_view(web_of(request), name, viewer_of(request))


@api.post("/games/{name}/opening", **answers(OpeningView))
def api_open_game(request: Request, name: str, body: OpeningIn) -> dict[str, Any]:
    """Open the game for players, or change what its opening asks (its coordinator)."""
    return open_game(web_of(request), name, writer(request, NEED_SIGN_IN), body.press, body.min_reliability, body.mode)


@api.post("/games/{name}/signup", **answers(SignupAnswer))
def api_sign_up(request: Request, name: str, body: SignupIn) -> dict[str, Any]:
    """Sign the signed-in person up with their ranked wishes (again: change them)."""
    return sign_up(web_of(request), name, writer(request, NEED_SIGN_IN), body.preferences)


@api.post("/games/{name}/withdraw", **answers(SignupAnswer))
def api_withdraw(request: Request, name: str) -> dict[str, Any]:
    """Take back the signed-in person's sign-up."""
    return withdraw(web_of(request), name, writer(request, NEED_SIGN_IN))


@api.post("/games/{name}/opening/assign", **answers(ClaimAnswer))
def api_assign(request: Request, name: str, body: AssignIn) -> dict[str, Any]:
    """Seat a person who signed up in an empty power (the game's coordinator)."""
    return assign(web_of(request), name, writer(request, NEED_SIGN_IN), body.person, body.power)


@api.post("/games/{name}/opening/draw", **answers(DrawAnswer))
def api_draw(request: Request, name: str) -> dict[str, Any]:
    """Draw the empty powers for the people waiting now, from their wishes (the game's coordinator)."""
    return draw(web_of(request), name, writer(request, NEED_SIGN_IN))


@api.post("/games/{name}/opening/free", **answers(ClaimAnswer))
def api_free(request: Request, name: str, body: PowerIn) -> dict[str, Any]:
    """Offer a played seat to the replacement pool (the game's coordinator)."""
    return free(web_of(request), name, writer(request, NEED_SIGN_IN), body.power)


@api.post("/games/{name}/claim", **answers(ClaimAnswer))
def api_claim(request: Request, name: str, body: PowerIn) -> dict[str, Any]:
    """Take a seat from the replacement pool as the signed-in person (the first claim wins)."""
    return claim(web_of(request), name, writer(request, NEED_SIGN_IN), body.power)


# --------------------------------------------------------------------------------------------------
# Pages


def _url(name: str) -> str:
    return game_url(name) + "/opening"


def _int(text: str, what: str, lo: int, hi: int) -> int:
    return number(text.strip() or "0", what, lo=lo, hi=hi)


@pages.get("/open", response_class=HTMLResponse)
def open_page(request: Request) -> Response:
    return render(request, "open.html", {"o": open_list(web_of(request))})


@pages.get("/people/{person_id}", response_class=HTMLResponse)
def person_page(request: Request, person_id: int) -> Response:
    return render(request, "person.html", {"p": person_view(web_of(request), person_id, viewer_of(request))})


@pages.get("/games/{name}/opening", response_class=HTMLResponse)
def opening_page(request: Request, name: str) -> Response:
    web, viewer = web_of(request), viewer_of(request)
    data = opening_view(web, name, viewer)
    return render(request, "opening.html", {"o": data, "any": ANY, "desk": viewer.coordinates(name)})


@pages.post("/games/{name}/opening/{action}")
async def opening_action(request: Request, name: str, action: str) -> Response:
    form = await read_form(request)
    web, viewer = web_of(request), viewer_of(request)
    back = _url(name)
    if action == "open":
        await run_in_threadpool(
            open_game,
            web,
            name,
            viewer,
            form.get("press", ""),
            _int(form.get("min_reliability", ""), "the minimum reliability", 0, 100),
            form.get("mode", ""),
        )
        return redirect(back, f"{name} is open for players.")
    if action == "signup":
        wishes = [form[k] for k in sorted((k for k in form if k.startswith("wish")), key=_rank) if form[k]]
        got = await run_in_threadpool(sign_up, web, name, viewer, wishes)
        if got["seated_as"]:
            return redirect(game_url(name), f"The game is full: you play {got['seated_as']}.")
        return redirect(back, f"You signed up to {name}.")
    if action == "withdraw":
        await run_in_threadpool(withdraw, web, name, viewer)
        return redirect(back, f"You withdrew from {name}.")
    if action == "assign":
        person = _int(form.get("person", ""), "the person", 1, 10**12)
        got = await run_in_threadpool(assign, web, name, viewer, person, form.get("power", ""))
        return redirect(back, f"{got['power']} is given.")
    if action == "draw":
        got = await run_in_threadpool(draw, web, name, viewer)
        return redirect(back, "Drawn: " + ", ".join(sorted(got["seated"].values())) + ".")
    if action == "free":
        got = await run_in_threadpool(free, web, name, viewer, form.get("power", ""))
        return redirect(back, f"{got['power']}'s seat is offered to the replacement pool.")
    if action == "claim":
        got = await run_in_threadpool(claim, web, name, viewer, form.get("power", ""))
        return redirect(f"{game_url(name)}/play/{quote(got['power'], safe='')}", f"You play {got['power']} now.")
    raise NotFound(f"no action {action!r} here: open, signup, withdraw, assign, draw, free or claim")


def _rank(key: str) -> int:
    rank = number_or_none(key.removeprefix("wish"))
    return 10**6 if rank is None else rank
