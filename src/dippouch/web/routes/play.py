"""A power's page: orders typed, picked or clicked, checked and sent, and the draw vote; pages and JSON."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.game import TYPED, Changed
from dippouch.i18n import phase_words, translations
from dippouch.play.votes import Decided, describe
from dippouch.saying import say
from dippouch.store.bots import practice_game
from dippouch.store.openings import seats_left_by
from dippouch.web.http.deps import (
    OrderingSeat,
    SeatDep,
    ViewerDep,
    WebDep,
    WriterDep,
    answers,
    charged_job,
    game_url,
    known_language,
    language,
    layer_words,
    metered,
    render,
    words,
)
from dippouch.web.http.forms import PageForm, redirect
from dippouch.web.http.inputs import number_or_none
from dippouch.web.http.security import (
    BadInput,
    Forbidden,
    TooMany,
    Viewer,
    WebError,
    client_id,
)
from dippouch.web.http.service import Web
from dippouch.web.routes import press
from dippouch.web.views import player_page, practice
from dippouch.web.views.answers.play import (
    CheckAnswer,
    PlayerView,
    ProposalAnswer,
    ProposalEntry,
    ProposalsView,
    Receipt,
    VoteAnswer,
)

router = APIRouter(tags=["api"])

I18N_DOMAIN = "games"


@router.get("/games/{name}/play/{power}", include_in_schema=False, response_class=HTMLResponse)
def play_page(request: Request, web: WebDep, viewer: ViewerDep, name: str, power: str) -> Response:
    # Not SeatDep: a refused seat is answered below (an old link of the seat's former player), not at once.
    try:
        pv, shared = player_page.seat_page(web, name, power, viewer, language(request))
    except Forbidden:
        # The person whose seat this was, following an old link (a mail from before they left or were
        # replaced), is shown their games, not a refusal; anyone else is refused as before.
        if viewer.person_id is None or not any(
            s.game == name and s.power.casefold() == power.casefold()
            for s in seats_left_by(web.store, viewer.person_id)
        ):
            raise
        left = msg("You do not play %(power)s in %(game)s now; your games are below.", power=power, game=name)
        return redirect("/me", layer_words(request, left))
    practice.note_visit(web, name)  # a practice game its person still comes to is not stopped
    context = press.play_context(request, web, pv, viewer, shared)
    context["hint_url"] = coach_hint_url(web, name, pv.power)
    return render(request, "play.html", context)


def coach_hint_url(web: Web, name: str, power: str) -> str | None:
    """The coach's hint for the seat (its JSON route), in a practice game only: never offered in a game of people."""
    if practice_game(web.read, name) is None:
        return None
    return f"/api{game_url(name)}/powers/{quote(power, safe='')}/hint"


def e_status(e: Exception) -> int:
    """The refusal's own status (400 for input refused as it stands, or for orders the game cannot take now:
    their phase was processed meanwhile, the power has nothing to order; 409 for orders typed over a version
    another has replaced since), as the API answers it."""
    if isinstance(e, WebError):
        return e.status
    return 409 if isinstance(e, Changed) else 400


def _refused_page(
    request: Request, web: Web, viewer: Viewer, seat: OrderingSeat, text: str, message: str, status: int
) -> Response:
    """A submission that was refused (nothing stored): the player's page again, with what they typed still in
    the box, why it was refused, and every line's verdict against the phase open now (without JavaScript,
    this is all a player sees; a separate error page lost the text)."""
    pv, shared = player_page.seat_page(web, seat.game, seat.power, viewer, language(request))
    lines: list[dict[str, Any]] = []
    if pv.open and pv.must_act:
        try:
            checked = metered(request, lambda: player_page.check_lines(web, seat.game, seat.power, text, viewer))
            lines = player_page.lines_said([ln.to_data() for ln in checked], language(request))
        except (WebError, DippouchError):
            lines = []  # the text itself is what was refused (too long, not text): the message says so
    # Refused because another version came since: the page shows that version beside the text kept.
    refused = {"message": message, "text": text, "lines": lines, "changed": status == 409}
    context = press.play_context(request, web, pv, viewer, shared, refused=refused)
    return render(request, "play.html", context, status=status)


def _play_url(name: str, power: str) -> str:
    return f"{game_url(name)}/play/{power}"


@router.post("/games/{name}/play/{power}/orders", include_in_schema=False)
def play_submit(request: Request, form: PageForm, seat: SeatDep, web: WebDep, viewer: ViewerDep) -> Response:
    request.app.state.limiter.hit("submit", f"{client_id(request)}:{seat.game}:{seat.power}", "submissions")
    text = form.get("orders", "")
    # The pick lists (one select per unit) add their chosen orders below what was typed.
    picks = [v for k, v in form.items() if k.startswith("pick:") and v.strip()]
    if picks:
        text = "\n".join([text.rstrip(), *picks]).strip("\n")
    ready = form.get("ready", "") in ("1", "on", "true")
    phase = form.get("phase", "").strip() or None  # the phase the form was for: refused if processed since
    # The version the form was typed over: refused if another came since (a second tab, an e-mail).
    based_on = number_or_none(form.get("based_on", ""))
    lang = language(request)
    try:
        got = metered(
            request, lambda: player_page.submit(web, seat, text, ready, phase=phase, based_on=based_on, lang=lang)
        )
    except (BadInput, TooMany, DippouchError) as e:
        # A refusal of the store's in the page's language (a hint in the web's words).
        message = layer_words(request, e)
        return _refused_page(request, web, viewer, seat, text, message, e_status(e))
    return redirect(_play_url(seat.game, got.power), receipt_words(got, language(request)))


def receipt_words(got: Receipt, lang: str) -> str:
    """The receipt in one paragraph, in the reader's language ``lang``, as the page flashes it (the phases it
    moved on named in the reader's season words: the receipt's own names are the API's English)."""
    say = translations(lang)
    _ = say.gettext
    # The form follows the orders accepted, the counted noun; the rejected count is said as a number.
    msg = (
        say.ngettext(
            "Version %(version)s recorded (ready): %(accepted)s order accepted, %(rejected)s rejected.",
            "Version %(version)s recorded (ready): %(accepted)s orders accepted, %(rejected)s rejected.",
            got.accepted,
        )
        if got.ready
        else say.ngettext(
            "Version %(version)s recorded: %(accepted)s order accepted, %(rejected)s rejected.",
            "Version %(version)s recorded: %(accepted)s orders accepted, %(rejected)s rejected.",
            got.accepted,
        )
    ) % {
        "version": got.version,
        "accepted": got.accepted,
        "rejected": got.rejected,
    }
    if not got.stands:
        msg += " " + (
            _("It has no accepted order, so it does not replace your earlier orders: version %(version)s stands.")
            % {"version": got.standing}
            if got.standing
            else _("It has no accepted order.")
        )
    if got.unordered_notes:
        msg += " " + _("Without an order: %(units)s.") % {"units": "; ".join(got.unordered_notes)}
    if got.ready_refused:
        msg += " " + _("Not marked ready: %(why)s") % {"why": got.ready_refused}
    if got.late:
        msg += " " + _("It arrived after the deadline and does not count unless the coordinator extends it.")
    if got.processed:
        msg += " " + say.ngettext(
            "Everyone was ready: %(phases)s has been processed.",
            "Everyone was ready: %(phases)s have been processed.",
            len(got.processed),
        ) % {"phases": ", ".join(phase_words(name, lang) for name in got.processed)}
    return msg


@router.post("/games/{name}/play/{power}/vote", include_in_schema=False)
def play_vote(request: Request, form: PageForm, seat: SeatDep, web: WebDep, viewer: ViewerDep) -> Response:
    draw = form.get("draw", "") in ("1", "yes", "on", "true")
    voted = player_page.vote(web, seat.game, seat.power, draw, viewer)
    _ = words(request).gettext
    msg = (
        say(voted.ending.message, language(request))
        if voted.ending
        else (_("You vote for a draw.") if draw else _("Your draw vote is withdrawn."))
    )
    return redirect(_play_url(seat.game, seat.power), msg)


class PowerOrdersIn(BaseModel):
    text: str = Field(max_length=TYPED.total, description="Orders, one a line, in any notation the parser reads.")
    ready: bool = False
    phase: str | None = Field(
        None,
        max_length=100,
        description="The phase these orders were written for (e.g. Spring 1901 Movement). If it has been processed "
        "meanwhile, the orders are refused with the reason instead of going to the phase now open.",
    )
    based_on: int | None = Field(
        None,
        ge=0,
        le=1_000_000,
        description="The seat's latest version these orders were written over (the player view's latest_version). "
        "If another version has arrived since (another tab, device or door), the orders are refused (409) naming it, "
        "instead of replacing what was not seen. Left out, they replace whatever stands.",
    )


class CheckIn(BaseModel):
    text: str = Field(max_length=TYPED.total)


class VoteIn(BaseModel):
    draw: bool


# A state-changing call names its caller (WriterDep) before its seat: a caller with no key is told so (401),
# not that the seat is not theirs.


@router.get("/api/games/{name}/powers/{power}", **answers(PlayerView))
def api_player(web: WebDep, viewer: ViewerDep, seat: SeatDep) -> PlayerView:
    """The player's view: units, legal orders per unit, submitted versions, ready flag (own power only)."""
    return player_page.player_model(web, seat.game, seat.power, viewer)


@router.post("/api/games/{name}/powers/{power}/check", **answers(CheckAnswer))
def api_check(
    request: Request,
    viewer: WriterDep,
    seat: SeatDep,
    web: WebDep,
    body: CheckIn,
    lang: str = Query(
        "en",
        max_length=8,
        description="The language of the verdicts, notes and units left without an order (en, de, fr; the "
        "player's page asks for its own): English by default, and for a language the site does not have.",
    ),
) -> CheckAnswer:
    """Check order lines as they would be checked on arrival, without recording anything: each line's verdict,
    note and subject (the province of the unit or site it orders), and the units left without an order."""
    request.app.state.limiter.hit("check", f"{client_id(request)}", "line checks")
    lang = known_language(lang)
    _, power, _ = web.require_seat(seat.game, seat.power, viewer)
    _, v, pos, _, _ = web.open_phase_position(seat.game)
    pos = player_page.checked_position(web, seat.game, v, pos, power)  # a fog player's sight only
    answer: dict[str, Any] = charged_job(request, player_page.checked_view, v, pos, power, body.text, lang)
    return CheckAnswer.model_validate(answer)


@router.post("/api/games/{name}/powers/{power}/orders", **answers(Receipt))
def api_submit(
    request: Request,
    viewer: WriterDep,
    seat: SeatDep,
    web: WebDep,
    body: PowerOrdersIn,
    lang: str = Query(
        "en",
        max_length=8,
        description="The language of the verdicts, notes and units left without an order (en, de, fr): English by "
        "default, and for a language the site does not have; the lines' code and params are the same in any.",
    ),
) -> Receipt:
    """Submit a new version of the power's orders (checked line by line, as on arrival)."""
    request.app.state.limiter.hit("submit", f"{client_id(request)}:{seat.game}:{seat.power}", "submissions")
    lang = known_language(lang)
    return metered(
        request,
        lambda: player_page.submit(
            web, seat, body.text, body.ready, phase=body.phase, based_on=body.based_on, lang=lang
        ),
    )


@router.post("/api/games/{name}/powers/{power}/vote", **answers(VoteAnswer))
def api_vote(viewer: WriterDep, seat: SeatDep, web: WebDep, body: VoteIn) -> VoteAnswer:
    """Vote for a draw (or withdraw the vote); answers the game's ending if every surviving power agreed."""
    voted = player_page.vote(web, seat.game, seat.power, body.draw, viewer)
    return VoteAnswer(ending=voted.ending.text if voted.ending else None)


# The table's proposals (issue 56): one use case (dippouch.play.votes) behind the page's forms and the API.


def _number(text: str) -> float | None:
    """A form's number of hours (empty: none given, which the use case refuses in its words)."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise BadInput(msg("the length must be a number of hours, not %(text)s", text=repr(text))) from None


def _proposal_values(form: Any) -> dict[str, Any]:
    """What the page's proposal form sends, as :func:`dippouch.play.votes.propose` takes it."""
    return {
        "hours": _number(form.get("hours", "")),
        "to": form.get("to", "").strip() or None,
        "powers": [p for p in form.all("powers") if p.strip()],
        "phase": form.get("phase", "").strip() or None,
        "player": form.get("player", "").strip() or None,
        "email": form.get("email", "").strip() or None,
    }


def _proposal_said(request: Request, got: Decided) -> str:
    said = say(got.said, language(request))
    return f"{said} {say(got.ending.message, language(request))}" if got.ending is not None else said


@router.post("/games/{name}/play/{power}/proposals", include_in_schema=False)
def play_propose(request: Request, form: PageForm, seat: SeatDep, web: WebDep, viewer: ViewerDep) -> Response:
    got = player_page.propose(web, seat.game, seat.power, form.get("kind", ""), viewer, **_proposal_values(form))
    return redirect(_play_url(seat.game, seat.power) + "#proposals", _proposal_said(request, got))


@router.post("/games/{name}/play/{power}/proposals/{proposal}/ballot", include_in_schema=False)
def play_ballot(
    request: Request, form: PageForm, seat: SeatDep, web: WebDep, viewer: ViewerDep, proposal: int
) -> Response:
    yes = form.get("yes", "") in ("1", "yes", "on", "true")
    got = player_page.ballot(web, seat.game, seat.power, proposal, yes, viewer)
    return redirect(_play_url(seat.game, seat.power) + "#proposals", _proposal_said(request, got))


@router.post("/games/{name}/play/{power}/proposals/{proposal}/withdraw", include_in_schema=False)
def play_withdraw(
    request: Request, form: PageForm, seat: SeatDep, web: WebDep, viewer: ViewerDep, proposal: int
) -> Response:
    got = player_page.withdraw(web, seat.game, seat.power, proposal, viewer)
    return redirect(_play_url(seat.game, seat.power) + "#proposals", _proposal_said(request, got))


class ProposeIn(BaseModel):
    kind: str = Field(
        max_length=20,
        description="pause, extend, cancel, concede, draw; in a game its players run also process, rollback, "
        "replace, unseal.",
    )
    hours: float | None = Field(None, description="A pause's or an extension's length (1 to 336, 1 to 168).")
    to: str | None = Field(None, max_length=100, description="The power conceded to, or whose player is replaced.")
    powers: list[str] = Field(
        default_factory=list, max_length=40, description="A draw's powers (none: every surviving power)."
    )
    phase: str | None = Field(None, max_length=100, description="The phase a roll back opens again.")
    player: str | None = Field(None, max_length=200, description="A replacement's name.")
    email: str | None = Field(None, max_length=320, description="A replacement's address.")


class BallotIn(BaseModel):
    yes: bool


def _answer(web: Web, name: str, power: str, viewer: Viewer, got: Decided) -> ProposalAnswer:
    view = _proposals_of(web, name, power, viewer)
    entry = next((e for e in view.entries if e.id == got.proposal.id), None) if view else None
    if entry is None:  # the game ended with it: the proposal as decided, ballots as the game shows them
        p = got.proposal
        entry = ProposalEntry(
            id=p.id,
            kind=p.kind,
            values=p.values,
            what=say(describe(p), "en"),
            proposer=None,
            status=p.status,
            yes=p.yes,
            no=p.no,
            needed=p.needed,
            voters=list(p.voters),
            ballots=None,
            mine=p.ballots.get(power),
            may_vote=False,
            may_withdraw=False,
            expires_at=None,
        )
    return ProposalAnswer(
        proposal=entry, said=say(got.said, "en"), ending=got.ending.text if got.ending is not None else None
    )


def _proposals_of(web: Web, name: str, power: str, viewer: Viewer) -> ProposalsView | None:
    pv = player_page.player_model(web, name, power, viewer)
    return pv.proposals


@router.get("/api/games/{name}/powers/{power}/proposals", **answers(ProposalsView))
def api_proposals(web: WebDep, viewer: ViewerDep, seat: SeatDep) -> ProposalsView:
    """The table's proposals as this seat sees them: the game's vote rule, what it may propose, the open and
    recent proposals (ballots by power unless the ballot is secret or the game anonymous)."""
    view = _proposals_of(web, seat.game, seat.power, viewer)
    if view is None:
        raise BadInput(msg("the game is over: nothing is put to the vote any more"))
    return view


@router.post("/api/games/{name}/powers/{power}/proposals", **answers(ProposalAnswer))
def api_propose(viewer: WriterDep, seat: SeatDep, web: WebDep, body: ProposeIn) -> ProposalAnswer:
    """Propose something to the table (voting yes to it); it passes by the game's vote rule and then acts."""
    values = body.model_dump(exclude={"kind"})
    got = player_page.propose(web, seat.game, seat.power, body.kind, viewer, **values)
    return _answer(web, seat.game, seat.power, viewer, got)


@router.post("/api/games/{name}/powers/{power}/proposals/{proposal}/ballot", **answers(ProposalAnswer))
def api_ballot(viewer: WriterDep, seat: SeatDep, web: WebDep, body: BallotIn, proposal: int) -> ProposalAnswer:
    """Vote yes or no on an open proposal (a second ballot replaces the first while it is open)."""
    got = player_page.ballot(web, seat.game, seat.power, proposal, body.yes, viewer)
    return _answer(web, seat.game, seat.power, viewer, got)


@router.post("/api/games/{name}/powers/{power}/proposals/{proposal}/withdraw", **answers(ProposalAnswer))
def api_withdraw(viewer: WriterDep, seat: SeatDep, web: WebDep, proposal: int) -> ProposalAnswer:
    """Withdraw an open proposal this seat made."""
    got = player_page.withdraw(web, seat.game, seat.power, proposal, viewer)
    return _answer(web, seat.game, seat.power, viewer, got)
