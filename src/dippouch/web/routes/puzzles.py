"""Puzzles (:mod:`dippouch.play.puzzles`): the list (``/puzzles``), one puzzle (``/puzzles/{id}``: the board,
the goal in words, an order box the engine checks against every reply) and the daily puzzle
(``/puzzles/daily``: the same for everyone on a date, chosen by :func:`dippouch.play.puzzles.daily_index`).

An answer is checked, never kept: a puzzle is solved as often as anyone likes, signed in or not. A wrong one
is answered with the reply that beats it and what became of each order against it; an unreadable one with
what to change, the text typed kept in the box.
"""

from __future__ import annotations

from datetime import UTC
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.catalog import load_variant
from dippouch.core.messages import msg
from dippouch.core.notation import format_place, format_unit
from dippouch.names import phase_words
from dippouch.play.puzzles import AnswerError, CheckedAnswer, Puzzle, check_answer, daily_index, goal_words, read_answer
from dippouch.saying import say
from dippouch.store.learning.puzzles import StoredPuzzle, puzzle, puzzle_count, puzzles
from dippouch.web.http.deps import WebDep, language, render
from dippouch.web.http.forms import FormDep
from dippouch.web.http.security import WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.maps import map_available

I18N_DOMAIN = "site"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/site.po)."""

router = APIRouter()

MAX_ANSWER = 2000
"""The longest answer read, in characters (a puzzle has at most three units to order)."""


def _goal(p: Puzzle, lang: str, *, short: bool = False) -> str:
    v = load_variant(p.variant)
    loc = v.map.loc(p.target)
    here = next((u for u in p.units if v.map.province_of(v.map.loc(u.split(" ", 1)[1])) == v.map.province_of(loc)), "")
    unit = ""
    if here:
        kind, where = here.split(" ", 1)
        unit = format_unit(v, kind, v.map.loc(where), full=True)
    return say(goal_words(p.goal, format_place(v, loc, full=True), unit, short=short), lang)


def _draw(web: Web, p: Puzzle) -> str | None:
    v = load_variant(p.variant)
    if not map_available(v):
        return None

    def draw() -> str | None:
        try:
            from dippouch.render import render_phase_svg

            return str(render_phase_svg(v, {"game": p.source, "position": p.position}, orders=False))
        except (ImportError, FileNotFoundError, ValueError):
            return None

    return web.maps.drawing(("puzzle", p.key), draw)


def _found(sp: StoredPuzzle | None) -> tuple[int, Puzzle]:
    if sp is None:
        raise WebNotFound(msg("no such puzzle"))
    return sp.id, Puzzle.from_json(sp.data)


def _context(web: Web, request: Request, pid: int, p: Puzzle, *, daily: bool = False) -> dict[str, Any]:
    lang = language(request)
    return {
        "pid": pid,
        "p": p,
        "daily": daily,
        "goal": _goal(p, lang),
        "phase": phase_words(p.phase, lang),
        "map_svg": _draw(web, p),
        "typed": "",
        "checked": None,
        "refusal": None,
    }


def _daily(web: Web) -> StoredPuzzle | None:
    count = puzzle_count(web.read)
    if not count:
        return None
    return puzzle(web.read, nth=daily_index(web.clock().astimezone(UTC).date(), count))


@router.get("/puzzles", include_in_schema=False, response_class=HTMLResponse)
def puzzles_page(
    request: Request, web: WebDep, difficulty: Annotated[int | None, Query(ge=1, le=5)] = None
) -> Response:
    """Every puzzle (of one ``difficulty``, 1 to 5, when asked), with its difficulty, whose move it is and its
    goal."""
    lang = language(request)
    rows = []
    for sp in puzzles(web.read, difficulty=difficulty):
        p = Puzzle.from_json(sp.data)
        rows.append({"id": sp.id, "p": p, "goal": _goal(p, lang, short=True), "phase": phase_words(p.phase, lang)})
    daily = _daily(web)
    return render(
        request, "puzzles.html", {"rows": rows, "daily_id": daily.id if daily else None, "difficulty": difficulty}
    )


@router.get("/puzzles/daily", include_in_schema=False, response_class=HTMLResponse)
async def daily_page(request: Request, web: WebDep) -> Response:
    """Today's puzzle (UTC), the same for everyone; with no puzzle yet, the list saying so."""
    today = _daily(web)
    if today is None:
        return render(request, "puzzles.html", {"rows": [], "daily_id": None})
    pid, p = _found(today)
    ctx = await run_in_threadpool(_context, web, request, pid, p, daily=True)
    return render(request, "puzzle.html", ctx, headers={"Cache-Control": "no-store"})


@router.get("/puzzles/{pid}", include_in_schema=False, response_class=HTMLResponse)
async def puzzle_page(request: Request, web: WebDep, pid: int) -> Response:
    """One puzzle: the board, the goal, the order box."""
    pid, p = _found(puzzle(web.read, pid))
    ctx = await run_in_threadpool(_context, web, request, pid, p)
    return render(request, "puzzle.html", ctx)


def _checked(p: Puzzle, text: str) -> CheckedAnswer:
    return check_answer(p, read_answer(p, text))


@router.post("/puzzles/{pid}", include_in_schema=False, response_class=HTMLResponse)
async def puzzle_answer(request: Request, web: WebDep, pid: int, form: FormDep) -> Response:
    """Check an answer (field ``orders``) against every reply: solved, or the reply that beats it."""
    pid, p = _found(puzzle(web.read, pid))
    ctx = await run_in_threadpool(_context, web, request, pid, p, daily=form.get("daily") == "1")
    text = form.get("orders", "")
    ctx["typed"] = text
    status = 200
    if len(text) > MAX_ANSWER:
        ctx["refusal"] = say(msg("the answer is longer than %(most)s characters", most=MAX_ANSWER), language(request))
        status = 422
    else:
        try:
            ctx["checked"] = await run_in_threadpool(_checked, p, text)
        except AnswerError as e:
            ctx["refusal"] = say(e.msg, language(request))
            status = 422
    if ctx["checked"] is not None:
        c: CheckedAnswer = ctx["checked"]
        ctx["results"] = [
            {
                "power": r.power,
                "order": _order_text(p, r.order),
                "result": r.result.value,
                "dislodged": r.dislodged,
                "automatic": r.automatic,
                "reason": r.why if r.reason else "",
            }
            for r in c.results
        ]
    return render(request, "puzzle.html", ctx, status=status, headers={"Cache-Control": "no-store"})


def _order_text(p: Puzzle, order: Any) -> str:
    from dippouch.core.notation import format_order

    return format_order(load_variant(p.variant), order)
