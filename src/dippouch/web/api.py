"""The JSON API: everything the pages do, for scripts, bots and the pages' own JavaScript.

Authentication is a bearer key (``Authorization: Bearer dp_...``: a player's or coordinator's key) or
the browser's session cookie; with the cookie, every state-changing call must carry the page's CSRF token
in ``X-CSRF-Token``. Errors answer ``{"error": "...", "status": N}``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import Response

from dippouch.catalog import variants_usable
from dippouch.web import desk, history, new_games, openings, player_page, press, roster, variant_pages
from dippouch.web import games as game_pages
from dippouch.web.answers import (
    ActionAnswer,
    AdjudicationAnswer,
    BotSeatAnswer,
    CheckAnswer,
    CoordinatorView,
    CreatedAnswer,
    GameFile,
    GameListing,
    GameView,
    KeyAnswer,
    MovesAnswer,
    PhaseView,
    Place,
    PlayerView,
    Receipt,
    RevokedAnswer,
    SeatAnswer,
    VariantListing,
    VariantView,
    VoteAnswer,
)
from dippouch.web.checks import check_view
from dippouch.web.deps import ERRORS, answers, site_of, viewer_of, web_of, writer
from dippouch.web.security import BadInput, client_id

router = APIRouter(prefix="/api", tags=["api"], responses=ERRORS)
router.routes.extend(openings.api.routes)  # open games and the replacement pool (web/openings.py)


class OrdersIn(BaseModel):
    text: str = Field(max_length=20_000, description="Orders, one a line, in any notation the parser reads.")
    ready: bool = False
    phase: str | None = Field(
        None,
        max_length=100,
        description="The phase these orders were written for (e.g. Spring 1901 Movement). If it has been processed "
        "meanwhile, the orders are refused with the reason instead of going to the phase now open.",
    )


class CheckIn(BaseModel):
    text: str = Field(max_length=20_000)


class VoteIn(BaseModel):
    draw: bool


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


# --------------------------------------------------------------------------------------------------
# Reading


@router.get("/games", **answers(list[GameListing]))
def games(request: Request) -> list[dict[str, Any]]:
    """Listed games (and the caller's own)."""
    return game_pages.games_list(web_of(request), viewer_of(request))


@router.get("/games/{name}", **answers(GameView))
def game(request: Request, name: str) -> dict[str, Any]:
    """A game's public state: phase, deadline, who has sent orders and who is ready (never what), centres, last report."""
    g = game_pages.game_view(web_of(request), name, viewer_of(request))
    g.pop("map_svg", None)
    return g


@router.get("/games/{name}/phases/{phase_id}", **answers(PhaseView))
def phase(request: Request, name: str, phase_id: int) -> dict[str, Any]:
    """One phase of the history: position, orders and results once processed, report, neighbours; for the
    game's coordinator also every version each power sent (sealed until the deadline)."""
    web, viewer = web_of(request), viewer_of(request)
    ph = history.phase_view(web, name, phase_id, viewer)
    ph.pop("map_svg", None)
    ph.pop("after_svg", None)
    subs = history.phase_submissions(web, name, phase_id, viewer)
    if subs is not None:
        ph["submissions"] = subs
    return ph


@router.get("/games/{name}/export", **answers(GameFile))
def export(request: Request, name: str, unsealed: bool = False) -> dict[str, Any]:
    """The game file (submissions only for the coordinator; the open phase's sealed until its deadline:
    to move a running game the coordinator asks for it unsealed with ``POST``, giving the reason)."""
    if unsealed:
        raise BadInput(
            "an unsealed export opens the seal, which the players are shown: POST to this address with "
            '{"reason": "..."}; a GET changes nothing'
        )
    return history.export(web_of(request), name, viewer_of(request))


class UnsealIn(BaseModel):
    reason: str = Field(max_length=500, description="why the sealed orders are opened: shown to the players")


@router.post("/games/{name}/export", **answers(GameFile))
def export_unsealed(request: Request, name: str, body: UnsealIn) -> dict[str, Any]:
    """The coordinator's game file with the open phase's orders unsealed, to move a running game; the
    opening is recorded with the reason and shown to the players."""
    viewer = writer(request)
    return history.export(web_of(request), name, viewer, unsealed=True, reason=body.reason)


@router.get("/games/{name}/powers/{power}", **answers(PlayerView))
def player(request: Request, name: str, power: str) -> dict[str, Any]:
    """The player's view: units, legal orders per unit, submitted versions, ready flag (own power only)."""
    pv = player_page.player_view(web_of(request), name, power, viewer_of(request))
    pv["game"] = {k: v for k, v in pv["game"].items() if k != "map_svg"}
    return pv


# --------------------------------------------------------------------------------------------------
# Orders


@router.post("/games/{name}/powers/{power}/check", **answers(CheckAnswer))
def check(request: Request, name: str, power: str, body: CheckIn) -> dict[str, Any]:
    """Check order lines as they would be checked on arrival, without recording anything: each line's verdict,
    note and subject (the province of the unit or site it orders), and the units left without an order."""
    viewer = writer(request)
    request.app.state.limiter.hit("check", f"{client_id(request)}", "line checks")
    answer: dict[str, Any] = request.app.state.budget.run(
        client_id(request), lambda: check_view(web_of(request), name, power, body.text, viewer)
    )
    return answer


@router.post("/games/{name}/powers/{power}/orders", **answers(Receipt))
def submit(request: Request, name: str, power: str, body: OrdersIn) -> dict[str, Any]:
    """Submit a new version of the power's orders (checked line by line, as on arrival)."""
    viewer = writer(request)
    request.app.state.limiter.hit("submit", f"{client_id(request)}:{name}:{power}", "submissions")
    return player_page.submit(web_of(request), name, power, body.text, body.ready, viewer, phase=body.phase)


@router.post("/games/{name}/powers/{power}/vote", **answers(VoteAnswer))
def vote(request: Request, name: str, power: str, body: VoteIn) -> dict[str, Any]:
    """Vote for a draw (or withdraw the vote); answers the game's ending if every surviving power agreed."""
    viewer = writer(request)
    voted = player_page.vote(web_of(request), name, power, body.draw, viewer)
    return {"ending": voted.ending.text if voted.ending else None}


# --------------------------------------------------------------------------------------------------
# Coordination


@router.get("/games/{name}/coordinate", **answers(CoordinatorView))
def coordinator(request: Request, name: str) -> dict[str, Any]:
    """The coordinator's view: players, keys, submissions (contents only after the deadline)."""
    cv = desk.coordinator_view(web_of(request), name, viewer_of(request))
    cv["game"] = {k: v for k, v in cv["game"].items() if k != "map_svg"}
    return cv


@router.post("/games", **answers(CreatedAnswer))
def create(request: Request, body: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
    """Create a game: {"name", "variant", "movement", "retreats", "adjustments", "timezone", "time_of_day",
    "missed", "draws", "secret_ballot", "anonymous", "visibility", "option_KEY": value}."""
    viewer = writer(request)
    form = {
        k: (v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)) for k, v in body.items()
    }
    return {"name": new_games.create_game(web_of(request), viewer, form)}


@router.post("/games/{name}/players", **answers(SeatAnswer))
def seat(request: Request, name: str, body: PlayerIn) -> dict[str, Any]:
    """Assign (or replace) a power's player; answers the player's new secret key (shown once)."""
    viewer = writer(request)
    power, secret = desk.assign(web_of(request), name, viewer, body.power, body.player, body.replace, body.email)
    return {"power": power, "key": secret, "link": site_of(request).link(f"/k/{secret}")}


class BotIn(BaseModel):
    power: str = Field(max_length=100)
    level: str = Field(max_length=40, description="hold, random, heuristic or search")


@router.post("/games/{name}/bots", **answers(BotSeatAnswer))
def seat_bot(request: Request, name: str, body: BotIn) -> dict[str, Any]:
    """Seat a bot on a power; it sends orders as each phase opens (its version is answered when it sent one)."""
    viewer = writer(request)
    return desk.seat_bot(web_of(request), name, viewer, body.power, body.level)


class BotPolicyIn(BaseModel):
    level: str | None = Field(default=None, max_length=40, description="a bot level, or null for none")


@router.post("/games/{name}/bot-policy", **answers(ActionAnswer))
def bot_policy(request: Request, name: str, body: BotPolicyIn) -> dict[str, Any]:
    """Hand powers in civil disorder to a bot of ``level`` until a person takes the seat (null: no longer)."""
    viewer = writer(request)
    return {"message": desk.set_bot_policy(web_of(request), name, viewer, body.level)}


class EmailIn(BaseModel):
    email: str = Field(max_length=320, description="The address; empty removes it.")


@router.post("/games/{name}/players/{power}/email", **answers(ActionAnswer))
def set_email(request: Request, name: str, power: str, body: EmailIn) -> dict[str, Any]:
    """Change the address a seated player's orders by mail must come from."""
    viewer = writer(request)
    return {"message": desk.set_email(web_of(request), name, viewer, power, body.email)}


@router.post("/games/{name}/keys", **answers(KeyAnswer))
def new_key(request: Request, name: str, body: KeyIn) -> dict[str, Any]:
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


@router.post("/games/{name}/deadlines", **answers(ActionAnswer))
def deadlines(request: Request, name: str, body: DeadlinesIn) -> dict[str, Any]:
    """The time each kind of phase gets, for phases opened from now on."""
    viewer = writer(request)
    return {"message": desk.set_deadlines(web_of(request), name, viewer, body.model_dump())}


@router.post("/games/{name}/keys/{key_id}/revoke", **answers(RevokedAnswer))
def revoke(request: Request, name: str, key_id: int) -> dict[str, Any]:
    """Revoke a key of this game (its links stop working at once, in every browser signed in with it)."""
    viewer = writer(request)
    desk.revoke(web_of(request), name, viewer, key_id)
    return {"revoked": key_id}


@router.post("/games/{name}/actions", **answers(ActionAnswer))
def action(request: Request, name: str, body: ActionIn) -> dict[str, Any]:
    """extend / pause / resume / process / rollback / visibility."""
    viewer = writer(request)
    return {"message": desk.clock_action(web_of(request), name, viewer, body.action, body.arg)}


@router.post("/games/import", **answers(CreatedAnswer))
def import_game(request: Request, body: dict[str, Any] = Body(...), name: str | None = None) -> dict[str, Any]:  # noqa: B008
    """Import a game file (dippouch JSON, as exported), under ``?name=`` if given."""
    viewer = writer(request)
    return {"name": new_games.import_game(web_of(request), viewer, body, name)}


# --------------------------------------------------------------------------------------------------
# Variants and adjudication


@router.get("/variants", **answers(list[VariantListing]))
def variants() -> list[dict[str, Any]]:
    """The variants: name, title, powers, number of supply centres; a file that does not load is listed
    with ``"broken": true`` and its problems, and the others stay usable."""
    good, broken = variants_usable()
    out: list[dict[str, Any]] = [
        {"name": v.name, "title": v.title, "powers": list(v.power_names), "centres": len(v.map.supply_centres)}
        for v in good
    ]
    out += [{"name": b.name, "broken": True, "file": str(b.path), "problems": list(b.problems)} for b in broken]
    return sorted(out, key=lambda row: str(row["name"]))


@router.get("/variants/{name}", **answers(VariantView))
def variant(request: Request, name: str) -> dict[str, Any]:
    """A variant: rules in brief, powers, centres, options, and the key from abbreviation to full name."""
    vv = variant_pages.variant_view(name)
    vv.pop("map_svg", None)
    return vv


@router.get("/variants/{name}/moves", **answers(MovesAnswer))
def moves(request: Request, name: str, q: str = "") -> dict[str, Any]:
    """Every valid move from a territory (by abbreviation, full name or alias) for each unit that can stand there."""
    return variant_pages.moves(name, q)


@router.get("/variants/{name}/search", **answers(list[Place]))
def search(request: Request, name: str, q: str = "") -> list[dict[str, str]]:
    """Territories whose name, abbreviation or alias matches ``q`` (for pick lists)."""
    return variant_pages.search(name, q)


@router.post(
    "/adjudicate",
    response_model=None,
    responses={
        200: {"model": AdjudicationAnswer, "description": "Each order's resolution and the next phase."},
        400: {
            "model": AdjudicationAnswer,
            "description": "The request was refused: its error, as the contract says it.",
        },
    },
)
async def adjudicate(request: Request) -> Response:
    """The adjudication contract over HTTP: the same request and response objects as `dippouch adjudicate`
    (docs/adjudication-contract.md), answered by the same code (:mod:`dippouch.contract`); a bad request
    answers ``{"error": ...}`` with status 400."""
    from dippouch.contract import MAX_WEB_ORDERS, encode_response, handle_line

    client = client_id(request)
    request.app.state.limiter.hit("adjudicate", client, "adjudication requests")
    request.app.state.budget.check(client)
    raw = await request.body()
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput("the request body is not UTF-8 text") from None
    text = line.replace("\n", " ")
    answer = await run_in_threadpool(
        request.app.state.budget.run, client, lambda: handle_line(text, max_orders=MAX_WEB_ORDERS)
    )
    return Response(
        encode_response(answer), status_code=400 if "error" in answer else 200, media_type="application/json"
    )


# Press (web/press.py): its JSON calls are the API's, with the API's prefix and error answers (added one by
# one: an included router would stay a router of its own inside this one).
for _route in press.api_router.routes:
    if isinstance(_route, APIRoute):
        router.add_api_route(
            _route.path, _route.endpoint, methods=sorted(_route.methods or ()), **answers(_route.response_model)
        )

# The player list's and absences' calls (dippouch.web.roster), under /api with the rest, so the API's checks
# (a declared answer for every route) cover them too.
roster.add_api_routes(router)
