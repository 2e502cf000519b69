"""A mailed power's orders, once the intake knows whose they are and for which phase
(:mod:`dippouch.play.mail_intake`): read from the letter (its body without quotes, signature, token and the
sheet's heading, else a text attachment; a text beside photographs that holds no order is not a submission),
the vote lines cast first, then sent through :func:`dippouch.play.orders.send_orders` with the message's record
and receipt made inside the submission's transaction (:func:`_receipt`); photographs alone get a receipt of
their own (:func:`photo_receipt`) and wait for the coordinator's review.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from dippouch.core.messages import N_, Msg, joined, nmsg
from dippouch.game import (
    GameError,
    GameSettings,
    check_orders,
    position_from_data,
    read_version_lines,
    seen_position,
    submission_stands,
)
from dippouch.i18n import translations
from dippouch.letters import compose
from dippouch.letters.message import Inbound, clean_body, strip_sheet
from dippouch.letters.proof import Proof, strip_token
from dippouch.letters.subject import GameNames, Reading, power_names, suggest_subject
from dippouch.names import phase_words
from dippouch.play.mail_record import (
    ForPower,
    IntakeOutcome,
    MailDecision,
    game_language,
    record_of,
    reply,
    said_both,
)
from dippouch.play.orders import Submitted, send_orders
from dippouch.play.votes import mail_votes
from dippouch.saying import say
from dippouch.store.mail.games import MailGame, MailPhase
from dippouch.store.mail.inbox import Finish
from dippouch.store.submissions import SubmitResult

__all__ = ["FORMER_REASONS", "I18N_DOMAIN", "photo_promise", "photo_reason", "photo_receipt", "send"]

I18N_DOMAIN = "mail"
"""The receipts are in the mail's words, in the game's language."""

FORMER_REASONS: tuple[str, ...] = (
    N_("photograph(s) received after the deadline: recorded as late, not used"),
    N_("photograph(s) kept sealed; the coordinator reviews them after the deadline"),
)
"""The reasons a photographed message's record kept before they were said by the number of photographs
(:func:`photo_reason`). A record stored then (or read into these ids from its older English by migration 0033,
:mod:`dippouch.store.mail.legacy`) holds no count among its values, so
:data:`dippouch.core.messages.FORMER_IDS` could choose no form for it and it is read back under its old id:
marked here, so the catalogues keep its translation and an old record is still said in every language."""


def send(
    at: ForPower,
    proof: Proof | None,
    *,
    when: datetime,
    token_note: str,
    next_subject: Callable[..., str],
) -> MailDecision:
    """Orders for the open phase from the power's proven address: the votes its lines cast, then the orders
    sent through the use case every door sends them by, the message's record and receipt written in the
    submission's own transaction (:func:`_receipt`); photographs alone get their own receipt."""
    store, g, ph, names, power = at.store, at.g, at.ph, at.names, at.power
    assert ph is not None and names.phase is not None
    # The orders: the body (cleaned), else text attachments; photographs are kept for transcription.
    found = _orders_in(at.msg, names, g, ph, power, at.reading, proof)
    if not found.text.strip():
        return _no_text(at, found, when=when, token_note=token_note, next_subject=next_subject)
    # The vote lines act first (each in its own transaction, under the game's lock), so the receipt made
    # inside the orders' transaction says what each did; the orders go on without them.
    voted, text = mail_votes(store, g.name, power, found.text, now=at.now)
    made: list[_Receipt] = []

    def then(result: SubmitResult) -> list[Finish]:
        made.append(_receipt(at, found, voted, result, when=when, token_note=token_note))
        return [made[-1].record]

    try:
        # Named phase: if the phase is processed between reading the subject and recording the orders, they
        # are refused with the reason instead of landing in the next phase, which they were not written for.
        # A line "Ready" marks the power ready, as the web's box does: the game goes on now if every power is.
        sent = send_orders(
            store,
            g.name,
            power,
            text,
            now=at.now,
            received=when,
            source="mail",
            label=str(at.reading.version) if at.reading.version is not None else None,
            phase=ph.name,
            then=then,
        )
    except GameError as e:
        return _orders_refused(at, e.msg, voted, next_subject)
    return _orders_told(at, made[-1], sent)


def _no_text(
    at: ForPower, found: _Orders, *, when: datetime, token_note: str, next_subject: Callable[..., str]
) -> MailDecision:
    """A message with no orders in its text: photographs get their receipt (:func:`photo_receipt`), anything
    else is refused."""
    assert at.ph is not None
    if at.msg.images():
        late = at.ph.deadline is not None and when > at.ph.deadline
        return photo_receipt(at, found, when=when, late=late, token_note=token_note, next_subject=next_subject)
    why, shown = said_both(
        "no orders found in the message (its text, after quoted lines and the signature, was empty) and no photograph",
        game_language(at.g),
    )
    return at.refused(why, shown, next_subject())


class _Receipt(NamedTuple):
    """What became of a message's orders, made inside the submission's transaction: its status and reason,
    what its receipt told, and the record with the receipt to write there."""

    status: str
    why: Msg
    told: list[Msg]
    record: Finish


def _receipt(
    at: ForPower, found: _Orders, voted: Sequence[Msg], result: SubmitResult, *, when: datetime, token_note: str
) -> _Receipt:
    """The message's record and receipt, made of the store's receipt inside the submission's transaction: the
    orders, their message's record and its receipt are committed together (no reads of the database here: it
    holds the power's lock)."""
    msg, names, g, ph, power = at.msg, at.names, at.g, at.ph, at.power
    assert ph is not None and names.phase is not None
    v = names.variant
    settings = GameSettings.from_data(g.settings)
    lang = settings.language
    _ = translations(lang).gettext
    status = "late" if result.late else "accepted"
    counted = Submitted(result)
    why = (
        Msg(N_("version %(version)d recorded after the deadline: late, not used"), {"version": result.version})
        if result.late
        else Msg(
            N_("version %(version)d recorded (%(accepted)d accepted, %(rejected)d rejected)"),
            {"version": result.version, "accepted": counted.accepted, "rejected": counted.rejected},
        )
    )
    # The notes on how it was read are recorded as values, before the receipt's own are added.
    recorded = {"subject": at.reading.to_data(v), "notes": [n.to_data() for n in found.notes]}
    told = [*found.notes, *voted]
    if result.notes:
        told.append(Msg(N_("version lines: %(lines)s"), {"lines": "; ".join(repr(n) for n in result.notes)}))
    photos = len(msg.images())
    if photos and not result.late:
        told.append(
            nmsg(
                "%(num)d photograph with it: reviewed by the coordinator after the deadline; orders confirmed from "
                "it count over this message's text (the phase waits for that review)",
                "%(num)d photographs with it: reviewed by the coordinator after the deadline; orders confirmed from "
                "them count over this message's text (the phase waits for that review)",
                photos,
            )
        )
    body_text = compose.receipt_text(
        game_title=names.title,
        power=power,
        phase=phase_words(result.phase, lang),
        version=result.version,
        label=result.label,
        received=settings.describe(when),
        lines=result.lines,
        late=result.late,
        standing=result.standing,
        reinstates=result.reinstates,
        deadline=compose._when(settings, ph.deadline, lang),
        next_subject=suggest_subject(names, power, result.version + 1),
        notes=[*(say(n, lang, "mail") for n in told), token_note],
        attachments=found.kept,
        variant=v,
        kind=v.calendar.kind(names.phase),
        lang=lang,
    )
    receipt = reply(
        msg,
        at.mail_id,
        to=msg.sender,
        kind="receipt",
        subject=_("Receipt: %(subject)s - version %(version)d")
        % {"subject": suggest_subject(names, power), "version": result.version},
        body=body_text,
        now=at.now,
        game_id=g.id,
        phase_id=ph.id,
    )
    values = {
        "status": status,
        "reason": why,
        "game_id": g.id,
        "phase_id": ph.id,
        "power": power,
        "submission_id": result.submission_id,
        "reading": recorded,
    }
    return _Receipt(status, why, told, Finish(at.mail_id, values, [receipt]))


def _orders_refused(at: ForPower, why: Msg, voted: Sequence[Msg], next_subject: Callable[..., str]) -> MailDecision:
    """The use case refused the orders (the phase went on meanwhile, the text is too long...): the reply says
    why, and what the vote lines did, since they acted before (a last yes may have ended the game the orders
    were for)."""
    names = at.names
    assert names.phase is not None
    lang = game_language(at.g)
    shown = "\n".join([say(why, lang, "mail"), *(say(m, lang, "mail") for m in voted)])
    return at.refused(why, shown, next_subject()).about(
        game=names.title, power=at.power, phase=names.variant.calendar.name(names.phase)
    )


def _orders_told(at: ForPower, made: _Receipt, sent: Submitted) -> MailDecision:
    """The orders recorded with their receipt; when every power was ready and the phases went on (in their own
    transactions, once the orders were recorded), the record says so after the fact."""
    names = at.names
    assert names.phase is not None
    why, after = made.why, None
    if sent.processed:
        why = Msg(
            N_("%(reason)s; every power was ready: %(phases)s processed"),
            {"reason": why, "phases": ", ".join(sent.processed)},
        )
        after = record_of(at.mail_id, was=made.status, reason=why)
    outcome = IntakeOutcome(
        made.status,
        why,
        game=names.title,
        power=at.power,
        phase=names.variant.calendar.name(names.phase),
        version=sent.receipt.version,
        replies=1,
        notes=made.told,
    )
    return MailDecision(outcome, after)


@dataclass(frozen=True)
class _Orders:
    """What a message for a power says, read without the database: the text taken as its orders (empty when
    there is none), the notes its receipt gives on how it was read, and the attachments kept besides."""

    text: str
    notes: list[Msg]
    """How it was read, recorded as values and said in the receipt's language."""
    kept: list[str]


def _orders_in(
    msg: Inbound, names: GameNames, g: MailGame, ph: MailPhase, power: str, reading: Reading, proof: Proof | None
) -> _Orders:
    """The body (cleaned of quotes, signature, token and the sheet's heading), else the first text attachment
    with orders; a text beside photographs that holds no order is no submission (the photographs are)."""
    v = names.variant
    body, dropped = clean_body(strip_token(msg.body))
    sheet_names = [
        names.name,
        *names.titles,
        *power_names(names).keys(),
        *(r.name for r in g.players if r.power == power),
    ]
    body, heading = strip_sheet(body, sheet_names)
    notes = [Msg(N_("subject: %(note)s"), {"note": n}) for n in reading.notes]
    if dropped:
        notes.append(Msg(N_("ignored %(what)s"), {"what": joined(*dropped) or ""}))
    if heading:
        notes.append(Msg(N_("ignored heading lines: %(lines)s"), {"lines": "; ".join(repr(h) for h in heading)}))
    if proof is not None:
        notes.append(Msg(N_("sender proven: %(how)s"), {"how": proof.detail}))
    text = body
    used_attachment = None
    if not body.strip():
        for a in msg.text_attachments():
            t, _dropped = clean_body(a.data.decode("utf-8", "replace"))
            t, _head2 = strip_sheet(t, sheet_names)
            if t.strip():
                text, used_attachment = t, a.filename
                notes.append(Msg(N_("orders read from the attachment %(file)s"), {"file": a.filename or ""}))
                break
    photos = len(msg.images())
    if text.strip() and photos:
        # Beside a photograph, a body with no order in it ("Dear Coordinator, my orders are attached") is
        # not a submission: the rulebook's Coordinator ignores the text of these e-mails.
        # Read on the power's sight in fog, as the submission would be: whether it is taken must not tell of a
        # unit out of sight.
        pos = seen_position(v, position_from_data(v, ph.position), power, GameSettings.from_data(g.settings))
        checked = check_orders(v, pos, power, read_version_lines(text).text)
        if not submission_stands(checked):
            said = [ln.strip() for ln in text.splitlines() if ln.strip()]
            quoted = "; ".join(repr(x) for x in said[:3]) + ("; ..." if len(said) > 3 else "")
            notes.append(
                nmsg(
                    "the text beside %(num)d photograph has no order in it, so it is not a submission: ignored (%(text)s)",
                    "the text beside %(num)d photographs has no order in it, so it is not a submission: "
                    "ignored (%(text)s)",
                    photos,
                    text=quoted,
                )
            )
            text = ""
    kept = [
        f"{a.filename} ({a.content_type}, {max(1, len(a.data) // 1024)} kB)"
        for a in msg.attachments
        if a.filename != used_attachment
    ]
    return _Orders(text, notes, kept)


def photo_receipt(
    at: ForPower,
    found: _Orders,
    *,
    when: datetime,
    late: bool,
    token_note: str,
    next_subject: Callable[..., str],
) -> MailDecision:
    """A message whose orders are photographs only: recorded (kept sealed for the coordinator's review, or late
    and not used) and a receipt queued that lists what was kept and the subject for the next version."""
    msg, mail_id, names, g, power = at.msg, at.mail_id, at.names, at.g, at.power
    ph = at.ph
    assert ph is not None and names.phase is not None, "a photograph's receipt is for the open phase"
    settings = GameSettings.from_data(g.settings)
    lang = settings.language
    _ = translations(lang).gettext
    current_name = names.variant.calendar.name(names.phase)
    status = "late" if late else "photo"
    photos = len(msg.images())
    why = photo_reason(photos, late=late)
    base = {"subject": at.reading.to_data(names.variant)}
    # This photograph and any waiting before it each become a version when confirmed: the next version is past
    # them all (this one is not counted among the waiting until it is recorded, with its receipt, below).
    subject = next_subject(0) if late else next_subject(photos=True)
    body_text = (
        _("Your message for %(power)s in %(game)s, %(phase)s, was received %(received)s.")
        % {
            "power": power,
            "game": names.title,
            "phase": phase_words(current_name, lang),
            "received": settings.describe(when),
        }
        + "\n\n"
        + (
            _("It arrived AFTER THE DEADLINE: it is recorded as late and is not used.") + "\n\n"
            if late
            else photo_promise(g.config, lang, photos=photos)
        )
        + _("Kept:")
        + "\n"
        + "".join(f"  {k}\n" for k in found.kept)
        + (
            "\n"
            + _("Notes:")
            + "\n"
            + "".join(f"  {n}\n" for n in [*(say(m, lang, "mail") for m in found.notes), token_note])
        )
        + "\n"
        + _("Deadline: %(deadline)s.") % {"deadline": compose._when(settings, ph.deadline, lang)}
        + "\n\n"
        + _("To send a new version, use the subject:")
        + f"\n  {subject}\n\n{compose.sign(lang)}\n"
    )
    receipt = reply(
        msg,
        mail_id,
        to=msg.sender,
        kind="receipt",
        subject=_("Receipt: %(subject)s") % {"subject": suggest_subject(names, power)},
        body=body_text,
        now=at.now,
        game_id=g.id,
        phase_id=ph.id,
    )
    record = record_of(
        mail_id,
        replies=[receipt],
        status=status,
        reason=why,
        game_id=g.id,
        phase_id=ph.id,
        power=power,
        reading=base,
    )
    outcome = IntakeOutcome(status, why, game=names.title, power=power, phase=current_name, notes=found.notes)
    return MailDecision(outcome, record)


def photo_reason(photos: int, *, late: bool) -> Msg:
    """What became of a message whose orders are ``photos`` photographs, as its record keeps it: kept sealed for
    the coordinator's review, or late and not used."""
    if late:
        return nmsg(
            "%(num)d photograph received after the deadline: recorded as late, not used",
            "%(num)d photographs received after the deadline: recorded as late, not used",
            photos,
        )
    return nmsg(
        "%(num)d photograph kept sealed; the coordinator reviews it after the deadline",
        "%(num)d photographs kept sealed; the coordinator reviews them after the deadline",
        photos,
    )


def photo_promise(cfg: dict[str, Any], lang: str = "en", *, photos: int) -> str:
    """What happens to ``photos`` photographed orders sent on time, as the player is told it (the receipt):
    the phase waits for the coordinator's review (store/mail/review.py), or for the game's review wait."""
    t = translations(lang)
    wait = cfg.get("review_wait")
    after = (
        t.ngettext(
            "If the coordinator has not reviewed it %(wait)s after the deadline, the phase is processed without "
            "it and the results say so.",
            "If the coordinator has not reviewed them %(wait)s after the deadline, the phase is processed without "
            "them and the results say so.",
            photos,
        )
        % {"wait": wait, "num": photos}
        if wait
        else t.ngettext(
            "The phase is not processed until the coordinator has reviewed it.",
            "The phase is not processed until the coordinator has reviewed them.",
            photos,
        )
    )
    return (
        t.ngettext(
            "It has no orders in text, only %(num)d photograph. It is kept sealed; after the deadline the coordinator "
            "reads it (a proposed transcription is checked line by line) and confirms your orders as a version "
            "received when this message arrived. %(after)s A version received later (in text or photographed) "
            "counts over this one.",
            "It has no orders in text, only %(num)d photographs. They are kept sealed; after the deadline the "
            "coordinator reads them (a proposed transcription is checked line by line) and confirms your orders as "
            "a version received when this message arrived. %(after)s A version received later (in text or "
            "photographed) counts over this one.",
            photos,
        )
        % {"after": after, "num": photos}
        + "\n\n"
    )
