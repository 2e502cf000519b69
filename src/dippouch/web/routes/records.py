"""A game's records: centres by power over time (a chart drawn here as SVG, with a table beside it), its key
events, and once it is finished its scores under its own system or any other (``?system=``); page and JSON.

Everyone who may see the game may see its records (``VisibleGame``); an anonymous game's players' names are
hidden as on the game page (:mod:`dippouch.web.views.anonymity`). The numbers are :mod:`dippouch.play.records`'s,
the same the command line prints.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.game import GameError
from dippouch.i18n import DEFAULT, translations
from dippouch.play.records import (
    NOT_FINISHED,
    Scored,
    Statistics,
    UnknownSystem,
    find_system,
    game_system,
    score_record,
    statistics_of,
)
from dippouch.ranking.scoring import ScoringSystem, systems
from dippouch.ranking.stats import EventKind, GameEvent
from dippouch.saying import say as say_message
from dippouch.store.finished import game_record
from dippouch.web.http.deps import ViewerDep, WebDep, answers, game_url, language, layer_words, render
from dippouch.web.http.security import Viewer
from dippouch.web.http.service import Web
from dippouch.web.views.anonymity import seen_powers
from dippouch.web.views.answers.records import CentreLine, KeyEvent, RecordsView, ScoreLine, ScoringSystemInfo
from dippouch.web.views.fog import ClearGame

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])

_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")
GREY = "#888888"

CHART_WIDTH = 640
CHART_HEIGHT = 280
_LEFT, _RIGHT, _TOP, _BOTTOM = 36, 12, 12, 36


def _info(system: ScoringSystem) -> ScoringSystemInfo:
    return ScoringSystemInfo(name=system.name, title=system.title, source=system.source)


Say = Callable[[str], str]
"""A catalogue's gettext: the English message in, the reader's words out."""


def _english(text: str) -> str:
    return text


def _event_text(e: GameEvent, place: str | None, _: Say = _english) -> str:
    said = {"power": e.power, "other": e.other, "place": place}
    if e.kind is EventKind.CENTRE_TAKEN:
        if place:
            return _("First centre to change hands: %(power)s took %(place)s from %(other)s.") % said
        return _("First centre to change hands: %(power)s took a centre from %(other)s.") % said
    if e.kind is EventKind.ELIMINATED:
        return _("%(power)s was eliminated.") % said
    if e.kind is EventKind.STAB_ATTACK:
        if place:
            return _("Stab: %(power)s attacked %(other)s, whose unit it had supported (%(place)s).") % said
        return _("Stab: %(power)s attacked %(other)s, whose unit it had supported.") % said
    if place:
        return _("Stab: %(power)s cut the support %(other)s was giving it (%(place)s).") % said
    return _("Stab: %(power)s cut the support %(other)s was giving it.") % said


def _events(stats: Statistics, say: Say = _english) -> list[KeyEvent]:
    ids = dict(zip(stats.phases, stats.phase_ids, strict=True))
    out = []
    for e in stats.events:
        place = stats.place_names.get(e.province) if e.province is not None else None
        out.append(
            KeyEvent(
                phase=e.phase,
                phase_id=ids.get(e.phase),
                kind=str(e.kind),
                power=e.power,
                other=e.other,
                province=place,
                text=_event_text(e, place, say),
            )
        )
    return out


def chart_svg(phases: list[str], lines: list[CentreLine], *, most: int, _: Say = _english) -> str:
    """Centres by power over time as a line chart: one line a power in its colour, phases along, centres up.
    Drawn here (no script, no CDN); the page's table says the same in words for those who cannot see it."""
    w, h = CHART_WIDTH, CHART_HEIGHT
    inner_w, inner_h = w - _LEFT - _RIGHT, h - _TOP - _BOTTOM
    top = max(most, 1)
    steps = max(len(phases) - 1, 1)

    def x(i: int) -> float:
        return _LEFT + inner_w * i / steps

    def y(n: int) -> float:
        return _TOP + inner_h * (1 - n / top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="centre-chart" width="100%" viewBox="0 0 {w} {h}" role="img" '
        'aria-labelledby="chart-title chart-desc">',
        '<title id="chart-title">' + escape(_("Supply centres by power, phase by phase")) + "</title>",
        '<desc id="chart-desc">'
        + escape(
            _("A line a power over %(count)s phases; the table beside the chart gives the same counts.")
            % {"count": len(phases)}
        )
        + "</desc>",
    ]
    tick = max(1, top // 6)
    for n in range(0, top + 1, tick):
        parts.append(
            f'<line x1="{_LEFT}" x2="{w - _RIGHT}" y1="{y(n):.1f}" y2="{y(n):.1f}" stroke="#d0d0d0" stroke-width="1"/>'
            f'<text x="{_LEFT - 6}" y="{y(n) + 4:.1f}" text-anchor="end" font-size="11" fill="currentColor">{n}</text>'
        )
    years: set[str] = set()
    label_every = max(1, len(phases) // 8)
    for i, name in enumerate(phases):
        year = next((word for word in name.split() if word.isascii() and word.isdigit()), "")
        if year and year not in years:
            years.add(year)
            if (len(years) - 1) % label_every == 0:
                parts.append(
                    f'<text x="{x(i):.1f}" y="{h - _BOTTOM + 16}" text-anchor="middle" font-size="11" '
                    f'fill="currentColor">{escape(year)}</text>'
                )
    for line in lines:
        colour = line.colour if _COLOUR.fullmatch(line.colour) else GREY
        points = " ".join(f"{x(i):.1f},{y(n):.1f}" for i, n in enumerate(line.counts))
        if len(line.counts) == 1:
            points += f" {x(1):.1f},{y(line.counts[0]):.1f}"
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.5" stroke-linejoin="round" points="{points}">'
            f"<title>{escape(line.power)}: {', '.join(map(str, line.counts))}</title></polyline>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _scores(scored: Scored, seen: frozenset[str] | None) -> list[ScoreLine]:
    return [
        ScoreLine(
            power=r.power,
            player=r.player if seen is None or r.power in seen else None,
            centres=r.centres,
            score=round(r.score, 4),
            result=r.result,
        )
        for r in scored.rows
    ]


KEPT_VIEWS = 1000
"""Records views kept per app (a game's, per system asked for and per set of names the reader may see): past
this many the cache starts again."""


def records_view(
    web: Web, name: str, viewer: Viewer, system: str | None, *, page: bool = False, lang: str = DEFAULT
) -> RecordsView:
    """The game's records; ``system`` (a shipped system's name) rescores a finished game under it, and an
    unknown one is refused naming the closest (:class:`UnknownSystem`).

    Kept until the game changes (its change marker, which every event, phase and vote moves: a choice of
    system is an event): a long game's every position and order is read and parsed to draw it."""
    chosen = find_system(system) if system else None
    seen = seen_powers(web, name, viewer)
    state = web.state(name)
    key = (name, chosen.name if chosen else "", seen, page, lang)
    kept: dict[Any, tuple[Any, RecordsView]] = web.kept(__name__, dict)
    hit = kept.get(key)
    if state is not None and hit is not None and hit[0] == state[1]:
        return hit[1]
    view = _build_view(web, name, chosen, seen, page=page, lang=lang)
    if state is not None:
        with web.lock:
            if len(kept) >= KEPT_VIEWS:
                kept.clear()
            kept[key] = (state[1], view)
    return view


def _build_view(
    web: Web, name: str, chosen: ScoringSystem | None, seen: frozenset[str] | None, *, page: bool, lang: str
) -> RecordsView:
    """The records in ``lang``: the key events, the chart, the ending and why a finished game is not scored
    (the JSON API's, in English)."""
    say = translations(lang).gettext
    record = game_record(web.read, name)
    stats = statistics_of(record)
    v = record.variant
    colours = {p.name: p.colour for p in v.powers}
    lines = [CentreLine(power=p, colour=colours.get(p) or GREY, counts=list(stats.series[p])) for p in v.power_names]
    own = game_system(record)
    use = chosen or own
    scores: list[ScoreLine] | None = None
    note: str | None = NOT_FINISHED
    if record.finished:
        try:
            scores, note = _scores(score_record(record, use, stats.history), seen), None
        except GameError as e:
            # A game that ended with nobody left to share it (say): the rest of its records still show.
            note = say_message(e.msg, lang)
    # Up to the most centres any power held, with room above it (never past the board's centres).
    board = len([pr for pr in v.map.provinces if pr.supply_centre])
    most = min(board, max((n for line in lines for n in line.counts), default=0) + 2)
    return RecordsView(
        game=record.name,
        variant=v.name,
        variant_title=v.title,
        finished=record.finished,
        ending=say_message(record.ending.message, lang) if record.ending is not None else None,
        phases=list(stats.phases),
        centres=lines,
        events=_events(stats, say),
        game_system=own.name,
        system=_info(use),
        scores=scores,
        scores_note=note,
        systems=[_info(s) for s in systems().values()],
        chart=chart_svg(list(stats.phases), lines, most=most, _=say) if page else None,
    )


@router.get("/games/{name}/records", include_in_schema=False, response_class=HTMLResponse)
def records_page(
    request: Request, name: ClearGame, web: WebDep, viewer: ViewerDep, system: str | None = None
) -> Response:
    """The records page reads what ``GET /api/games/{name}/records`` answers, with the chart drawn beside.
    A system it does not know is refused on the page itself, beside the form, naming the closest."""
    try:
        view = records_view(web, name, viewer, system, page=True, lang=language(request))
    except UnknownSystem as e:
        view = records_view(web, name, viewer, None, page=True, lang=language(request))
        view = view.model_copy(update={"refusal": layer_words(request, e)})
        return render(request, "records.html", {"r": view, "game_url": game_url(name)}, status=400)
    return render(request, "records.html", {"r": view, "game_url": game_url(name)})


@router.get("/api/games/{name}/records", **answers(RecordsView))
def api_records(name: ClearGame, web: WebDep, viewer: ViewerDep, system: str | None = None) -> RecordsView:
    """A game's centre counts by power at every phase, its key events (first centre taken, eliminations,
    stabs) and, once it is finished, its scores under its own scoring system or under ``system``."""
    return records_view(web, name, viewer, system)
