"""The coordinator's review of mail on the web desk: each photograph beside its proposed transcription, every
line with its verdict, the units the lines leave without an order, lines to edit and accept one by one,
then confirm; held messages to apply or dismiss; the release of a phase that waits for its review.

What is confirmed is exactly what the page showed: the form carries a digest of the lines and choices whose
verdicts were on the page, and a confirmation whose lines differ (an edit, a line taken out) shows the new
lines with their verdicts instead, to be confirmed in turn. Before the deadline the page says who sent
photographs and when, never what (nothing is read before it, as the rulebook has it).

The transcription is :func:`dippouch.mail.ocr.proposals`' output as it is; confirming goes through
:func:`dippouch.play.photos.confirm_photo` with the text shown, as the CLI's confirmation does, so both record the
same thing.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response
from starlette.requests import Request

from dippouch.core.messages import Msg, PhaseName, msg
from dippouch.game import GameError, LineCheck, check_orders, position_from_data, read_version_lines, unordered
from dippouch.i18n import phase_words
from dippouch.names import order_text, unit_text
from dippouch.store import history as store_history
from dippouch.store import variant_copy as variant_copy
from dippouch.web.http.deps import ViewerDep, WebDep, game_url, language, layer_words, render, words
from dippouch.web.http.forms import Form, posted, redirect
from dippouch.web.http.inputs import number_or_none
from dippouch.web.http.security import BadInput, Viewer, WebNotFound
from dippouch.web.http.service import Web

__all__ = ["PhotoReview", "router"]

I18N_DOMAIN = "games"
"""The catalogue of this module's words (locale/<lang>/LC_MESSAGES/games.po)."""

router = APIRouter(include_in_schema=False)

MAX_LINES = 200

READ_GRACE = timedelta(minutes=5)
"""How long after the deadline the page leaves the reading of a photograph to the worker (which reads them as
the deadline unseals them: dippouch.worker.service.PhotoReading), showing it as being read; past it, one still
unread (no worker running, or its reading failed) is read in the page's request, as the page's last resort."""


@dataclass
class ReviewLine:
    n: int
    text: str
    taken: bool
    verdict: str
    """``ok``, ``rejected``, ``instruction`` (a version line) or ``left out`` (not taken)."""
    shown: str | Msg
    """The order as it will be carried out (full names), or why it is refused: said in the page's language."""
    reading: Msg | None = None
    """How the line was read from the photograph: what the engine saw and how sure the match is."""


@dataclass
class PhotoReview:
    attachment_id: int
    power: str
    filename: str
    content_type: str
    received: datetime
    state: str
    """In English (``waits for you``, ``confirmed as version 2``, ``set aside (why)``); the page says it from
    ``confirmed_as`` and ``set_aside`` in its own words."""
    problem: Msg | None
    lines: list[ReviewLine] = field(default_factory=list)
    unordered: list[Msg] = field(default_factory=list)
    digest: str = ""
    changed: bool = False
    confirmed_as: int | None = None
    set_aside: str | None = None
    being_read: bool = False
    """Not read yet, and left to the worker for now (:data:`READ_GRACE`): the page says so."""

    @property
    def aside_why(self) -> str | None:
        """Why it was set aside, in the coordinator's words; None when they gave none."""
        from dippouch.store.mail.review import aside_reason

        return aside_reason(self.set_aside)

    @property
    def text(self) -> str:
        """The text a confirmation records: the lines taken, as shown."""
        return "\n".join(ln.text for ln in self.lines if ln.taken)


def _digest(attachment_id: int, rows: list[tuple[str, bool]]) -> str:
    return hashlib.sha256(json.dumps([attachment_id, rows], ensure_ascii=False).encode()).hexdigest()


def _judge(
    web: Any, game: str, attachment_id: int, power: str, rows: list[tuple[str, bool]]
) -> tuple[list[ReviewLine], list[Msg]]:
    """Each line's verdict, judged on exactly the lines taken (what a confirmation would record), by the
    one check every submission gets; and what those lines leave without an order."""
    from dippouch.store.mail.review import review_state

    store = web.store
    v = variant_copy.variant_of(store, game)
    rec = store_history.phase_record(store, game, phase_id=review_state(store, game, now=web.now()).phase_id)
    pos = position_from_data(v, rec["position"])
    kind = v.calendar.kind(pos.phase)
    taken_text = "\n".join(text if taken else "" for text, taken in rows)
    version = read_version_lines(taken_text)
    checks = {c.line: c for c in check_orders(v, pos, power, version.text)}
    lines: list[ReviewLine] = []
    for i, (text, taken) in enumerate(rows, start=1):
        c = checks.get(i)
        if not taken:
            lines.append(ReviewLine(i, text, False, "left out", msg("not in the confirmation")))
        elif c is None:
            lines.append(ReviewLine(i, text, True, "instruction", msg("a version line (an instruction, not an order)")))
        elif c.accepted:
            order: str | Msg = order_text(v, c.order, kind) if c.order else msg("no orders")
            if c.note:
                order = msg("%(order)s (%(note)s)", order=order, note=c.note)
            lines.append(ReviewLine(i, text, True, "ok", order))
        else:
            lines.append(ReviewLine(i, text, True, "rejected", c.error or ""))
    left: list[Msg] = []
    for units, what in unordered(v, pos, power, [c for c in checks.values() if isinstance(c, LineCheck)]):
        names = [unit_text(v, u) for u in units]
        left.append(msg("%(units)s: %(what)s", units=", ".join(names), what=what) if names else what)
    return lines, left


def _reviews(web: Any, game: str, now: datetime, *, read: bool = True) -> list[PhotoReview]:
    """The photographs to review; those not read yet are read here only with ``read`` (else they are shown as
    being read, by the worker)."""
    from dippouch.mail.ocr import ocr_missing, proposals

    out = []
    can_read = ocr_missing() is None
    for p in proposals(web.store, game, now=now, run=read and can_read):
        state = (
            f"confirmed as version {p.confirmed_as}"
            if p.confirmed_as
            else (f"set aside ({p.set_aside})" if p.set_aside else "waits for you")
        )
        r = PhotoReview(p.attachment_id, p.power, p.filename, p.content_type, p.received, state, p.problem)
        r.confirmed_as, r.set_aside = p.confirmed_as or None, p.set_aside or None
        r.being_read = can_read and not read and p.text is None and p.problem is None and r.state == "waits for you"
        if p.text is not None and not p.confirmed_as and not p.set_aside:
            if p.readings:
                # Every line read that could be an order: the sure ones taken, the flagged ones shown untaken
                # with their best guess, so the coordinator corrects them here instead of typing them out.
                kept = [rd for rd in p.readings if rd.verdict in ("order", "version", "flagged")]
                rows = [(" ".join((rd.text or rd.read).split()), rd.verdict != "flagged") for rd in kept]
                notes = [_reading_note(rd.read, rd.verdict, rd.confidence, rd.why) for rd in kept]
            else:
                rows = [(" ".join(t.split()), True) for t in p.text.split("\n")]
                notes = []
            _fill(web, game, r, rows, notes)
        out.append(r)
    return out


def _reading_note(read: str, verdict: str, confidence: float, why: Msg | None) -> Msg:
    sure = round(confidence * 100)
    if verdict == "flagged" and why is not None:
        return msg(
            "flagged, not taken: read \u201c%(read)s\u201d (%(sure)s%% sure): %(why)s", read=read, sure=sure, why=why
        )
    if verdict == "flagged":
        return msg("flagged, not taken: read \u201c%(read)s\u201d (%(sure)s%% sure)", read=read, sure=sure)
    return msg("read \u201c%(read)s\u201d (%(sure)s%% sure)", read=read, sure=sure)


def _fill(web: Any, game: str, r: PhotoReview, rows: list[tuple[str, bool]], notes: list[Msg] | None = None) -> None:
    # Blank lines keep their numbers (the verdicts' line numbers are the sheet's), but are not shown.
    r.lines, r.unordered = _judge(web, game, r.attachment_id, r.power, rows)
    for ln, note in zip(r.lines, notes or [], strict=False):
        ln.reading = note
    r.lines = [ln for ln in r.lines if ln.text]
    r.digest = _digest(r.attachment_id, [(ln.text, ln.taken) for ln in r.lines])


def _page(
    request: Request,
    web: Web,
    viewer: Viewer,
    name: str,
    *,
    edited: PhotoReview | None = None,
    note: str | None = None,
) -> Response:
    from dippouch.mail.ocr import ocr_missing
    from dippouch.store.mail.review import review_state

    web.require_coordinator(name, viewer)
    now = web.now()
    st = review_state(web.store, name, now=now)
    before = st.deadline is None or now < st.deadline
    photos: list[PhotoReview] = []
    if st.phase is not None and not before:
        photos = _reviews(web, name, now, read=st.deadline is not None and now >= st.deadline + READ_GRACE)
        if edited is not None:
            photos = [edited if p.attachment_id == edited.attachment_id else p for p in photos]
    return render(
        request,
        "review.html",
        {
            "game": name,
            "gurl": game_url(name),
            "st": st,
            "before": before,
            "photos": photos,
            "held": [i for i in st.items if i.kind == "held"],
            "ocr_missing": ocr_missing(),
            "note": note,
        },
    )


@router.get("/games/{name}/review", response_class=HTMLResponse)
def review_page(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    return _page(request, web, viewer, name)


@router.get("/games/{name}/review/photo/{attachment_id}")
def review_photo(request: Request, name: str, attachment_id: int, web: WebDep, viewer: ViewerDep) -> Response:
    """The photograph itself, after the deadline, for the game's coordinator only (never cached)."""
    from dippouch.store.mail.review import attachment_data, attachment_sealed, game_of_attachment

    _ = words(request).gettext
    web.require_coordinator(name, viewer)
    if game_of_attachment(web.store, attachment_id) != name:
        raise WebNotFound(msg("no photograph #%(id)s in %(game)s", id=attachment_id, game=name))
    sealed = attachment_sealed(web.store, attachment_id, now=web.now())
    if sealed is not None:
        raise BadInput(msg("the photographs of %(phase)s are sealed until its deadline", phase=PhaseName(sealed)))
    data = attachment_data(web.store, attachment_id)
    ctype, data = _displayable(data)
    return Response(
        data, media_type=ctype, headers={"Cache-Control": "no-store, private", "X-Content-Type-Options": "nosniff"}
    )


_SHOWN = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"}


def _displayable(data: bytes) -> tuple[str, bytes]:
    """The photograph as a browser shows it: as it came where browsers read it, else (HEIC, TIFF) turned
    into a JPEG with Pillow (and pillow-heif), else refused by name (a message value, said in the reader's
    language by the page that shows the refusal)."""
    from dippouch.letters.message import sniff_image

    kind = sniff_image(data)
    if kind in _SHOWN:
        return kind or "image/png", data
    try:
        from PIL import Image

        if kind == "image/heic":
            import pillow_heif

            pillow_heif.register_heif_opener()
        img = Image.open(io.BytesIO(data))
        out = io.BytesIO()
        img.convert("RGB").save(out, format="JPEG", quality=90)
        return "image/jpeg", out.getvalue()
    except Exception:  # no Pillow/pillow-heif, or bytes it cannot read: say so instead of failing the page
        raise BadInput(
            msg(
                "this photograph (%(kind)s) cannot be shown in a browser here; save it with "
                "`dippouch mail review GAME --save DIR`",
                kind=kind or msg("not an image"),
            )
        ) from None


MAX_FIELDS = 2 * MAX_LINES + 20
"""A transcription posts two fields a line (its text, whether to take it) and a few more."""

ReviewForm = Annotated[Form, Depends(posted(max_fields=MAX_FIELDS))]
"""A review form, CSRF-checked: a transcription's lines and choices. The first parameter of each form's route,
so a post from another site is refused as that before anything else is looked at."""


def _rows(form: Mapping[str, str], _: Callable[[str], str]) -> list[tuple[str, bool]]:
    count = number_or_none(form.get("lines", "0"))
    if count is None or not 0 <= count <= MAX_LINES:
        raise BadInput(msg("a transcription has at most %(most)s lines", most=MAX_LINES))
    rows = []
    for i in range(count):
        text = " ".join(form.get(f"line:{i}", "").split())
        if len(text) > 500:
            raise BadInput(msg("line %(line)s is longer than 500 characters", line=i + 1))
        rows.append((text, form.get(f"take:{i}") == "on"))
    extra = " ".join(form.get("extra", "").split())
    if extra:
        rows.append((extra[:500], True))
    return rows


@router.post("/games/{name}/review/{attachment_id}", response_class=HTMLResponse)
def review_photo_action(
    request: Request, form: ReviewForm, name: str, attachment_id: int, web: WebDep, viewer: ViewerDep
) -> Response:
    from dippouch.play.held_mail import set_aside
    from dippouch.play.photos import confirm_photo
    from dippouch.store.mail.review import game_of_attachment

    web.require_coordinator(name, viewer)
    now = web.now()
    back = f"{game_url(name)}/review"
    _ = words(request).gettext
    if game_of_attachment(web.store, attachment_id) != name:
        raise WebNotFound(msg("no photograph #%(id)s in %(game)s", id=attachment_id, game=name))
    do = form.get("do", "")
    try:
        if do == "set-aside":
            _game, power = set_aside(web.store, attachment_id, now=now, why=form.get("why", "")[:500])
            said = _("Photograph #%(id)s from %(power)s set aside.") % {"id": attachment_id, "power": power}
            return redirect(back, said)
        if do not in ("check", "confirm"):
            raise BadInput(_("choose Check, Confirm or Set aside"))
        photo = next((p for p in _reviews(web, name, now) if p.attachment_id == attachment_id), None)
        if photo is None:
            raise WebNotFound(msg("no photograph #%(id)s waits for review in %(game)s", id=attachment_id, game=name))
        if photo.confirmed_as:
            raise BadInput(
                msg(
                    "photograph #%(id)s is confirmed as version %(version)s",
                    id=attachment_id,
                    version=photo.confirmed_as,
                )
            )
        if photo.state != "waits for you":
            raise BadInput(
                msg("photograph #%(id)s is set aside (%(why)s)", id=attachment_id, why=photo.aside_why)
                if photo.aside_why
                else msg("photograph #%(id)s is set aside", id=attachment_id)
            )
        rows = _rows(form, _)
        if do == "confirm" and form.get("shown") == _digest(attachment_id, rows):
            text = "\n".join(t for t, taken in rows if taken and t)
            done = confirm_photo(web.store, attachment_id, text=text, now=now)
            return redirect(back, _("%(done)s, exactly as shown.") % {"done": layer_words(request, done.said)})
        # Edited, or lines taken out: show their verdicts; the coordinator confirms what is then shown.
        _fill(web, name, photo, [(t, taken) for t, taken in rows if t])
        photo.changed = True
        note = (
            _(
                "Photograph #%(id)s: the lines changed since their verdicts were shown. Here they are judged as "
                "they are now; confirm them if they are right."
            )
            if do == "confirm"
            else _("Photograph #%(id)s: the lines as they are now, judged.")
        ) % {"id": attachment_id}
        return _page(request, web, viewer, name, edited=photo, note=note)
    except GameError as e:
        return redirect(back, layer_words(request, e), error=True)


@router.post("/games/{name}/review/held/{mail_id}", response_class=HTMLResponse)
def review_held_action(
    request: Request, form: ReviewForm, name: str, mail_id: int, web: WebDep, viewer: ViewerDep
) -> Response:
    from dippouch.play.held_mail import apply_held, dismiss
    from dippouch.store.mail.review import game_of_message

    web.require_coordinator(name, viewer)
    back = f"{game_url(name)}/review"
    if game_of_message(web.store, mail_id) != name:
        raise WebNotFound(msg("no message #%(id)s in %(game)s", id=mail_id, game=name))
    _ = words(request).gettext
    try:
        if form.get("do") == "apply":
            o = apply_held(web.store, mail_id, now=web.now())
            return redirect(
                back, _("Message #%(id)s applied: %(why)s.") % {"id": mail_id, "why": layer_words(request, o.reason)}
            )
        if form.get("do") == "dismiss":
            dismiss(web.store, mail_id)
            return redirect(back, _("Message #%(id)s dismissed.") % {"id": mail_id})
        raise BadInput(_("choose Apply or Dismiss"))
    except GameError as e:
        return redirect(back, layer_words(request, e), error=True)


@router.post(
    "/games/{name}/review-release",
    response_class=HTMLResponse,
    # The form holds nothing but its token: read (and checked) all the same, first, as every form is.
    dependencies=[Depends(posted(max_fields=MAX_FIELDS))],
)
def review_release(request: Request, name: str, web: WebDep, viewer: ViewerDep) -> Response:
    from dippouch.play.held_mail import release

    web.require_coordinator(name, viewer)
    back = f"{game_url(name)}/review"
    try:
        st = release(web.store, name, now=web.now())
    except GameError as e:
        return redirect(back, layer_words(request, e), error=True)
    _ = words(request).gettext
    said = _("%(phase)s is released: it is processed at the next look.") % {
        "phase": phase_words(str(st.phase), language(request))
    }
    if st.items:
        said += " " + _("Unreviewed, not used: %(count)s.") % {"count": len(st.items)}
    return redirect(back, said)
