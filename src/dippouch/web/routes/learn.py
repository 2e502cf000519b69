"""The guided first game on the web (docs/learn.md): ``/learn`` lists the lessons with the reader's progress,
``/learn/{lesson}`` shows one (its board drawn, its text and goal, an order box) and, once orders were played,
the phase adjudicated by the real engine with what happened told in words and the goal's verdict.

Playing a lesson posts the orders (``POST /learn/{lesson}``): a lesson passed is kept, for a signed-in person
in the store, for anyone else in a cookie of this site (the lessons passed, nothing else); the answer is a
redirect to the lesson's page with the orders in its address (``?orders=``), which plays them again (an
adjudication of a handful of units: nothing to keep), so the result survives a reload and a shared link.
After the last lesson the page offers a short practice game against the gentlest bots, started by the
practice form's own route (``POST /practice``).
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.core.errors import DippouchError
from dippouch.core.notation import format_unit
from dippouch.game import position_from_data
from dippouch.play import lessons as use
from dippouch.web.http.deps import ViewerDep, WebDep, render, set_private_cookie
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.security import Viewer, WebNotFound
from dippouch.web.http.service import Web
from dippouch.web.views.maps import map_available

I18N_DOMAIN = "site"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/site.po)."""

router = APIRouter(tags=["learn"])

COOKIE = "dp_lessons"
"""A visitor's progress: the lessons passed, comma-separated (read back through :func:`use.read_progress`)."""
COOKIE_AGE = 365 * 24 * 3600

OrdersQuery = Annotated[str, Query(max_length=use.MAX_TEXT, description="The orders played.")]


def _done(request: Request, web: Web, viewer: Viewer) -> set[str]:
    """The lessons the reader passed: a signed-in person's as stored (and any they passed before signing in,
    in this browser), a visitor's from their cookie."""
    here = use.read_progress(request.cookies.get(COOKIE, ""))
    if viewer.person_id is None:
        return here
    return use.passed(web.read, viewer.person_id) | here


def _lesson(slug: str) -> use.Lesson:
    try:
        return use.lesson(slug)
    except DippouchError as e:
        raise WebNotFound(e.msg) from None


def _steps(done: set[str]) -> list[dict[str, Any]]:
    return [{"slug": le.slug, "title": le.title, "done": le.slug in done} for le in use.LESSONS]


@router.get("/learn", include_in_schema=False, response_class=HTMLResponse)
def learn_home(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    """The lessons, the reader's progress, and the way on: the next lesson, or the short game."""
    done = _done(request, web, viewer)
    nxt = use.next_lesson(done)
    return render(
        request,
        "learn.html",
        {"steps": _steps(done), "next": nxt, "done": len(done), "level": use.GAME_LEVEL, "variant": use.VARIANT},
    )


def _draw(web: Web, key: tuple[Any, ...], record: dict[str, Any], *, orders: bool) -> str | None:
    v = use.variant()
    if not map_available(v):
        return None

    def draw() -> str | None:
        try:
            from dippouch.render import render_phase_svg

            return str(render_phase_svg(v, record, orders=orders))
        except (ImportError, FileNotFoundError, ValueError):
            return None

    return web.maps.drawing(key, draw)


def _units(position: dict[str, Any]) -> list[dict[str, Any]]:
    """The units on a lesson's board, named as orders write them and in full (a dislodged one marked)."""
    v = use.variant()
    pos = position_from_data(v, position)
    gmap = v.map
    units = [(u, False) for u in pos.units.values()] + [(d.unit, True) for d in pos.dislodged.values()]
    return sorted(
        (
            {
                "power": u.power,
                "unit": format_unit(v, u.kind, u.loc),
                "name": gmap.unit_label(u.kind, u.loc),
                "dislodged": dislodged,
            }
            for u, dislodged in units
        ),
        key=lambda x: (x["power"], x["name"]),
    )


@router.get("/learn/{slug}", include_in_schema=False, response_class=HTMLResponse)
def lesson_page(request: Request, slug: str, web: WebDep, viewer: ViewerDep, orders: OrdersQuery = "") -> Response:
    """A lesson: its board, text and goal, the order box; with ``orders``, those orders played and explained."""
    le = _lesson(slug)
    done = _done(request, web, viewer)
    start = use.start_position(le)
    tried = use.attempt(le, orders) if orders.strip() else None
    board = _draw(web, ("lesson", le.slug), {"game": le.slug, "position": start}, orders=False)
    result = None
    if tried is not None and tried.record is not None:
        digest = hashlib.sha256(repr(sorted(tried.record["orders"].items())).encode()).hexdigest()
        result = _draw(web, ("lesson", le.slug, digest), tried.record, orders=True)
    index = [x.slug for x in use.LESSONS].index(le.slug)
    following = use.LESSONS[index + 1] if index + 1 < len(use.LESSONS) else None
    units = _units(start)
    return render(
        request,
        "learn_lesson.html",
        {
            "le": le,
            "number": index + 1,
            "count": len(use.LESSONS),
            "steps": _steps(done),
            "board": board,
            "phase": start["phase"],
            "mine": [u for u in units if u["power"] == le.power],
            "theirs": [u for u in units if u["power"] != le.power],
            "tried": tried,
            "result_svg": result,
            "following": following,
            "here": "/learn/" + quote(le.slug, safe=""),
        },
        headers={"Cache-Control": "no-store"},
    )


@router.post("/learn/{slug}", include_in_schema=False)
def play_lesson(request: Request, slug: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Play the orders typed; a lesson passed is kept (the store, or this browser's cookie)."""
    le = _lesson(slug)
    text = form.get("orders", "")
    tried = use.attempt(le, text)
    target = f"/learn/{quote(le.slug, safe='')}?orders={quote(text, safe='')}#result"
    resp = redirect(target)
    if tried.passed:
        if viewer.person_id is not None:
            use.mark_passed(web.store, viewer.person_id, le.slug, now=web.now())
        else:
            done = use.read_progress(request.cookies.get(COOKIE, "")) | {le.slug}
            kept = ",".join(x.slug for x in use.LESSONS if x.slug in done)
            set_private_cookie(request, resp, COOKIE, kept, COOKIE_AGE)
    return resp
