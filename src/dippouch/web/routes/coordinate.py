"""The coordinator's desk: new and imported games, seats, links, bots, deadlines and the clock; pages and JSON."""

from __future__ import annotations

import functools
import json
from typing import Any

from fastapi import APIRouter, Body
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.bots import LEVELS
from dippouch.catalog import variants_usable
from dippouch.web import desk, games, new_games
from dippouch.web.answers import (
    ActionAnswer,
    BotSeatAnswer,
    CoordinatorView,
    CreatedAnswer,
    KeyAnswer,
    RevokedAnswer,
    SeatAnswer,
)
from dippouch.web.deps import (
    answers,
    game_url,
    render,
    site_of,
    viewer_of,
    web_of,
    writer,
)
from dippouch.web.forms import read_form, redirect
from dippouch.web.inputs import number_or_none
from dippouch.web.security import (
    BadInput,
)

router = APIRouter(tags=["api"])

MAX_FIELDS = 200
"""Fields a page's form may post (the coordinator's player table posts two a power)."""
MAX_PART_SIZE = 1_000_000
"""Bytes a page's text field may hold: orders are measured and refused in words by the submission itself."""

_form = functools.partial(read_form, max_fields=MAX_FIELDS, max_part_size=MAX_PART_SIZE)


@router.get("/coordinate", include_in_schema=False, response_class=HTMLResponse)
def coordinate_home(request: Request) -> Response:
    web = web_of(request)
    viewer = viewer_of(request)
    web.require_coordinator(None, viewer)
    good, broken = variants_usable()
    variants = [{"name": v.name, "title": v.title, "options": v.data.get("options", {})} for v in good]
    return render(
        request,
        "coordinate_home.html",
        {"games": games.games_list(web, viewer), "variants": variants, "broken": broken},
    )


@router.post("/coordinate/new", include_in_schema=False)
async def coordinate_new(request: Request) -> Response:
    form = await _form(request)
    web = web_of(request)
    name = await run_in_threadpool(new_games.create_game, web, viewer_of(request), form)
    return redirect(f"{game_url(name)}/coordinate", f"Created game {name}. Seat the players and send them their links.")


@router.post("/coordinate/import", include_in_schema=False)
async def coordinate_import(request: Request) -> Response:
    form = await _form(request, files=("file",))
    web = web_of(request)
    upload = form.file("file")
    if upload is None:
        raise BadInput("choose a game file (.json) to import")
    raw = await upload.read(5_000_001)
    if len(raw) > 5_000_000:
        raise BadInput("the game file is larger than 5 MB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(f"the file is not JSON text ({type(e).__name__}: {e})") from None
    name = await run_in_threadpool(new_games.import_game, web, viewer_of(request), data, form.get("name", "") or None)
    return redirect(f"{game_url(name)}/coordinate", f"Imported game {name}.")


@router.get("/games/{name}/coordinate", include_in_schema=False, response_class=HTMLResponse)
def coordinate_page(request: Request, name: str) -> Response:
    web = web_of(request)
    cv = desk.coordinator_view(web, name, viewer_of(request))
    return render(request, "coordinate.html", {"c": cv, "g": cv["game"], "bot_levels": LEVELS})


CONFIRMED = ("process", "rollback", "revoke")

"""Coordinator actions that cannot be taken back: carried out only with ``confirm=yes`` (a second post,
from the confirmation page)."""


@router.post("/games/{name}/coordinate/{action}", include_in_schema=False, response_class=HTMLResponse)
async def coordinate_action(request: Request, name: str, action: str) -> Response:
    form = await _form(request)
    web = web_of(request)
    viewer = viewer_of(request)
    back = f"{game_url(name)}/coordinate"
    if action in CONFIRMED and form.get("confirm", "") != "yes":
        # Cannot be taken back: a page says what will happen and asks again (no JavaScript needed).
        arg = form.get("key", "") if action == "revoke" else form.get("phase", "")
        what = await run_in_threadpool(desk.confirm_view, web, name, viewer, action, arg)
        return render(request, "confirm.html", {"c": what, "game": name, "action": action, "back": back})
    if action in ("assign", "replace", "link"):
        if action == "link":
            power, secret = await run_in_threadpool(
                desk.new_player_link, web, name, viewer, form.get("power", ""), form.get("reason", "")
            )
        else:
            power, secret = await run_in_threadpool(
                desk.assign,
                web,
                name,
                viewer,
                form.get("power", ""),
                form.get("player", ""),
                action == "replace",
                form.get("email", ""),
            )
        return _secret_page(request, name, f"{power}'s link", secret, back)
    if action == "seat-many":
        powers = [k.removeprefix("player:") for k in form if k.startswith("player:")]
        rows = [(pw, form.get(f"player:{pw}", ""), form.get(f"email:{pw}", "")) for pw in powers]
        base = site_of(request).public_url
        got = await run_in_threadpool(desk.seat_many, web, name, viewer, rows, base)
        return render(request, "seated.html", {"game": name, "s": got, "back": back})
    if action == "coordinator-key":
        secret = await run_in_threadpool(desk.new_coordinator_key, web, name, viewer, form.get("label", ""))
        return _secret_page(request, name, "a coordinator's link", secret, back)
    if action == "revoke":
        key = form.get("key", "")
        key_id = number_or_none(key)
        if key_id is None:
            raise BadInput(f"which key? (its number, not {key[:20]!r})")
        await run_in_threadpool(desk.revoke, web, name, viewer, key_id)
        return redirect(back, f"Key {key} revoked: its links no longer work.")
    if action == "email":
        msg = await run_in_threadpool(desk.set_email, web, name, viewer, form.get("power", ""), form.get("email", ""))
        return redirect(back, msg)
    if action == "seat-bot":
        got = await run_in_threadpool(desk.seat_bot, web, name, viewer, form.get("power", ""), form.get("level", ""))
        sent = f"; it sent version {got['version']}" if got["version"] else ""
        return redirect(back, f"{got['player']} now plays {got['power']}{sent}.")
    if action == "bot-policy":
        level = form.get("level", "")
        msg = await run_in_threadpool(desk.set_bot_policy, web, name, viewer, None if level in ("", "off") else level)
        return redirect(back, msg)
    if action == "deadlines":
        msg = await run_in_threadpool(desk.set_deadlines, web, name, viewer, form)
        return redirect(back, msg)
    arg = form.get("by", "") or form.get("phase", "") or form.get("visibility", "")
    msg = await run_in_threadpool(desk.clock_action, web, name, viewer, action, arg)
    return redirect(back, msg)


def _secret_page(request: Request, game: str, what: str, secret: str, back: str) -> Response:
    base = site_of(request).public_url
    return render(
        request, "secret.html", {"game": game, "what": what, "link": f"{base}/k/{secret}", "key": secret, "back": back}
    )


class PlayerIn(BaseModel):
    power: str = Field(max_length=100)
    player: str = Field(max_length=200)
    replace: bool = False
    email: str = Field("", max_length=320, description="The address the player's orders by mail must come from.")


class DeadlinesIn(BaseModel):
    movement: str = Field("", max_length=20)
    retreats: str = Field("", max_length=20)
    adjustments: str = Field("", max_length=20)


class KeyIn(BaseModel):
    role: str = Field(description="player or coordinator", max_length=20)
    power: str = Field("", max_length=100)
    label: str = Field("", max_length=200)
    reason: str = Field(
        "",
        max_length=500,
        description="Why a seated power's player needs a new key while the phase is sealed (the key reads "
        "their orders): required then, recorded and shown to the players.",
    )


class ActionIn(BaseModel):
    action: str = Field(description="extend, pause, resume, process, rollback or visibility", max_length=20)
    arg: str = Field(
        "",
        max_length=100,
        description="extend: a duration (1d); rollback: a phase; visibility: public/unlisted/private",
    )


@router.get("/api/games/{name}/coordinate", **answers(CoordinatorView))
def api_coordinator(request: Request, name: str) -> dict[str, Any]:
    """The coordinator's view: players, keys, submissions (contents only after the deadline)."""
    cv = desk.coordinator_view(web_of(request), name, viewer_of(request))
    cv["game"] = {k: v for k, v in cv["game"].items() if k != "map_svg"}
    return cv


@router.post("/api/games", **answers(CreatedAnswer))
def api_create(request: Request, body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
    """Create a game: {"name", "variant", "movement", "retreats", "adjustments", "timezone", "time_of_day",
    "missed", "draws", "secret_ballot", "anonymous", "visibility", "option_KEY": value}."""
    viewer = writer(request)
    form = {
        k: (v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)) for k, v in body.items()
    }
    return {"name": new_games.create_game(web_of(request), viewer, form)}


@router.post("/api/games/{name}/players", **answers(SeatAnswer))
def api_seat(request: Request, name: str, body: PlayerIn) -> dict[str, Any]:
    """Assign (or replace) a power's player; answers the player's new secret key (shown once)."""
    viewer = writer(request)
    power, secret = desk.assign(web_of(request), name, viewer, body.power, body.player, body.replace, body.email)
    return {"power": power, "key": secret, "link": site_of(request).link(f"/k/{secret}")}


class BotIn(BaseModel):
    power: str = Field(max_length=100)
    level: str = Field(max_length=40, description="hold, random, heuristic or search")


@router.post("/api/games/{name}/bots", **answers(BotSeatAnswer))
def api_seat_bot(request: Request, name: str, body: BotIn) -> dict[str, Any]:
    """Seat a bot on a power; it sends orders as each phase opens (its version is answered when it sent one)."""
    viewer = writer(request)
    return desk.seat_bot(web_of(request), name, viewer, body.power, body.level)


class BotPolicyIn(BaseModel):
    level: str | None = Field(default=None, max_length=40, description="a bot level, or null for none")


@router.post("/api/games/{name}/bot-policy", **answers(ActionAnswer))
def api_bot_policy(request: Request, name: str, body: BotPolicyIn) -> dict[str, Any]:
    """Hand powers in civil disorder to a bot of ``level`` until a person takes the seat (null: no longer)."""
    viewer = writer(request)
    return {"message": desk.set_bot_policy(web_of(request), name, viewer, body.level)}


class EmailIn(BaseModel):
    email: str = Field(max_length=320, description="The address; empty removes it.")


@router.post("/api/games/{name}/players/{power}/email", **answers(ActionAnswer))
def api_set_email(request: Request, name: str, power: str, body: EmailIn) -> dict[str, Any]:
    """Change the address a seated player's orders by mail must come from."""
    viewer = writer(request)
    return {"message": desk.set_email(web_of(request), name, viewer, power, body.email)}


@router.post("/api/games/{name}/keys", **answers(KeyAnswer))
def api_new_key(request: Request, name: str, body: KeyIn) -> dict[str, Any]:
    """A new link for a seated power's player, or for a co-coordinator of this game (shown once)."""
    viewer = writer(request)
    web = web_of(request)
    if body.role == "player":
        power, secret = desk.new_player_link(web, name, viewer, body.power, body.reason)
    elif body.role == "coordinator":
        power, secret = "", desk.new_coordinator_key(web, name, viewer, body.label)
    else:
        raise BadInput("role must be player or coordinator")
    return {
        "role": body.role,
        "power": power or None,
        "key": secret,
        "link": site_of(request).link(f"/k/{secret}"),
    }


@router.post("/api/games/{name}/deadlines", **answers(ActionAnswer))
def api_deadlines(request: Request, name: str, body: DeadlinesIn) -> dict[str, Any]:
    """The time each kind of phase gets, for phases opened from now on."""
    viewer = writer(request)
    return {"message": desk.set_deadlines(web_of(request), name, viewer, body.model_dump())}


@router.post("/api/games/{name}/keys/{key_id}/revoke", **answers(RevokedAnswer))
def api_revoke(request: Request, name: str, key_id: int) -> dict[str, Any]:
    """Revoke a key of this game (its links stop working at once, in every browser signed in with it)."""
    viewer = writer(request)
    desk.revoke(web_of(request), name, viewer, key_id)
    return {"revoked": key_id}


@router.post("/api/games/{name}/actions", **answers(ActionAnswer))
def api_action(request: Request, name: str, body: ActionIn) -> dict[str, Any]:
    """extend / pause / resume / process / rollback / visibility."""
    viewer = writer(request)
    return {"message": desk.clock_action(web_of(request), name, viewer, body.action, body.arg)}


@router.post("/api/games/import", **answers(CreatedAnswer))
def api_import_game(request: Request, body: dict[str, Any] = Body(...), name: str | None = None) -> dict[str, Any]:  # noqa: B008
    """Import a game file (dippouch JSON, as exported), under ``?name=`` if given."""
    viewer = writer(request)
    return {"name": new_games.import_game(web_of(request), viewer, body, name)}
