"""A game's replay: the page (phase by phase on the game's map, stepped with links or played by replay.js),
its frames as JSON, and the replay as an animated GIF or WebP."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.core.messages import choices, msg, nmsg, quantity
from dippouch.i18n import DEFAULT
from dippouch.play import coach as coaching
from dippouch.play.replays import Frame, ReplayExports, replay_frames
from dippouch.render.animation import FORMATS
from dippouch.saying import say
from dippouch.web.http.budget import FRAME
from dippouch.web.http.deps import (
    SeatDep,
    ViewerDep,
    WebDep,
    answers,
    api_language,
    budget_of,
    charged_job,
    game_file,
    game_url,
    known_language,
    language,
    made_once,
    pool_of,
    render,
)
from dippouch.web.http.jobs import animated_replay
from dippouch.web.http.security import BadInput, Forbidden, Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views import games
from dippouch.web.views.answers.coach import CoachPhase, CoachPower, CoachView, HintView, TurningPointView
from dippouch.web.views.answers.replay import ReplayFrame, ReplayView
from dippouch.web.views.fog import ClearGame, fogged
from dippouch.web.views.maps import NO_MAP, map_available

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])


def _frames(web: Web, name: str) -> list[Frame]:
    return replay_frames(web.access.phases(name))


def _replay(web: Web, name: str, at: int | None = None, lang: str = DEFAULT) -> ReplayView:
    """The replay of a game the viewer may see (the route's ``VisibleGame`` asked): every frame, with its
    picture's address (None where the variant has no map drawn)."""
    variant = web.variant_of(name)
    drawn = map_available(variant)
    base = "/games/" + quote(name, safe="")
    frames = [
        ReplayFrame(
            index=i,
            phase_id=f.phase_id,
            phase=f.phase,
            view=f.view,
            caption=say(f.caption, lang),
            picture=f"{base}/phases/{f.phase_id}/map-{f.view}.svg" if drawn else None,
            phase_page=f"{base}/phases/{f.phase_id}",
        )
        for i, f in enumerate(_frames(web, name))
    ]
    shown = None if at is None else max(0, min(at, len(frames) - 1))
    return ReplayView(
        game=name,
        variant=variant.name,
        variant_title=variant.title,
        frames=frames,
        gif=f"{base}/replay.gif",
        webp=f"{base}/replay.webp",
        at=shown,
    )


@router.get("/games/{name}/replay", include_in_schema=False, response_class=HTMLResponse)
def replay_page(request: Request, name: ClearGame, web: WebDep, at: int | None = None) -> Response:
    """The replay page: one frame at a time, ``?at=N`` (from 0; the first by default), with links to every
    other, so it works without JavaScript; replay.js plays it in place."""
    r = _replay(web, name, at, language(request))
    coach = _coach(web, name, r, language(request))
    return render(request, "replay.html", {"r": r, "at": r.at or 0, "start": at is not None, "coach": coach})


@router.get("/api/games/{name}/replay", **answers(ReplayView))
def api_replay(request: Request, name: ClearGame, web: WebDep) -> ReplayView:
    """A game's replay, frame by frame: each processed phase's orders and results, then the board they led to;
    last, the board as it stands (the open phase's, or once the game is over the final board again). So
    2 x processed phases + 1 frames; each names its phase, its phase page and its picture (an SVG map); the
    captions in the language asked for (``?lang=``; English, the language programs read, otherwise)."""
    return _replay(web, name, lang=api_language(request))


@router.get("/games/{name}/replay.{fmt}", include_in_schema=False)
def replay_animation(request: Request, name: ClearGame, fmt: str, web: WebDep, viewer: ViewerDep) -> Response:
    """The replay as one animated picture (``gif`` or ``webp``): each frame about 1.2 s, the last longer. A
    first drawing takes seconds to minutes (every phase's map rasterised): it runs in the budget's drawing lane,
    its estimate (by the frames) charged to the asker before it starts; it is then kept, so the next request
    draws nothing. A replay too long to draw in one request is refused with its page, which shows every frame."""
    if fmt not in FORMATS:
        raise WebNotFound(
            msg(
                "no replay as %(format)s; it is made as %(options)s",
                format=repr(fmt[:20]),
                options=choices(f"replay.{f}" for f in FORMATS),
            )
        )
    if not map_available(web.variant_of(name)):
        raise WebNotFound(NO_MAP)
    frames = _frames(web, name)
    lang = language(request)
    captions = [say(f.caption, lang) for f in frames]
    exports = web.kept(__name__, ReplayExports)
    key = ReplayExports.key(name, frames, fmt, captions, lang)
    estimate = len(frames) * FRAME[fmt]
    longest = budget_of(request).longest
    if estimate > longest and exports.cached(key) is None:
        raise BadInput(
            msg(
                "this replay has %(frames)s pictures, about %(seconds)s s of drawing: more than one request may "
                "take here (%(most)s s); watch it frame by frame on its page, %(page)s",
                frames=len(frames),
                seconds=quantity(estimate, 0),
                most=quantity(longest),
                page=f"{game_url(name)}/replay",
            )
        )
    data = made_once(
        request,
        exports,
        key,
        lambda: _drawn(request, web, name, viewer, frames, captions, fmt, lang),
        estimate=estimate,
    )
    return game_file(data, FORMATS[fmt], name, f"-replay.{fmt}", max_age=60)  # a phase processed changes it


def _drawn(
    request: Request,
    web: Web,
    name: str,
    viewer: Viewer,
    frames: list[Frame],
    captions: list[str],
    fmt: str,
    lang: str,
) -> bytes:
    """The frames' phases read here, drawn and put together in the work pool's drawing processes."""
    pictures = {(f.phase_id, f.view): games.phase_map_record(web, name, f.phase_id, f.view, viewer) for f in frames}
    variant = web.variant_of(name)
    return pool_of(request).call("draw", animated_replay, variant, frames, pictures, fmt, captions, lang)


# ---- the coach (dippouch.play.coach): its analysis beside the replay, and hints -------------------------------


def _coach(web: Web, name: str, r: ReplayView, lang: str) -> CoachView:
    """The coach's reading of a game the viewer may see, each phase tied to its replay frame, said in ``lang``:
    nothing while a game of people runs."""
    got = coaching.game_coach(web.read, name)
    frames = {f.phase_id: f.index for f in r.frames if f.view == "orders"}
    if not got.shown:
        note = msg("The coach's analysis is shown once the game is over.")
    elif got.waiting:
        note = nmsg(
            "The coach has %(num)d phase still to analyse; it is shown once the workers have analysed it.",
            "The coach has %(num)d phases still to analyse; they are shown as the workers finish them.",
            got.waiting,
        )
    else:
        note = msg("Every movement phase analysed.")
    return CoachView(
        game=name,
        shown=got.shown,
        note=say(note, lang, "web"),
        waiting=got.waiting,
        phases=[
            CoachPhase(
                phase_id=p.phase_id,
                phase=p.phase,
                frame=frames.get(p.phase_id),
                powers=[
                    CoachPower(
                        power=x.power,
                        centres=x.centres,
                        coach=list(x.coach),
                        coach_expected=x.coach_expected,
                        played=list(x.played),
                        played_expected=x.played_expected,
                    )
                    for x in p.powers
                ],
                seconds=p.seconds,
            )
            for p in got.phases
        ],
        turning_points=[
            TurningPointView(
                kind=t.kind,
                phase_id=t.phase_id,
                phase=t.phase,
                power=t.power,
                before=t.before,
                after=t.after,
                change=t.change,
                victim=t.victim,
                text=say(t.words, lang, "web"),
                frame=frames.get(t.phase_id),
            )
            for t in got.turning_points
        ],
    )


LANG = Query("en", max_length=8, description="The language of the words (en, de, fr): English by default.")


@router.get("/api/games/{name}/coach", **answers(CoachView))
def api_coach(name: ClearGame, web: WebDep, lang: str = LANG) -> CoachView:
    """What the search bot, as a coach, says about a game once it is over (or a practice game at any time): each
    analysed movement phase with the bot's orders and the played ones and the centres each expected, and the
    game's turning points (swings, stabs, lost chances). Nothing while a game of people runs."""
    return _coach(web, name, _replay(web, name), known_language(lang))


@router.get("/api/games/{name}/powers/{power}/hint", **answers(HintView))
def api_hint(request: Request, seat: SeatDep, web: WebDep) -> HintView:
    """The search bot's orders for one's own power in the open phase of a practice game (about a second of its
    thinking, charged to the asker). Refused in a game of people, running or rated, and in a finished game."""
    try:
        coaching.hint_allowed(web.read, seat.game)
    except coaching.NotCoached as e:
        raise Forbidden(e.msg) from None
    if fogged(web, seat.game):  # the search reads the whole board: its orders would tell what the fog hides
        raise Forbidden(msg("no hints in a game played in fog of war"))
    pid, v, pos, _, _ = web.open_phase_position(seat.game)
    h: coaching.CoachHint = charged_job(
        request,
        coaching.hint,
        v,
        pos,
        seat.power,
        budget=coaching.HINT_BUDGET,
        seed=coaching.hint_seed(seat.game, pid, seat.power),
        lane="process",
        estimate=coaching.HINT_BUDGET,
    )
    return HintView(power=h.power, phase=h.phase, orders=list(h.orders), expected=h.expected)
