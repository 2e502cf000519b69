"""The coordinator's desk: new and imported games, seats, links, bots, deadlines and the clock; pages and JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Body, Depends
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.bots import LEVELS
from dippouch.bots.seats import DECISION, phase_cost, player_words
from dippouch.catalog import variants_usable
from dippouch.core.messages import msg
from dippouch.i18n import LANGUAGES, language_name
from dippouch.ranking.scoring import systems
from dippouch.saying import say
from dippouch.settings import Site
from dippouch.web.http.deps import (
    SiteDep,
    ViewerDep,
    WebDep,
    WriterDep,
    answers,
    charged,
    game_url,
    language,
    render,
    thinking,
    words,
)
from dippouch.web.http.forms import ImportForm, PageForm, redirect
from dippouch.web.http.inputs import json_object, number_or_none
from dippouch.web.http.security import BadInput, Viewer
from dippouch.web.http.service import Web
from dippouch.web.views import desk, games, new_games, practice
from dippouch.web.views.answers.coordinate import (
    ActionAnswer,
    BotSeatAnswer,
    CoordinatorView,
    CreatedAnswer,
    KeyAnswer,
    RevokedAnswer,
    SeatAnswer,
)
from dippouch.web.views.answers.games import GameListing

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])

T = TypeVar("T")

# The form is the first parameter of every form's route: its CSRF check refuses a post from another site
# before anything else about the caller is looked at, as when the route read the form itself.


@router.get("/coordinate", include_in_schema=False, response_class=HTMLResponse)
def coordinate_home(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    web.require_coordinator(None, viewer)
    good, broken = variants_usable()
    variants = [{"name": v.name, "title": v.title, "options": v.data.get("options", {})} for v in good]
    listed = [GameListing.model_validate(g) for g in games.games_list(web, viewer)]
    scoring = [{"name": sy.name, "title": sy.title} for sy in systems().values()]
    languages = [{"code": code, "name": language_name(code)} for code in LANGUAGES]
    return render(
        request,
        "coordinate_home.html",
        {"games": listed, "variants": variants, "broken": broken, "scoring": scoring, "mail_languages": languages},
    )


@router.post("/coordinate/new", include_in_schema=False)
def coordinate_new(request: Request, form: PageForm, web: WebDep, viewer: ViewerDep) -> Response:
    name = new_games.create_game(web, viewer, form)
    said = words(request).gettext("Created game %(game)s. Seat the players and send them their links.") % {"game": name}
    return redirect(f"{game_url(name)}/coordinate", said)


def _coordinator_asks(web: WebDep, viewer: ViewerDep) -> Viewer:
    """The caller, a coordinator: asked before the body is read, since an import's may be as large as
    :data:`~dippouch.web.http.middleware.MAX_IMPORT`."""
    web.require_coordinator(None, viewer)
    return viewer


CoordinatorFirst = Annotated[Viewer, Depends(_coordinator_asks)]


# The coordinator is asked for before the form (and its CSRF check): the form is a body of up to MAX_IMPORT.
@router.post("/coordinate/import", include_in_schema=False)
async def coordinate_import(request: Request, viewer: CoordinatorFirst, form: ImportForm, web: WebDep) -> Response:
    _ = words(request).gettext
    upload = form.file("file")
    if upload is None:
        raise BadInput(_("choose a game file (.json) to import"))
    raw = await upload.read()  # bounded by the body's bound (the middleware's body_bound), the file within it
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(msg("the file is not JSON text (%(why)s)", why=f"{type(e).__name__}: {e}")) from None
    name = await run_in_threadpool(new_games.import_game, web, viewer, data, form.get("name", "") or None)
    return redirect(f"{game_url(name)}/coordinate", _("Imported game %(game)s.") % {"game": name})


@router.get("/games/{name}/coordinate", include_in_schema=False, response_class=HTMLResponse)
def coordinate_page(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The desk reads what ``GET /api/games/{name}/coordinate`` answers, as its model."""
    cv = CoordinatorView.model_validate(desk.coordinator_view(web, name, viewer), context={"lang": language(request)})
    practice.note_visit(web, name, viewer)  # its coordinator looks at a game bots alone play: it is not paused
    return render(request, "coordinate.html", {"c": cv, "g": cv.game, "bot_levels": LEVELS})


def _charged(
    request: Request, web: Web, name: str, viewer: Viewer, work: Callable[[], T], estimate: Callable[[], float]
) -> T:
    """``work`` (a "process now", a bot seated: the bots order in the request) run in the work budget's lane and
    charged to the asker, ``estimate()`` CPU seconds taken before it runs (429 with the wait when they do not
    fit); the asker looked at the game (a game bots alone play is watched). Whether they coordinate it is
    asked first: nothing about the game is read for anyone else (a private game is not found, as everywhere)."""
    web.require_coordinator(name, viewer)
    practice.note_visit(web, name, viewer)
    return charged(request, work, lane="process", estimate=estimate())


def _bot_cost(web: Web, name: str, level: str) -> float:
    """CPU seconds a bot seated now costs the request: the open phase's orders of every bot of the game, the
    new one among them."""
    return phase_cost(web.read, name) + DECISION.get(level.strip().lower(), 0.0)


CONFIRMED = ("process", "rollback", "revoke")

"""Coordinator actions that cannot be taken back: carried out only with ``confirm=yes`` (a second post,
from the confirmation page)."""


@router.post("/games/{name}/coordinate/{action}", include_in_schema=False, response_class=HTMLResponse)
def coordinate_action(
    request: Request, form: PageForm, name: str, action: str, web: WebDep, viewer: ViewerDep, site: SiteDep
) -> Response:
    back = f"{game_url(name)}/coordinate"
    _ = words(request).gettext
    if action in CONFIRMED and form.get("confirm", "") != "yes":
        # Cannot be taken back: a page says what will happen and asks again (no JavaScript needed).
        arg = form.get("key", "") if action == "revoke" else form.get("phase", "")
        what = desk.confirm_view(web, name, viewer, action, arg, say=_, lang=language(request))
        return render(request, "confirm.html", {"c": what, "game": name, "action": action, "back": back})
    if action in ("assign", "replace", "link"):
        if action == "link":
            power, secret = desk.new_player_link(web, name, viewer, form.get("power", ""), form.get("reason", ""))
        else:
            power, secret = desk.assign(
                web,
                name,
                viewer,
                form.get("power", ""),
                form.get("player", ""),
                action == "replace",
                form.get("email", ""),
                say=_,
            )
        return _secret_page(request, site, name, _("%(power)s's link") % {"power": power}, secret, back)
    if action == "seat-many":
        powers = [k.removeprefix("player:") for k in form if k.startswith("player:")]
        rows = [(pw, form.get(f"player:{pw}", ""), form.get(f"email:{pw}", "")) for pw in powers]
        got = desk.seat_many(web, name, viewer, rows, site.public_url, say=_)
        return render(request, "seated.html", {"game": name, "s": got, "back": back})
    if action == "coordinator-key":
        secret = desk.new_coordinator_key(web, name, viewer, form.get("label", ""))
        return _secret_page(request, site, name, _("a coordinator's link"), secret, back)
    if action == "revoke":
        key = form.get("key", "")
        key_id = number_or_none(key)
        if key_id is None:
            raise BadInput(msg("which key? (its number, not %(given)s)", given=repr(key[:20])))
        desk.revoke(web, name, viewer, key_id)
        return redirect(back, _("Key %(key)s revoked: its links no longer work.") % {"key": key})
    if action == "email":
        return redirect(back, desk.set_email(web, name, viewer, form.get("power", ""), form.get("email", ""), say=_))
    if action == "seat-bot":
        power, level = form.get("power", ""), form.get("level", "")
        bot = _charged(
            request,
            web,
            name,
            viewer,
            lambda: desk.seat_bot(web, name, viewer, power, level, think=thinking(request)),
            lambda: _bot_cost(web, name, level),
        )
        said = (
            _("%(player)s now plays %(power)s; it sent version %(version)s.")
            if bot["version"]
            else _("%(player)s now plays %(power)s.")
        )
        who = say(player_words(bot["player"]), language(request))
        return redirect(back, said % {"player": who, "power": bot["power"], "version": bot["version"]})
    if action == "bot-policy":
        level = form.get("level", "")
        return redirect(back, desk.set_bot_policy(web, name, viewer, None if level in ("", "off") else level, say=_))
    if action == "deadlines":
        return redirect(back, desk.set_deadlines(web, name, viewer, form, say=_))
    arg = form.get("by", "") or form.get("phase", "") or form.get("visibility", "")
    if action == "process":
        said = _charged(
            request,
            web,
            name,
            viewer,
            lambda: desk.clock_action(
                web, name, viewer, action, arg, say=_, lang=language(request), think=thinking(request)
            ),
            lambda: phase_cost(web.read, name),
        )
        return redirect(back, said)
    return redirect(back, desk.clock_action(web, name, viewer, action, arg, say=_, lang=language(request)))


def _secret_page(request: Request, site: Site, game: str, what: str, secret: str, back: str) -> Response:
    return render(
        request,
        "secret.html",
        {"game": game, "what": what, "link": f"{site.public_url}/k/{secret}", "key": secret, "back": back},
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
def api_coordinator(name: str, web: WebDep, viewer: ViewerDep) -> CoordinatorView:
    """The coordinator's view: players, keys, submissions (contents only after the deadline)."""
    return CoordinatorView.model_validate(desk.coordinator_view(web, name, viewer))


@router.post("/api/games", **answers(CreatedAnswer))
def api_create(viewer: WriterDep, web: WebDep, body: dict[str, Any] = Body(...)) -> CreatedAnswer:  # noqa: B008
    """Create a game: {"name", "variant", "movement", "retreats", "adjustments", "timezone", "time_of_day",
    "missed", "draws", "secret_ballot", "anonymous", "newcomers", "fog", "visibility", "option_KEY": value}."""
    form = {
        k: (v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)) for k, v in body.items()
    }
    return CreatedAnswer(name=new_games.create_game(web, viewer, form))


@router.post("/api/games/{name}/players", **answers(SeatAnswer))
def api_seat(name: str, body: PlayerIn, viewer: WriterDep, web: WebDep, site: SiteDep) -> SeatAnswer:
    """Assign (or replace) a power's player; answers the player's new secret key (shown once)."""
    power, secret = desk.assign(web, name, viewer, body.power, body.player, body.replace, body.email)
    return SeatAnswer(power=power, key=secret, link=site.link(f"/k/{secret}"))


class BotIn(BaseModel):
    power: str = Field(max_length=100)
    level: str = Field(max_length=40, description="hold, random, heuristic or search")


@router.post("/api/games/{name}/bots", **answers(BotSeatAnswer))
def api_seat_bot(request: Request, name: str, body: BotIn, viewer: WriterDep, web: WebDep) -> BotSeatAnswer:
    """Seat a bot on a power; it sends orders as each phase opens (its version is answered when it sent one).
    Charged to the caller's share of the server's work (429 with Retry-After when it is used up)."""
    seated = _charged(
        request,
        web,
        name,
        viewer,
        lambda: desk.seat_bot(web, name, viewer, body.power, body.level, think=thinking(request)),
        lambda: _bot_cost(web, name, body.level),
    )
    return BotSeatAnswer.model_validate(seated)


class BotPolicyIn(BaseModel):
    level: str | None = Field(default=None, max_length=40, description="a bot level, or null for none")


@router.post("/api/games/{name}/bot-policy", **answers(ActionAnswer))
def api_bot_policy(name: str, body: BotPolicyIn, viewer: WriterDep, web: WebDep) -> ActionAnswer:
    """Hand powers in civil disorder to a bot of ``level`` until a person takes the seat (null: no longer)."""
    return ActionAnswer(message=desk.set_bot_policy(web, name, viewer, body.level))


class EmailIn(BaseModel):
    email: str = Field(max_length=320, description="The address; empty removes it.")


@router.post("/api/games/{name}/players/{power}/email", **answers(ActionAnswer))
def api_set_email(name: str, power: str, body: EmailIn, viewer: WriterDep, web: WebDep) -> ActionAnswer:
    """Change the address a seated player's orders by mail must come from."""
    return ActionAnswer(message=desk.set_email(web, name, viewer, power, body.email))


@router.post("/api/games/{name}/keys", **answers(KeyAnswer))
def api_new_key(name: str, body: KeyIn, viewer: WriterDep, web: WebDep, site: SiteDep) -> KeyAnswer:
    """A new link for a seated power's player, or for a co-coordinator of this game (shown once)."""
    if body.role == "player":
        power, secret = desk.new_player_link(web, name, viewer, body.power, body.reason)
    elif body.role == "coordinator":
        power, secret = "", desk.new_coordinator_key(web, name, viewer, body.label)
    else:
        raise BadInput("role must be player or coordinator")
    return KeyAnswer(role=body.role, power=power or None, key=secret, link=site.link(f"/k/{secret}"))


@router.post("/api/games/{name}/deadlines", **answers(ActionAnswer))
def api_deadlines(name: str, body: DeadlinesIn, viewer: WriterDep, web: WebDep) -> ActionAnswer:
    """The time each kind of phase gets, for phases opened from now on."""
    return ActionAnswer(message=desk.set_deadlines(web, name, viewer, body.model_dump()))


@router.post("/api/games/{name}/keys/{key_id}/revoke", **answers(RevokedAnswer))
def api_revoke(name: str, key_id: int, viewer: WriterDep, web: WebDep) -> RevokedAnswer:
    """Revoke a key of this game (its links stop working at once, in every browser signed in with it)."""
    desk.revoke(web, name, viewer, key_id)
    return RevokedAnswer(revoked=key_id)


@router.post("/api/games/{name}/actions", **answers(ActionAnswer))
def api_action(request: Request, name: str, body: ActionIn, viewer: WriterDep, web: WebDep) -> ActionAnswer:
    """extend / pause / resume / process / rollback / visibility. ``process`` is charged to the caller's share
    of the server's work, and a game bots alone play is processed one phase a request, at most one phase per
    the installation's pace (``DIPPOUCH_BOT_PACE``): 429 with Retry-After otherwise."""
    if body.action == "process":
        said = _charged(
            request,
            web,
            name,
            viewer,
            lambda: desk.clock_action(web, name, viewer, body.action, body.arg, think=thinking(request)),
            lambda: phase_cost(web.read, name),
        )
        return ActionAnswer(message=said)
    return ActionAnswer(message=desk.clock_action(web, name, viewer, body.action, body.arg))


@router.post(
    "/api/games/import",
    **answers(CreatedAnswer),
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}}},
)
async def api_import_game(request: Request, viewer: WriterDep, web: WebDep, name: str | None = None) -> CreatedAnswer:
    """Import a game file (dippouch JSON, as exported), under ``?name=`` if given."""
    # Read here, after the caller is known to be a coordinator (a body parameter is read before any
    # dependency): the file may be as large as MAX_IMPORT.
    await run_in_threadpool(web.require_coordinator, None, viewer)
    body = json_object(await request.body())
    return CreatedAnswer(name=await run_in_threadpool(new_games.import_game, web, viewer, body, name))
