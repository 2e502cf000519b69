"""Open games and the replacement pool on the web: the list of games waiting for players (``/open``), a game's
opening (what it asks, sign-up with ranked wishes, the coordinator's desk of sign-ups), claiming an abandoned
seat, and a person's public page (name, games played, reliability; never an address).

Pages and the JSON API call the same functions here, as the other rooms do (:mod:`dippouch.web.http.service`).
Acting as a person needs a browser signed in as that person: a sign-up or a claim is always the caller's own
(no call names someone else). Every state-changing call is CSRF-checked for cookie callers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request

from dippouch.catalog import variant_names, variants_usable
from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.people.assign import ANY
from dippouch.people.reliability import PROBATION_SEATS, is_newcomer, meets, on_probation
from dippouch.play import blocks as play_blocks
from dippouch.play import openings as play_openings
from dippouch.play import seats
from dippouch.play.fairness import Actor, TableMustVote
from dippouch.press.rules import KINDS, describe
from dippouch.store import openings as store_openings
from dippouch.store.people.reliability import ALL, Shown, profile, record_of, reliabilities
from dippouch.store.press import messages as store_press
from dippouch.web.http.deps import (
    NEED_PERSON,
    PersonDep,
    ViewerDep,
    WebDep,
    answers,
    game_url,
    layer_words,
    render,
    words,
    writer,
)
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.inputs import names, number, number_or_none
from dippouch.web.http.security import (
    BadInput,
    Forbidden,
    NeedsKey,
    Viewer,
    WebNotFound,
)
from dippouch.web.http.service import Web
from dippouch.web.routes import press as web_press
from dippouch.web.routes.ratings import person_rating
from dippouch.web.views import new_games
from dippouch.web.views.answers.openings import (
    ClaimAnswer,
    DrawAnswer,
    NewGameAnswer,
    OpeningView,
    OpenList,
    PersonProfile,
    ResignAnswer,
    SignupAnswer,
)
from dippouch.web.views.maps import NO_MAP

__all__ = ["router"]

router = APIRouter(tags=["open games"])

I18N_DOMAIN = "site"

MAX_WISHES = 20
"""Ranked wishes a sign-up may list (W3K has ten powers)."""


# --------------------------------------------------------------------------------------------------
# What the pages and the API show and do


def _iso(t: datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def _opening_data(
    o: store_openings.Opening,
    *,
    desk: bool,
    me: int | None,
    press_kind: str | None = None,
    gettext: Callable[[str], str] = str,
) -> dict[str, Any]:
    """``gettext``: the reader's catalogue, which the game's press rules are described with (a page's
    language; the API's answer keeps the English)."""
    data: dict[str, Any] = {
        "game": o.game,
        "variant": o.variant,
        "press": o.press if o.press_rules is None else " ".join(describe(o.press_rules, gettext)),
        "min_reliability": o.min_reliability,
        "mode": o.mode,
        "deadlines": dict(o.deadlines),
        "deadline": _iso(o.deadline),
        "seats_total": len(o.powers),
        # Seats filled (a person, a named player or a bot plays the power), sign-ups waiting and empty powers
        # are three numbers: a sign-up is not a seat until the draw.
        "seats_taken": o.taken,
        "seats_empty": len(o.empty),
        "needed": o.needed,
        "waiting_list": o.waiting_list,
        "empty": list(o.empty),
        "powers": list(o.powers),
        "signups": len(o.waiting),
        "open": o.closed_at is None and bool(o.empty),
        "full": o.closed_at is not None or (o.mode == "preferences" and o.needed == 0),
        "signed_up": any(s.person_id == me for s in o.waiting) if me is not None else False,
        "started_by_player": o.creator_id is not None,
        "newcomers": o.newcomers,
    }
    if press_kind is not None:
        data["press_kind"] = press_kind
    if me is not None:
        mine = next((s for s in o.waiting if s.person_id == me), None)
        if mine is not None:
            data["my_wishes"] = list(mine.preferences)
            place = [s.person_id for s in o.waiting].index(me)
            data["on_waiting_list"] = place >= len(o.empty)
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


def filters_of(query: Mapping[str, str], say: Callable[[str], str] = str) -> play_openings.Filters:
    """The list's filters as a form or a query string gives them (blank: anything); a number refused in
    ``say``'s words (a page's gettext; the JSON API's English)."""
    _ = say
    seats = (query.get("seats") or "").strip()
    return play_openings.Filters(
        variant=(query.get("variant") or "").strip() or None,
        length=(query.get("length") or "").strip() or None,
        press=(query.get("press") or "").strip().lower() or None,
        starts_soon=(query.get("soon") or "") in ("1", "on", "yes", "true"),
        seats=number(seats, _("seats left"), lo=0, hi=50, say=say) if seats else 0,
    )


def _filters_data(f: play_openings.Filters) -> dict[str, Any]:
    return {
        "variant": f.variant or "",
        "length": f.length or "",
        "press": f.press or "",
        "soon": f.starts_soon,
        "seats": f.seats or "",
    }


def open_list(
    web: Web, filters: play_openings.Filters | None = None, gettext: Callable[[str], str] = str
) -> dict[str, Any]:
    """Games waiting for players (those these filters let through, starting soonest first), and seats wanting
    a replacement; each game's press rules in words through ``gettext`` (the page's language)."""
    f = filters or play_openings.Filters()
    found = play_openings.find_games(web.read, f)
    return {
        "games": [_opening_data(x.opening, desk=False, me=None, press_kind=x.press, gettext=gettext) for x in found],
        "filters": _filters_data(f),
        "choices": {
            "variants": list(variant_names()),
            # The filter shows a variant by its title ("Five-Man", not the file's name "fiveman").
            "variant_titles": {v.name: v.title for v in variants_usable()[0]},
            "lengths": list(play_openings.LENGTHS),
            "press": list(KINDS),
            "starts_soon": play_openings.STARTS_SOON,
        },
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


def _visible(web: Web, name: str, viewer: Viewer, invite: str | None) -> None:
    """A private game's opening is seen with its invitation link, or by those who signed up; else as the game."""
    if (invite or viewer.person_id is not None) and store_openings.invited(web.read, name, invite, viewer.person_id):
        return
    web.require_visible(name, viewer)


def opening_view(
    web: Web, name: str, viewer: Viewer, invite: str | None = None, gettext: Callable[[str], str] = str
) -> dict[str, Any]:
    """The opening as its page and ``GET /api/games/{name}/opening`` show it; the press rules in words and a
    refusal written with ``gettext``, the reader's catalogue where the page passes it."""
    _visible(web, name, viewer, invite)
    o = store_openings.opening(web.read, name)
    if o is None:
        if viewer.coordinates(name):
            return {"game": name, "opened": False, "powers": list(web.variant_of(name).power_names)}
        raise WebNotFound(msg("%(game)s is not open for players", game=name))
    data = _opening_data(o, desk=viewer.coordinates(name), me=viewer.person_id, gettext=gettext)
    data["opened"] = True
    data["replacements"] = [x.power for x in store_openings.offered_seats(web.read, name)]
    return data


def reliability_standing(web: Web, person_id: int, minimum: int, *, newcomers: bool = True) -> dict[str, Any]:
    """The person's reliability against a game's ``minimum``: their score (``None``: no record yet), whether
    they are a newcomer on probation (:func:`dippouch.people.reliability.on_probation`) and whether they may
    join, as the sign-up will judge it; in a game not for newcomers (``newcomers`` false) one is
    ``kept_out``."""
    record = record_of(web.read, person_id)
    score = reliabilities(web.read, [person_id]).get(person_id)
    kept_out = not newcomers and is_newcomer(record)
    newcomer = newcomers and on_probation(record)
    return {
        "score": score,
        "newcomer": newcomer,
        "kept_out": kept_out,
        "meets": not kept_out and meets(score, minimum, probation=newcomer),
    }


def _counted_for(viewer: Viewer, person_id: int) -> Shown:
    """The games hiding their players' names that count on ``person_id``'s page for this reader: all of them
    for the person themselves (and the installation's coordinator), the ones they coordinate for a game's
    coordinator, none for anyone else (:mod:`dippouch.store.people.reliability`)."""
    if viewer.person_id == person_id or viewer.coordinates(None):
        return ALL
    return frozenset(g for g in viewer.coordinated_games() if g is not None)


def person_view(web: Web, person_id: int, viewer: Viewer, gettext: Callable[[str], str] = str) -> dict[str, Any]:
    """A person's page and ``GET /api/people/{id}``: their record; a refusal written with ``gettext``."""
    p = profile(web.read, person_id, shown=_counted_for(viewer, person_id))
    if p is None:
        raise WebNotFound(msg("no person %(id)s here", id=person_id))
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


def _person_of(viewer: Viewer) -> int:
    """The signed-in person, for the opening's form that acts for a person or a coordinator by its action (the
    routes that always act for a person declare :data:`PersonDep`, which refuses in the same words)."""
    if viewer.person_id is None:
        raise NeedsKey(NEED_PERSON)
    return viewer.person_id


def _mode(text: str, say: Callable[[str], str] = str) -> str:
    text = text.strip().lower()
    if text not in store_openings.MODES:
        modes = " or ".join(store_openings.MODES)
        raise BadInput(msg("assignment mode %(mode)s: choose %(modes)s", mode=repr(text), modes=modes))
    return text


def open_game(
    web: Web,
    name: str,
    viewer: Viewer,
    press: str,
    min_reliability: int,
    mode: str,
    rules: Mapping[str, Any] | None = None,
    *,
    say: Callable[[str], str] = str,
) -> dict[str, Any]:
    """``rules``: press rules to set (the game's one set: the lobby shows them, every door checks them);
    ``press``, a text of its own, is refused (shown and enforced by nothing, it misled the trial's players).
    A refusal of the web's own in ``say``'s language (a page passes its reader's gettext; the JSON API answers
    in English)."""
    _ = say
    web.require_coordinator(name, viewer)
    if press.strip():
        raise BadInput(_(web_press.FREE_PRESS_TEXT))
    play_openings.open_to_players(
        web.store, name, now=web.now(), min_reliability=min_reliability, mode=_mode(mode, say), rules=rules
    )
    web.touched(name)
    return opening_view(web, name, viewer)


def _joined(got: play_openings.Joined) -> dict[str, Any]:
    o = got.opening
    return {
        "game": got.game,
        "signed_up": got.seated_as is None,
        "seated_as": got.seated_as,
        "seats_taken": o.taken,
        "signups": len(o.waiting),
        "seats_empty": len(o.empty),
        "waiting_list": got.waiting_list,
        "text": got.message,  # said in the reader's language on a page; the JSON API's answer gives its English
    }


def sign_up(
    web: Web,
    name: str,
    viewer: Viewer,
    me: int,
    wishes: list[str],
    *,
    wait: bool = False,
    invite: str | None = None,
    say: Callable[[str], str] = str,
    despite_block: bool = False,
) -> dict[str, Any]:
    """Sign the person ``me`` (the viewer's) up to ``name`` with their ranked wishes (a refusal of the web's own
    in ``say``'s language)."""
    _ = say
    _visible(web, name, viewer, invite)
    if len(wishes) > MAX_WISHES:
        raise BadInput(msg("%(count)s wishes; rank at most %(most)s powers", count=len(wishes), most=MAX_WISHES))
    _not_its_coordinator(web, name, viewer, me)
    got = play_openings.sign_up(web.store, name, me, wishes, now=web.now(), wait=wait, despite_block=despite_block)
    web.touched(name)
    return _joined(got)


def _not_its_coordinator(web: Web, name: str, viewer: Viewer, me: int) -> None:
    """A game's coordinator by its key (not the installation's, not its creator) takes no seat in it
    (:func:`dippouch.play.fairness.refuse_seat_for_coordinator`, issue 56)."""
    from dippouch.play.fairness import refuse_seat_for_coordinator

    keyed = viewer.coordinates(name) and not viewer.coordinates(None)
    refuse_seat_for_coordinator(web.store, name, me, coordinator=keyed)


def quick_play(web: Web, me: int, filters: play_openings.Filters) -> dict[str, Any]:
    """Sign the person up to the open game these filters let through that starts soonest."""
    got = play_openings.quick_play(web.store, me, filters, now=web.now())
    web.touched(got.game)
    return _joined(got)


def withdraw(web: Web, name: str, viewer: Viewer, me: int) -> dict[str, Any]:
    _visible(web, name, viewer, None)
    play_openings.withdraw(web.store, name, me, now=web.now())
    return {"game": name, "signed_up": False, "seated_as": None}


def resign(web: Web, name: str, viewer: Viewer, me: int) -> dict[str, Any]:
    """The signed-in person leaves ``name``: a sign-up withdrawn, a seat freed before the start, a seat to the
    replacement pool during the game (counted as abandoned in their reliability)."""
    _visible(web, name, viewer, None)
    got = play_openings.resign(web.store, name, me, now=web.now())
    web.touched(name)
    return {"game": name, "power": got.power, "how": got.how, "text": play_openings.resign_message(got)}


def create(
    web: Web, me: int, choices: play_openings.TemplateChoices, *, say: Callable[[str], str] = str
) -> dict[str, Any]:
    """A signed-in player starts a game from a template; they coordinate it (a name refused in ``say``'s
    words)."""
    _ = say
    if choices.name:
        names(choices.name, _("the game's name"), say=say)
    got = play_openings.create_from_template(web.store, me, choices, now=web.now())
    web.touched(got.game)
    data: dict[str, Any] = {"game": got.game, "invitation": None}
    if got.invitation is not None:
        data["invitation"] = f"{_url(got.game)}?invite={got.invitation}"
    return data


def invite(web: Web, name: str, viewer: Viewer) -> str:
    """A new invitation link for the game's opening (its coordinator); the one before stops working."""
    web.require_coordinator(name, viewer)
    secret = play_openings.new_invitation(web.store, name)
    return f"{_url(name)}?invite={secret}"


def assign(web: Web, name: str, viewer: Viewer, person: int, power: str) -> dict[str, Any]:
    web.require_coordinator(name, viewer)
    power = play_openings.seat_signup(web.store, name, person, power, now=web.now())
    web.touched(name)
    return {"game": name, "power": power}


def draw(web: Web, name: str, viewer: Viewer, *, say: Callable[[str], str] = str) -> dict[str, Any]:
    """The coordinator draws the powers for the people waiting now, before the game is full (the rest of
    the empty powers stay open for sign-up)."""
    web.require_coordinator(name, viewer)
    got = play_openings.draw_powers(web.store, name, now=web.now())
    web.touched(name)
    if not got:
        raise BadInput(msg("nobody is waiting for a power in %(game)s", game=name))
    return {"game": name, "seated": {str(k): v for k, v in sorted(got.items())}}


def free(web: Web, name: str, viewer: Viewer, power: str) -> dict[str, Any]:
    web.require_coordinator(name, viewer)
    by = Actor(web.who(name, viewer), installation=viewer.coordinates(None), person_id=viewer.person_id)
    try:
        power = seats.free(web.store, name, power, now=web.now(), by=by)
    except TableMustVote as e:  # the creator who plays: the table decides (play.fairness)
        raise Forbidden(e.msg) from None
    web.touched(name)
    return {"game": name, "power": power}


def claim(web: Web, name: str, viewer: Viewer, me: int, power: str, *, despite_block: bool = False) -> dict[str, Any]:
    """Take a seat from the pool; the old player's links for the power stop working."""
    web.require_visible(name, viewer)
    _not_its_coordinator(web, name, viewer, me)
    power = play_openings.claim(web.store, name, power, me, now=web.now(), despite_block=despite_block)
    web.touched(name)
    return {"game": name, "power": power}


# --------------------------------------------------------------------------------------------------
# The JSON API (every answer's shape is in dippouch.web.views.answers)


def _writer(request: Request) -> Viewer:
    """The caller of a state-changing call here; one with no credentials is told sign-ups are a person's, not
    a key's."""
    return writer(
        request,
        words(request).gettext(
            "sign in first: this call needs a person signed in (a link mailed to you) or a coordinator's key"
        ),
    )


WriterDep = Annotated[Viewer, Depends(_writer)]
"""The caller of a state-changing call here (a bearer key, or a browser with the page's token), refused in the
opening's words; a call that acts for a person declares :data:`PersonDep` after it."""


class Strict(BaseModel):
    """A request body that names only its own fields: one naming a person (to act for someone else) is
    refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


class OpeningIn(Strict):
    press: str = Field(
        "",
        max_length=store_openings.MAX_PRESS,
        description="Refused unless empty: the opening shows the game's press rules, set by press_rules.",
    )
    press_rules: dict[str, Any] | None = Field(
        None, description="Press settings to set (kind, channels, quiet_phases, ...): the game's rules."
    )
    min_reliability: int = Field(0, ge=0, le=100, description="Percent a player's reliability must reach.")
    mode: str = Field("coordinator", max_length=20, description="coordinator or preferences")


class SignupIn(Strict):
    preferences: list[str] = Field(
        default_factory=list,
        max_length=MAX_WISHES,
        description='Power names, best first; "any" for every power not named.',
    )
    wait: bool = Field(False, description="Join the waiting list if every power is played or promised.")
    invite: str | None = Field(None, max_length=200, description="A private game's invitation secret.")


class FiltersIn(Strict):
    variant: str = Field("", max_length=100)
    length: str = Field("", max_length=10, description="Movement phases at most this long: 1h, 1d, 2d or 7d.")
    press: str = Field("", max_length=20, description="A press kind: none, white, grey, public or postal.")
    soon: bool = Field(False, description="Only games a few more sign-ups fill.")
    seats: int = Field(0, ge=0, le=50, description="At least this many powers still open to sign-up.")

    def filters(self) -> play_openings.Filters:
        return play_openings.Filters(
            self.variant.strip() or None,
            self.length.strip() or None,
            self.press.strip().lower() or None,
            self.soon,
            self.seats,
        )


class NewGameIn(Strict):
    template: str = Field(max_length=100, description="A template's key (GET /api/templates lists them).")
    name: str = Field("", max_length=100, description="The game's name; blank: made from the variant's.")
    movement: str | None = Field(None, max_length=20)
    retreats: str | None = Field(None, max_length=20)
    adjustments: str | None = Field(None, max_length=20)
    press: str | None = Field(None, max_length=20, description="A press kind: none, white, grey, public, postal.")
    anonymous: bool | None = None
    min_reliability: int | None = Field(None, ge=0, le=100)
    private: bool | None = Field(None, description="Listed nowhere; found by its invitation link only.")
    newcomers: bool | None = Field(
        None, description="Whether newcomers (fewer than 3 seats played) may join; null: yes, as every template."
    )
    fog: bool = Field(False, description="Fog of war: each power sees only what its units and centres see.")


class AssignIn(Strict):
    person: int = Field(description="The person (who signed up) to seat.")
    power: str = Field(max_length=100)


class PowerIn(Strict):
    power: str = Field(max_length=100)


@router.get("/api/open", **answers(OpenList))
def api_open(request: Request, web: WebDep) -> OpenList:
    """Games waiting for players (variant, deadlines, press, seats, reliability asked), starting soonest first,
    and seats wanting a replacement. Filters as query parameters: ``variant``, ``length`` (1h, 1d, 2d, 7d: movement
    at most), ``press`` (a press kind), ``soon=1`` (a few sign-ups fill it), ``seats`` (at least this many open)."""
    return OpenList.model_validate(open_list(web, filters_of(request.query_params)))


@router.post("/api/open/quick", **answers(SignupAnswer))
def api_quick_play(body: FiltersIn, web: WebDep, _: WriterDep, me: PersonDep) -> SignupAnswer:
    """Sign the signed-in person up (any power) to the open game these filters let through that starts soonest."""
    return SignupAnswer.model_validate(quick_play(web, me, body.filters()))


@router.post("/api/games/new", **answers(NewGameAnswer))
def api_new_game(body: NewGameIn, web: WebDep, _: WriterDep, me: PersonDep) -> NewGameAnswer:
    """Start a game from a template as the signed-in person, who coordinates it (a private game answers its
    invitation link, once)."""
    return NewGameAnswer.model_validate(create(web, me, play_openings.TemplateChoices(**body.model_dump())))


@router.post("/api/games/{name}/resign", **answers(ResignAnswer))
def api_resign(name: str, web: WebDep, viewer: WriterDep, me: PersonDep) -> ResignAnswer:
    """Leave the game as the signed-in person: a sign-up withdrawn, a seat freed before the start, or a seat
    offered to the replacement pool during the game (counted as abandoned)."""
    return ResignAnswer.model_validate(resign(web, name, viewer, me))


@router.get("/api/people/{person_id}", **answers(PersonProfile))
def api_person(person_id: int, web: WebDep, viewer: ViewerDep) -> PersonProfile:
    """A person's public profile: name, games played, reliability and the record behind it. An anonymous
    game counts once it ends; before, only for the person and the game's coordinator (``hidden_games``)."""
    return PersonProfile.model_validate(person_view(web, person_id, viewer))


@router.get("/api/games/{name}/opening", **answers(OpeningView))
def api_opening(name: str, web: WebDep, viewer: ViewerDep) -> OpeningView:
    """A game's opening; its coordinator also sees the sign-ups with their wishes and reliability."""
    return OpeningView.model_validate(opening_view(web, name, viewer))


@router.post("/api/games/{name}/opening", **answers(OpeningView))
def api_open_game(name: str, body: OpeningIn, web: WebDep, viewer: WriterDep) -> OpeningView:
    """Open the game for players, or change what its opening asks (its coordinator)."""
    got = open_game(web, name, viewer, body.press, body.min_reliability, body.mode, rules=body.press_rules)
    return OpeningView.model_validate(got)


@router.post("/api/games/{name}/signup", **answers(SignupAnswer))
def api_sign_up(name: str, body: SignupIn, web: WebDep, viewer: WriterDep, me: PersonDep) -> SignupAnswer:
    """Sign the signed-in person up with their ranked wishes (again: change them)."""
    got = sign_up(web, name, viewer, me, body.preferences, wait=body.wait, invite=body.invite)
    return SignupAnswer.model_validate(got)


@router.post("/api/games/{name}/withdraw", **answers(SignupAnswer))
def api_withdraw(name: str, web: WebDep, viewer: WriterDep, me: PersonDep) -> SignupAnswer:
    """Take back the signed-in person's sign-up."""
    return SignupAnswer.model_validate(withdraw(web, name, viewer, me))


@router.post("/api/games/{name}/opening/assign", **answers(ClaimAnswer))
def api_assign(name: str, body: AssignIn, web: WebDep, viewer: WriterDep) -> ClaimAnswer:
    """Seat a person who signed up in an empty power (the game's coordinator)."""
    return ClaimAnswer.model_validate(assign(web, name, viewer, body.person, body.power))


@router.post("/api/games/{name}/opening/draw", **answers(DrawAnswer))
def api_draw(name: str, web: WebDep, viewer: WriterDep) -> DrawAnswer:
    """Draw the empty powers for the people waiting now, from their wishes (the game's coordinator)."""
    return DrawAnswer.model_validate(draw(web, name, viewer))


@router.post("/api/games/{name}/opening/free", **answers(ClaimAnswer))
def api_free(name: str, body: PowerIn, web: WebDep, viewer: WriterDep) -> ClaimAnswer:
    """Offer a played seat to the replacement pool (the game's coordinator)."""
    return ClaimAnswer.model_validate(free(web, name, viewer, body.power))


@router.post("/api/games/{name}/claim", **answers(ClaimAnswer))
def api_claim(name: str, body: PowerIn, web: WebDep, viewer: WriterDep, me: PersonDep) -> ClaimAnswer:
    """Take a seat from the replacement pool as the signed-in person (the first claim wins)."""
    return ClaimAnswer.model_validate(claim(web, name, viewer, me, body.power))


# --------------------------------------------------------------------------------------------------
# Pages


def _url(name: str) -> str:
    return game_url(name) + "/opening"


def _int(text: str, what: str, lo: int, hi: int, say: Callable[[str], str]) -> int:
    return number(text.strip() or "0", what, lo=lo, hi=hi, say=say)


@router.get("/open", include_in_schema=False, response_class=HTMLResponse)
def open_page(request: Request, web: WebDep) -> Response:
    q = request.query_params
    t = words(request)
    try:
        filters = filters_of(q, t.gettext).checked()
    except (GameError, BadInput) as e:
        # A filter with no such choice: the list unfiltered, the refusal above it, the values as typed.
        o = open_list(web, gettext=t.gettext)
        o["filters"] = {k: q.get(k, "") for k in ("variant", "length", "press", "seats")} | {"soon": "soon" in q}
        refused = layer_words(request, e)
        return render(request, "open.html", {"o": OpenList.model_validate(o), "refused": refused}, status=400)
    o = open_list(web, filters, t.gettext)
    return render(request, "open.html", {"o": OpenList.model_validate(o), "refused": None})


@router.post("/open/quick", include_in_schema=False)
def quick_play_action(request: Request, form: FormDep, web: WebDep, me: PersonDep) -> Response:
    got = quick_play(web, me, filters_of(form, words(request).gettext))
    said = layer_words(request, got["text"])
    if got["seated_as"]:
        return redirect(game_url(got["game"]), said)
    return redirect(_url(got["game"]), said)


@router.get("/new-game", include_in_schema=False, response_class=HTMLResponse)
def new_game_page(request: Request, me: PersonDep) -> Response:
    return render(request, "new_game.html", _new_game_data())


def _new_game_data() -> dict[str, Any]:
    return {
        "templates": [
            {
                "key": t.key,
                "title": t.title,  # a message value, said in the page's language
                "variant": t.variant,
                "variant_title": t.variant_title,
                "deadlines": dict(t.deadlines),
                "press": t.press.get("kind", ""),
                "anonymous": t.anonymous,
                "min_reliability": t.min_reliability,
                "private": t.private,
                "newcomers": t.newcomers,
            }
            for t in play_openings.templates()
        ],
        "press_kinds": list(KINDS),
        "max_created": store_openings.MAX_CREATED,
        "probation_seats": PROBATION_SEATS,
        # The page groups the templates by variant, each under its title, its description, its size and a
        # small map whose address names its key (None: no map to show).
        "variants": {
            v.name: {
                "title": v.title,
                "description": v.description,
                "powers": len(v.powers),
                "thumb": new_games.thumbnail_key(v),
            }
            for v in variants_usable()[0]
        },
    }


THUMBNAIL_KEPT = 365 * 24 * 3600
"""Seconds a browser keeps a thumbnail asked for by its key: for good, since another picture has another key."""


@router.get("/variants/{name}/thumbnail.png", include_in_schema=False)
def variant_thumbnail(request: Request, name: str, v: str = "") -> Response:
    """A variant's small map (:func:`dippouch.web.views.new_games.thumbnail`), made once and kept on disk; asked for
    by its key (``v``, as the new-game page links it) it is kept by the browser for good, otherwise an hour."""
    from dippouch.web.views.variant_pages import find_variant

    t = words(request)
    find_variant(name, t.gettext)
    got = new_games.thumbnail(name)
    if got is None:
        raise WebNotFound(NO_MAP)
    png, key = got
    etag = f'"{key}"'
    kept = f"public, max-age={THUMBNAIL_KEPT}, immutable" if v == key else "public, max-age=3600"
    headers = {"ETag": etag, "Cache-Control": kept}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(png, media_type="image/png", headers=headers)


@router.post("/new-game", include_in_schema=False)
def new_game_action(request: Request, form: FormDep, web: WebDep, me: PersonDep) -> Response:
    def flag(key: str) -> bool | None:
        value = form.get(key, "")
        return None if value == "" else value in ("1", "on", "yes", "true")

    reliability = form.get("min_reliability", "").strip()
    _ = words(request).gettext
    choices = play_openings.TemplateChoices(
        template=form.get("template", ""),
        name=form.get("name", ""),
        movement=form.get("movement") or None,
        retreats=form.get("retreats") or None,
        adjustments=form.get("adjustments") or None,
        press=form.get("press") or None,
        anonymous=flag("anonymous"),
        min_reliability=_int(reliability, _("the minimum reliability"), 0, 100, _) if reliability else None,
        private=flag("private"),
        newcomers=flag("newcomers"),
        fog=bool(flag("fog")),
    )
    got = create(web, me, choices, say=_)
    t = words(request)
    if got["invitation"]:
        return redirect(
            got["invitation"],
            t.gettext("Created %(game)s: send this page's address to the players you invite.") % {"game": got["game"]},
        )
    return redirect(
        _url(got["game"]),
        t.gettext("Created %(game)s: it is listed on Open games and starts when full.") % {"game": got["game"]},
    )


@router.get("/people/{person_id}", include_in_schema=False, response_class=HTMLResponse)
def person_page(request: Request, person_id: int, web: WebDep, viewer: ViewerDep) -> Response:
    p = PersonProfile.model_validate(person_view(web, person_id, viewer, words(request).gettext))
    me = viewer.person_id
    blocking = me is not None and me != person_id and play_blocks.blocks(web.read, me, person_id)
    context = {"p": p, "rating": person_rating(web, person_id), "me": me, "blocking": blocking}
    return render(request, "person.html", context)


@router.get("/games/{name}/opening", include_in_schema=False, response_class=HTMLResponse)
def opening_page(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    invite_secret = request.query_params.get("invite") or None
    data = OpeningView.model_validate(opening_view(web, name, viewer, invite_secret, words(request).gettext))
    context: dict[str, Any] = {
        "o": data,
        "any": ANY,
        "desk": viewer.coordinates(name),
        "invite": invite_secret,
        "probation_seats": PROBATION_SEATS,
    }
    if viewer.person_id is not None:  # someone the viewer blocks is in the game: said before they join
        context["block_warning"] = play_blocks.join_warning(web.read, name, viewer.person_id)
    if viewer.person_id is not None and data.opened and (data.min_reliability or data.newcomers is False):
        # Whether the viewer may join, said before the form (a newcomer was refused only after filling it in).
        context["standing"] = reliability_standing(
            web, viewer.person_id, data.min_reliability or 0, newcomers=data.newcomers is not False
        )
    if context["desk"]:  # the opening's desk sets the game's press rules: its form shows them as they stand
        context["press_rules"] = store_press.press_rules(web.read, name).to_data()
    resp = render(request, "opening.html", context)
    if invite_secret:
        resp.headers["Cache-Control"] = "no-store"
    return resp


@router.post("/games/{name}/opening/{action}", include_in_schema=False)
def opening_action(request: Request, name: str, action: str, form: FormDep, web: WebDep, viewer: ViewerDep) -> Response:
    back = _url(name)
    t = words(request)
    if action == "open":
        open_game(
            web,
            name,
            viewer,
            form.get("press", ""),
            _int(form.get("min_reliability", ""), t.gettext("the minimum reliability"), 0, 100, t.gettext),
            form.get("mode", ""),
            web_press.rules_of_form(form) if form.get("kind", "") else None,
            say=t.gettext,
        )
        return redirect(back, t.gettext("%(game)s is open for players.") % {"game": name})
    if action == "signup":
        wishes = [form[k] for k in sorted((k for k in form if k.startswith("wish")), key=_rank) if form[k]]
        wait = form.get("wait", "") in ("1", "on", "yes", "true")
        invited = form.get("invite", "") or None
        despite = form.get("despite_block", "") in ("1", "on", "yes", "true")
        got = sign_up(
            web,
            name,
            viewer,
            _person_of(viewer),
            wishes,
            wait=wait,
            invite=invited,
            say=t.gettext,
            despite_block=despite,
        )
        if got["seated_as"]:
            return redirect(game_url(name), layer_words(request, got["text"]))
        return redirect(back, layer_words(request, got["text"]))
    if action == "withdraw":
        withdraw(web, name, viewer, _person_of(viewer))
        return redirect(back, t.gettext("You withdrew from %(game)s.") % {"game": name})
    if action == "resign":
        if form.get("confirm", "") != "yes":
            raise BadInput(
                t.gettext("tick 'I want to leave this game' to resign: leaving a game under way counts as abandoned")
            )
        got = resign(web, name, viewer, _person_of(viewer))
        return redirect("/me", layer_words(request, got["text"]))
    if action == "invite":
        url = invite(web, name, viewer)
        return redirect(url, t.gettext("A new invitation link: this page's address. The one before no longer works."))
    if action == "assign":
        person = _int(form.get("person", ""), t.gettext("the person"), 1, 10**12, t.gettext)
        got = assign(web, name, viewer, person, form.get("power", ""))
        return redirect(back, t.gettext("%(power)s is given.") % {"power": got["power"]})
    if action == "draw":
        got = draw(web, name, viewer, say=t.gettext)
        return redirect(back, t.gettext("Drawn: %(powers)s.") % {"powers": ", ".join(sorted(got["seated"].values()))})
    if action == "free":
        got = free(web, name, viewer, form.get("power", ""))
        return redirect(
            back, t.gettext("%(power)s's seat is offered to the replacement pool.") % {"power": got["power"]}
        )
    if action == "claim":
        despite = form.get("despite_block", "") in ("1", "on", "yes", "true")
        got = claim(web, name, viewer, _person_of(viewer), form.get("power", ""), despite_block=despite)
        return redirect(
            f"{game_url(name)}/play/{quote(got['power'], safe='')}",
            t.gettext("You play %(power)s now.") % {"power": got["power"]},
        )
    raise WebNotFound(
        msg(
            "no action %(action)s here: open, signup, withdraw, resign, invite, assign, draw, free or claim",
            action=repr(action),
        )
    )


def _rank(key: str) -> int:
    rank = number_or_none(key.removeprefix("wish"))
    return 10**6 if rank is None else rank
