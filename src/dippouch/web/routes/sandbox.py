"""Sandboxes on the web: start one from a game's phase (one the viewer may see) or a variant's opening, then
place, move and remove units, set centres, type every power's orders and adjudicate them step after step,
with the real engine (:mod:`dippouch.play.sandbox`); a game is never touched.

A sandbox has two links. Its edit link (``/sandbox/dp_...``, a secret shown to its maker) changes it; its
share link shows it read-only to anyone who holds it, and the signed-in person who made it edits it there too
(their list at ``/sandbox`` links to it). Every form posts and comes back to the page (303), so the page
works without JavaScript; sandbox.js only keeps the unit form's kind in step with the place picked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeAlias
from urllib.parse import quote

from cachetools import LRUCache
from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import Request

from dippouch.catalog import variant_names
from dippouch.core.errors import DippouchError
from dippouch.core.messages import N_, msg
from dippouch.core.notation import format_unit
from dippouch.core.variant import Variant
from dippouch.game import position_to_data
from dippouch.play import coach as coaching
from dippouch.play import sandbox as use
from dippouch.saying import say
from dippouch.store.sandboxes.boards import Sandbox, sandbox_by_token, sandbox_stamp, sandboxes_of
from dippouch.store.web_queries import game_phase
from dippouch.web.http.deps import (
    CSRF_PLACEHOLDER,
    MadeJSON,
    SiteDep,
    ViewerDep,
    WebDep,
    answers,
    charged,
    charged_job,
    fresh_page,
    gapped_answer,
    language,
    pool_of,
    render,
    render_html,
    words,
)
from dippouch.web.http.encoded import OFFERED, Gapped, chosen, compressed, keep_within
from dippouch.web.http.forms import FormDep, redirect
from dippouch.web.http.security import (
    CSRF_HEADER,
    BadInput,
    Forbidden,
    Viewer,
    WebNotFound,
    check_csrf,
    client_id,
)
from dippouch.web.http.service import Web
from dippouch.web.views.answers.coach import HintView
from dippouch.web.views.answers.sandbox import (
    SandboxCentre,
    SandboxItem,
    SandboxLine,
    SandboxList,
    SandboxResult,
    SandboxStarted,
    SandboxStep,
    SandboxUnit,
    SandboxView,
)
from dippouch.web.views.fog import fog_powers, fogged_record
from dippouch.web.views.maps import MapCache, map_available
from dippouch.web.views.variant_pages import find_variant

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(tags=["api"])

NO_SANDBOX = N_("no sandbox at this address: check the link (a sandbox is reached only by the link it was given)")
READ_ONLY = N_(
    "this is a sandbox's share link: it shows the board to anyone who holds it, but only its maker changes it; "
    "start a sandbox of your own from it to try your own moves"
)


@dataclass(frozen=True)
class Opened:
    """A sandbox reached by a link, with its variant and whether this caller may change it."""

    sandbox: Sandbox
    variant: Variant
    editable: bool
    by_secret: bool


def _variant(web: Web, sb: Sandbox) -> Variant:
    """The sandbox's variant: its game's own copy while the game stands (a game may play a variant file of its
    own, or one with options), else the variant of that name."""
    if sb.game is not None:
        try:
            v = web.variant_of(sb.game)
        except (WebNotFound, DippouchError):
            v = None
        if v is not None and v.name == sb.variant:
            return v
    return find_variant(sb.variant)


def _open(web: Web, token: str, viewer: Viewer) -> Opened:
    got = sandbox_by_token(web.read, token)
    if got is None:
        raise WebNotFound(NO_SANDBOX)
    sb, by_secret = got
    editable = by_secret or (sb.person_id is not None and sb.person_id == viewer.person_id)
    return Opened(sb, _variant(web, sb), editable, by_secret)


def _looked(request: Request, web: Web, o: Opened) -> Opened:
    """The sandbox as a look shows it: its orders' check is kept with them, so nothing is checked here, but
    for a sandbox kept before checks were (checked once, on the first look, charged to whoever looks)."""
    if use.checked(o.sandbox) is not None:
        return o

    def check() -> Sandbox:
        lines = pool_of(request).call("check", use.orders_checked, o.variant, o.sandbox.position, o.sandbox.orders)
        return use.keep_late_check(web.store, o.sandbox, lines)

    return Opened(charged(request, check, estimate=_estimate(o.sandbox.orders)), o.variant, o.editable, o.by_secret)


CHECK_LINE = 0.004
"""CPU seconds the check of one sandbox order line is estimated at: the dearest of the misspelt lines tried
(each a search for the closest names), on the shared 2-CPU test machine (2026-11-25): W3K's bound, 268 lines,
took 0.52 s of CPU as short misspelt orders and 1.04 s as lines of 150 characters of 40 mangled names each;
Imperial's 369 lines 0.84 s at worst; the standard map's 100 lines 0.07 s."""


def _estimate(text: str) -> float:
    return sum(1 for ln in text.splitlines() if ln.strip()) * CHECK_LINE


def _editing(web: Web, token: str, viewer: Viewer) -> Opened:
    o = _open(web, token, viewer)
    if not o.editable:
        raise Forbidden(READ_ONLY)
    return o


def _limit(request: Request, adjudicates: bool) -> None:
    """The address's allowance: a start or a step counts as an adjudication request (the adjudication
    contract's own bucket), an edit or a check as a line check; a sandbox is work and a row for anyone who
    asks, so a script cannot make them without end."""
    if adjudicates:
        request.app.state.limiter.hit("adjudicate", client_id(request), "sandboxes started or steps adjudicated")
    else:
        request.app.state.limiter.hit("check", client_id(request), "sandbox changes")


def _share(sb: Sandbox) -> str:
    return "/sandbox/" + quote(sb.share_token, safe="")


def _draw(variant: Variant, record: dict[str, Any], *, orders: bool) -> str | None:
    """The renderer's picture of a board (with orders and results, for a step), or None where no map can be
    drawn for the variant (the page gives the board in words)."""
    if not map_available(variant):
        return None
    try:
        from dippouch.render import render_phase_svg

        return str(render_phase_svg(variant, record, orders=orders))
    except (ImportError, FileNotFoundError, ValueError):
        return None


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _view(o: Opened, *, maps: MapCache | None = None, lang: str = "en") -> SandboxView:
    """The sandbox as the page and the JSON API show it; the lines' verdicts said in ``lang`` (the JSON API's:
    English, beside each refusal's ``code`` and ``params``)."""
    sb, v = o.sandbox, o.variant
    pos = use.position_of(v, sb)
    gmap = v.map
    units = [
        SandboxUnit(power=u.power, unit=format_unit(v, u.kind, u.loc), province=gmap.provinces[p].name, dislodged=d)
        for d, group in (
            (False, dict(pos.units)),
            (True, {p: x.unit for p, x in pos.dislodged.items()}),
        )
        for p, u in sorted(group.items(), key=lambda pu: gmap.provinces[pu[0]].name)
    ]
    centres = [
        SandboxCentre(province=p.abbr, name=p.name, owner=pos.centres.get(p.id))
        for p in sorted(gmap.provinces, key=lambda p: p.name)
        if p.supply_centre
    ]
    lines = [
        SandboxLine(
            line=ln.line,
            text=ln.text,
            power=ln.power,
            order=ln.order,
            error=None if ln.error is None else say(ln.error, lang, "web"),
            note=None if ln.note is None else say(ln.note, lang, "web"),
            code=None if ln.error is None else ln.error.code,
            params=None if ln.error is None else ln.error.to_data().get("args", {}),
        )
        for ln in use.checked(sb) or []  # as kept with the orders: a look checks nothing (_looked)
    ]
    step = None
    if sb.step is not None:
        step = SandboxStep(
            phase=str(sb.step.get("phase", "")),
            orders={str(k): [str(x) for x in vs] for k, vs in (sb.step.get("orders") or {}).items()},
            results=[
                SandboxResult(
                    power=str(r.get("power")),
                    order=str(r.get("order")),
                    result=str(r.get("result")),
                    reason=r.get("reason"),
                    dislodged=bool(r.get("dislodged")),
                    automatic=bool(r.get("automatic")),
                )
                for r in sb.step.get("results") or []
            ],
        )
    title = f"Sandbox: {v.title}"
    view = SandboxView(
        share=_share(sb),
        editable=o.editable,
        variant=v.name,
        variant_title=v.title,
        game=sb.game,
        phase_id=sb.phase_id,
        phase=v.calendar.name(pos.phase),
        kind=v.calendar.kind(pos.phase).value,
        units=units,
        centres=centres,
        powers=list(v.power_names),
        orders=sb.orders,
        lines=lines,
        step=step,
        back=len(sb.history),
        updated_at=sb.updated_at.isoformat(),
    )
    if maps is not None:
        # Drawn once a board (named by what it holds: the drawing is a pure function of it) and kept with the
        # game maps: a shared link read by many draws it once, and a change draws the new board.
        view.map_svg = maps.drawing(
            ("sandbox", sb.variant, _digest(sb.position)),
            lambda: _draw(v, {"game": title, "position": sb.position}, orders=False),
        )
        if (done := sb.step) is not None:
            view.step_svg = maps.drawing(
                ("sandbox step", sb.variant, _digest(done)),
                lambda: _draw(
                    v,
                    {
                        "game": title,
                        "position": done.get("position"),
                        "orders": done.get("orders"),
                        "results": done.get("results"),
                    },
                    orders=True,
                ),
            )
        view.provinces = sorted({loc.abbr for loc in gmap.locations})
    return view


# --------------------------------------------------------------------------------------------------
# Starting a sandbox


def _source(
    web: Web, viewer: Viewer, game: str, phase_id: str, variant: str, copy: str, say: Callable[[str], str]
) -> dict[str, Any]:
    """Where a new sandbox's board comes from: a phase of a game the viewer may see, another sandbox (its share
    link's token), or a variant's opening. A refusal in ``say``'s language (the JSON API's: English)."""
    _ = say
    if game.strip():
        name = game.strip()
        web.require_visible(name, viewer)
        try:
            pid = int(phase_id)
        except ValueError:
            raise BadInput(msg("phase_id must be a phase's number, not %(given)s", given=repr(phase_id[:20]))) from None
        ph = game_phase(web.read, name, pid)
        if ph is None:
            raise WebNotFound(msg("game %(game)s has no phase %(id)s", game=repr(name), id=pid))
        # A fog-of-war game's board as the reader sees it: a sandbox must not open what the fog hides.
        seen = fogged_record(web, name, {"position": ph.position}, fog_powers(web, name, viewer))
        return {"variant": web.variant_of(name), "position": seen["position"], "game": name, "phase_id": pid}
    if copy.strip():
        o = _open(web, copy.strip(), viewer)
        return {"variant": o.variant, "position": o.sandbox.position, "game": o.sandbox.game}
    if variant.strip():
        v = find_variant(variant.strip())
        return {"variant": v, "position": position_to_data(v, v.start)}
    raise BadInput(_("say where the sandbox starts: a game and one of its phases, or a variant (its opening)"))


def _start(
    web: Web, viewer: Viewer, game: str, phase_id: str, variant: str, copy: str, say: Callable[[str], str] = str
) -> tuple[Sandbox, str]:
    src = _source(web, viewer, game, phase_id, variant, copy, say)
    return use.start(
        web.store,
        src["variant"],
        src["position"],
        now=web.now(),
        person_id=viewer.person_id,
        game=src.get("game"),
        phase_id=src.get("phase_id"),
    )


@router.get("/sandbox", include_in_schema=False, response_class=HTMLResponse)
def sandbox_home(request: Request, web: WebDep, viewer: ViewerDep) -> Response:
    """Start a sandbox from a variant's opening; a signed-in person's sandboxes are listed here."""
    mine = _mine(web, viewer)
    return render(request, "sandbox_home.html", {"mine": mine, "variants": variant_names()})


def _mine(web: Web, viewer: Viewer) -> SandboxList:
    if viewer.person_id is None:
        return SandboxList(sandboxes=[])
    return SandboxList(
        sandboxes=[
            SandboxItem(
                share=_share(sb),
                variant=sb.variant,
                game=sb.game,
                phase=str(sb.position.get("phase", "")),
                updated_at=sb.updated_at.isoformat(),
            )
            for sb in sandboxes_of(web.read, viewer.person_id)
        ]
    )


@router.get("/api/sandbox", **answers(SandboxList))
def api_mine(web: WebDep, viewer: ViewerDep) -> SandboxList:
    """The signed-in person's sandboxes, the last changed first (an empty list for anyone else)."""
    return _mine(web, viewer)


@router.post("/sandbox", include_in_schema=False)
def sandbox_start(request: Request, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Start a sandbox (fields ``game`` and ``phase_id``, or ``copy``, or ``variant``) and open it."""
    _limit(request, True)
    gettext = words(request).gettext
    sb, secret = _start(
        web,
        viewer,
        form.get("game", ""),
        form.get("phase_id", ""),
        form.get("variant", ""),
        form.get("copy", ""),
        gettext,
    )
    said = (
        gettext("A sandbox of your own: nothing you do here touches a game; it is listed on your sandboxes page.")
        if viewer.person_id is not None
        else gettext(
            "A sandbox of your own: nothing you do here touches a game; you are not signed in, so this page's "
            "address is the only way back to it: keep it."
        )
    )
    # A signed-in maker edits at the share link too: opened there, the address they copy from the bar shows the
    # board and changes nothing for whoever they give it to (the edit link in the bar did: the players' trial).
    return redirect(_share(sb) if viewer.person_id is not None else "/sandbox/" + quote(secret, safe=""), said)


class StartIn(BaseModel):
    game: str = Field("", max_length=200, description="A game you may see (with phase_id).")
    phase_id: int | None = Field(None, description="The phase of that game whose board is copied.")
    variant: str = Field("", max_length=200, description="Or a variant: its opening position.")
    copy_of: str = Field("", max_length=200, description="Or another sandbox's share token: its board.")


@router.post("/api/sandbox", **answers(SandboxStarted))
def api_start(request: Request, web: WebDep, viewer: ViewerDep, body: StartIn) -> SandboxStarted:
    """Start a sandbox; answers its edit link (keep it: it is shown once) and its read-only link. A caller
    signed in as a person keeps it in their list."""
    _csrf(request, viewer)
    _limit(request, True)
    sb, secret = _start(
        web, viewer, body.game, "" if body.phase_id is None else str(body.phase_id), body.variant, body.copy_of
    )
    o = Opened(sb, _variant(web, sb), True, True)
    return SandboxStarted(edit="/sandbox/" + quote(secret, safe=""), share=_share(sb), sandbox=_view(o))


def _csrf(request: Request, viewer: Viewer) -> None:
    """A browser signed in by its cookie proves the call came from our page, as every JSON write does (a
    bearer key or no session needs nothing: the sandbox's secret in the path is the key)."""
    if viewer.session_token is not None and not viewer.by_bearer:
        check_csrf(request, request.headers.get(CSRF_HEADER))


# --------------------------------------------------------------------------------------------------
# The sandbox


MADE_BYTES = 32_000_000
"""The bound of a sandbox's answers kept in a process (the least recently used dropped past it)."""

_Made: TypeAlias = LRUCache[Hashable, bytes | Gapped]
"""A sandbox's answers made once for each state it is in (per app: :meth:`Web.kept`), by the sandbox's id and
revision: its JSON look, plain and compressed, and its page in parts around the CSRF field. A shared link is
looked at far more often than it is changed, and a W3K sandbox's page of 300 checked lines is half a megabyte
that took 25 ms to make and compress, which every look paid."""


def _answers() -> _Made:
    return LRUCache(MADE_BYTES, getsizeof=_size)


def _size(answer: bytes | Gapped) -> int:
    return len(answer) if isinstance(answer, bytes) else answer.size


def _made(web: Web, key: Hashable, make: Callable[[], bytes | Gapped]) -> bytes | Gapped:
    kept = web.kept(__name__ + ".made", _answers)
    with web.lock:
        got = kept.get(key)
        if got is not None:
            return got
    got = make()
    with web.lock:
        keep_within(kept, key, got)
    return got


def _stamped(web: Web, token: str, viewer: Viewer) -> tuple[int, int, bool, bool]:
    """The sandbox a link names, its revision (one a state), whether this caller edits it and whether the link is its
    edit link: what its answers made once are found by, read without its board."""
    got = sandbox_stamp(web.read, token)
    if got is None:
        raise WebNotFound(NO_SANDBOX)
    st, by_secret = got
    editable = by_secret or (st.person_id is not None and st.person_id == viewer.person_id)
    return st.id, st.revision, editable, by_secret


@router.get("/sandbox/{token}", include_in_schema=False, response_class=HTMLResponse)
async def sandbox_page(request: Request, token: str, web: WebDep, viewer: ViewerDep, site: SiteDep) -> Response:
    """The sandbox: its board drawn, the editor and the order box (its maker's), the last step's results. Made
    once for each state of the sandbox, language and kind of reader, the reader's CSRF field put in."""
    return await run_in_threadpool(_page_answer, request, web, token, viewer, site.public_url.rstrip("/"))


def _page_context(o: Opened, view: SandboxView, token: str, base: str) -> dict[str, Any]:
    return {
        "s": view,
        "here": "/sandbox/" + quote(token, safe=""),
        "share_url": base + view.share,
        "edit_url": base + "/sandbox/" + quote(token, safe="") if o.by_secret else None,
        "anonymous": o.sandbox.person_id is None,
        "kinds": use.UNIT_KINDS,
        "clickable": _clickable(view),
    }


def _page_answer(request: Request, web: Web, token: str, viewer: Viewer, base: str) -> Response:
    headers = {"Cache-Control": "no-store"}
    if not fresh_page(request):
        o, view = _page(request, web, token, viewer)
        return render(request, "sandbox.html", _page_context(o, view, token, base), headers=headers)
    sid, revision, editable, by_secret = _stamped(web, token, viewer)
    # Everything the page shows of its reader besides the CSRF field: the site's menu and whether they edit.
    reader = (viewer.signed_in, viewer.person_id is not None, viewer.coordinates(None), editable, by_secret)
    key = ("page", sid, revision, token, language(request), reader, request.url.query, base)

    def make() -> Gapped:
        o, view = _page(request, web, token, viewer)
        context = {**_page_context(o, view, token, base), "viewer": viewer, "csrf": CSRF_PLACEHOLDER}
        return Gapped.of(render_html(request, "sandbox.html", context), CSRF_PLACEHOLDER)

    page = _made(web, key, make)
    assert isinstance(page, Gapped)
    headers["Vary"] = "Accept-Encoding"
    return gapped_answer(request, page, headers)


def _clickable(view: SandboxView) -> dict[str, str]:
    """Province -> the unit a click on it orders (sandbox.js): in a retreat phase the dislodged one there."""
    out: dict[str, str] = {}
    for u in view.units:
        if u.dislodged == (view.kind == "retreats"):
            out[u.unit.split(" ", 1)[-1].split("/")[0]] = u.unit
    return out


def _page(request: Request, web: Web, token: str, viewer: Viewer) -> tuple[Opened, SandboxView]:
    o = _looked(request, web, _open(web, token, viewer))
    return o, _view(o, maps=web.maps, lang=language(request))


@router.get("/api/sandbox/{token}", **answers(SandboxView))
def api_sandbox(request: Request, token: str, web: WebDep, viewer: ViewerDep) -> MadeJSON[SandboxView]:
    """A sandbox by either of its links: the board, the orders typed with their verdicts (as checked when they
    were kept), the last step. Made once for each state of the sandbox and compressed once."""
    sid, revision, editable, _ = _stamped(web, token, viewer)
    key = ("look", sid, revision, token, editable)

    def make() -> bytes:
        return MadeJSON[SandboxView].encode(_view(_looked(request, web, _open(web, token, viewer))))

    headers = {"Vary": "Accept-Encoding"}
    coding = chosen(request.headers.get("accept-encoding"), OFFERED)
    if coding is None:
        body = _made(web, key, make)
    else:
        headers["Content-Encoding"] = coding
        body = _made(web, (*key, coding), lambda: compressed(_bytes(_made(web, key, make)), coding))
    return MadeJSON(_bytes(body), headers=headers)


def _bytes(got: bytes | Gapped) -> bytes:
    assert isinstance(got, bytes)
    return got


def _back_to(token: str) -> str:
    return "/sandbox/" + quote(token, safe="")


def _changed(
    request: Request,
    web: Web,
    token: str,
    viewer: Viewer,
    job: Callable[..., use.Change],
    *args: str,
    adjudicates: bool = False,
    text: str | None = None,
) -> Opened:
    """Make a change for a caller who may edit, in the work budget's check lane: ``job(variant, board, *args)``
    (the engine's part of a use case: :func:`dippouch.play.sandbox.unit_added` ...) in the work pool's processes,
    then what it made kept here. The orders (``text`` when the change brings new ones) are checked when they are
    kept, and that check is charged to whoever changes the sandbox, before it runs."""
    o = _editing(web, token, viewer)
    _limit(request, adjudicates)

    def change_it() -> Sandbox:
        change = pool_of(request).call("check", job, o.variant, use.Board.of(o.sandbox), *args)
        return use.keep(web.store, o.sandbox, change, now=web.now())

    sb = charged(request, change_it, estimate=_estimate(o.sandbox.orders if text is None else text))
    return Opened(sb, o.variant, True, o.by_secret)


@router.post("/sandbox/{token}/units", include_in_schema=False)
def form_add_unit(request: Request, token: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Place a unit (``power``, ``kind`` A or F, ``where``: a province or a coast)."""
    power, kind, where = form.get("power", ""), form.get("kind", ""), form.get("where", "")
    _changed(request, web, token, viewer, use.unit_added, power, kind, where)
    placed = words(request).gettext("Placed %(unit)s of %(power)s.") % {
        "unit": f"{kind.strip().upper()[:1]} {where.strip()[:40]}",
        "power": power.strip()[:40],
    }
    return redirect(_back_to(token), placed)


@router.post("/sandbox/{token}/remove", include_in_schema=False)
def form_remove_unit(request: Request, token: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Take the unit in ``where`` off the board."""
    where = form.get("where", "")
    _changed(request, web, token, viewer, use.unit_removed, where)
    return redirect(
        _back_to(token), words(request).gettext("Removed the unit in %(place)s.") % {"place": where.strip()[:40]}
    )


@router.post("/sandbox/{token}/centres", include_in_schema=False)
def form_set_centre(request: Request, token: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Give the centre ``where`` to ``owner`` (``none``: to no power)."""
    where, owner = form.get("where", ""), form.get("owner", "")
    _changed(request, web, token, viewer, use.centre_set, where, owner)
    _ = words(request).gettext
    said = _("%(centre)s: owned by %(owner)s.") % {
        "centre": where.strip()[:40],
        "owner": owner.strip()[:40] or _("no power"),
    }
    return redirect(_back_to(token), said)


@router.post("/sandbox/{token}/phase", include_in_schema=False)
def form_set_phase(request: Request, token: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Move the board to another phase (its units stay)."""
    phase = form.get("phase", "")
    o = _changed(request, web, token, viewer, use.phase_set, phase)
    said = words(request).gettext("The board is now in %(phase)s.") % {"phase": o.sandbox.position.get("phase")}
    return redirect(_back_to(token), said)


@router.post("/sandbox/{token}/orders", include_in_schema=False)
def form_orders(request: Request, token: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Keep the order box and check each line (``do=check``), or adjudicate it (``do=adjudicate``)."""
    text = form.get("orders", "")
    if form.get("do") == "adjudicate":
        o = _changed(request, web, token, viewer, use.stepped, text, adjudicates=True, text=text)
        step = o.sandbox.step or {}
        said = words(request).gettext("Adjudicated %(step)s: the board is now in %(phase)s.") % {
            "step": step.get("phase", ""),
            "phase": o.sandbox.position.get("phase"),
        }
        return redirect(_back_to(token), said)
    _changed(request, web, token, viewer, use.orders_set, text, text=text)
    return redirect(_back_to(token) + "#orders", words(request).gettext("Orders kept; each line is checked below."))


@router.post("/sandbox/{token}/back", include_in_schema=False)
def form_back(request: Request, token: str, web: WebDep, viewer: ViewerDep, form: FormDep) -> Response:
    """Return to the state before the last change."""
    o = _changed(request, web, token, viewer, use.went_back)
    said = words(request).gettext("Back: the board is in %(phase)s again.") % {"phase": o.sandbox.position.get("phase")}
    return redirect(_back_to(token), said)


# The JSON twins: the same use cases, answering the sandbox as it now stands.


class UnitIn(BaseModel):
    power: str = Field(max_length=100)
    kind: str = Field(max_length=20, description="A (army) or F (fleet).")
    where: str = Field(max_length=100, description="A province or a coast: 'lon', 'London', 'stp/sc'.")


class PlaceIn(BaseModel):
    where: str = Field(max_length=100)


class CentreIn(BaseModel):
    where: str = Field(max_length=100)
    owner: str = Field("", max_length=100, description="A power, or '' / 'none' for no owner.")


class PhaseIn(BaseModel):
    phase: str = Field(max_length=100, description="e.g. 'Fall 1903 Movement' or 'F1903M'.")


class OrdersIn(BaseModel):
    orders: str = Field(max_length=use.MAX_ORDERS, description="Every power's orders, one a line.")
    adjudicate: bool = Field(False, description="Adjudicate them (else only keep and check them).")


def _api_change(
    request: Request,
    web: Web,
    token: str,
    viewer: Viewer,
    job: Callable[..., use.Change],
    *args: str,
    adjudicates: bool = False,
    text: str | None = None,
) -> SandboxView:
    _csrf(request, viewer)
    return _view(_changed(request, web, token, viewer, job, *args, adjudicates=adjudicates, text=text))


@router.post("/api/sandbox/{token}/units", **answers(SandboxView))
def api_add_unit(request: Request, token: str, web: WebDep, viewer: ViewerDep, body: UnitIn) -> SandboxView:
    """Place a unit (refused where one stands, where it cannot stand, or for a name the map does not have)."""
    return _api_change(request, web, token, viewer, use.unit_added, body.power, body.kind, body.where)


@router.post("/api/sandbox/{token}/remove", **answers(SandboxView))
def api_remove_unit(request: Request, token: str, web: WebDep, viewer: ViewerDep, body: PlaceIn) -> SandboxView:
    """Take the unit in ``where`` off the board."""
    return _api_change(request, web, token, viewer, use.unit_removed, body.where)


@router.post("/api/sandbox/{token}/centres", **answers(SandboxView))
def api_set_centre(request: Request, token: str, web: WebDep, viewer: ViewerDep, body: CentreIn) -> SandboxView:
    """Give a supply centre to a power, or to none."""
    return _api_change(request, web, token, viewer, use.centre_set, body.where, body.owner)


@router.post("/api/sandbox/{token}/phase", **answers(SandboxView))
def api_set_phase(request: Request, token: str, web: WebDep, viewer: ViewerDep, body: PhaseIn) -> SandboxView:
    """Move the board to another phase (its units stay)."""
    return _api_change(request, web, token, viewer, use.phase_set, body.phase)


@router.post("/api/sandbox/{token}/orders", **answers(SandboxView))
def api_orders(request: Request, token: str, web: WebDep, viewer: ViewerDep, body: OrdersIn) -> SandboxView:
    """Keep the orders (each line's verdict in ``lines``), or adjudicate them: the board moves to the next
    phase and ``step`` holds the results (refused if any line is refused)."""
    job = use.stepped if body.adjudicate else use.orders_set
    return _api_change(request, web, token, viewer, job, body.orders, adjudicates=body.adjudicate, text=body.orders)


@router.post("/api/sandbox/{token}/back", **answers(SandboxView))
def api_back(request: Request, token: str, web: WebDep, viewer: ViewerDep) -> SandboxView:
    """Return to the state before the last change (a step, or an edit)."""
    return _api_change(request, web, token, viewer, use.went_back)


@router.get("/api/sandbox/{token}/hint", **answers(HintView))
def api_sandbox_hint(
    request: Request,
    token: str,
    web: WebDep,
    viewer: ViewerDep,
    power: str = Query(max_length=100, description="The power the search bot is to order (its name)."),
) -> HintView:
    """The search bot's orders for ``power`` on the sandbox's board, as a coach would give them (about a second
    of its thinking, charged to the asker); anyone with either of its links may ask."""
    o = _open(web, token, viewer)
    pos = use.position_of(o.variant, o.sandbox)
    name = coaching.power_named(o.variant, power)
    h: coaching.CoachHint = charged_job(
        request,
        coaching.hint,
        o.variant,
        pos,
        name,
        budget=coaching.HINT_BUDGET,
        seed=coaching.hint_seed(token, o.sandbox.id, name),
        lane="process",
        estimate=coaching.HINT_BUDGET,
    )
    return HintView(power=h.power, phase=h.phase, orders=list(h.orders), expected=h.expected)
