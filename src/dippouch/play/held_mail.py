"""Held mail, once for every door: a message the intake held (from an address not registered for the power, or
a photograph waiting for the coordinator's review) is applied, dismissed, set aside or released from the review
page and from ``dippouch mail apply/dismiss/set-aside/release``, and applied by the player's own confirming reply.

Applying is sending orders: the held text, read from the kept message with :mod:`dippouch.letters` (its body
without quotes, signature, token and sheet heading, else its first text attachment), goes through
:func:`dippouch.play.orders.send_orders` (its size check, the store's submission under the power's lock), as
received when the mail arrived, with the held message's record written in the submission's own transaction
(``then``), so a message is applied once. A held message whose orders are photographs becomes the power's
photograph for the open phase, reviewed like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from dippouch.core.messages import N_, Msg, PhaseName, msg, nmsg
from dippouch.game import GameError, as_utc
from dippouch.letters.message import clean_body, parse_message, strip_sheet
from dippouch.letters.proof import strip_token
from dippouch.play.mail_record import IntakeOutcome, finish_all
from dippouch.play.orders import Submitted, send_orders
from dippouch.store import variant_copy as variant_copy
from dippouch.store.mail.inbox import Finish, MessageTaken, message_record
from dippouch.store.mail.review import review_state
from dippouch.store.repository import GameStore
from dippouch.store.submissions import SubmitResult

if TYPE_CHECKING:  # the review's states: imported in the calls
    from dippouch.store.mail.review import ReviewState

__all__ = [
    "FORMER_REASONS",
    "I18N_DOMAIN",
    "apply_held",
    "apply_orders",
    "dismiss",
    "keep_reading",
    "release",
    "set_aside",
]

I18N_DOMAIN = "mail"
"""Why a held message cannot be applied is a message value, said in the mail's words where it is shown."""

FORMER_REASONS: tuple[str, ...] = (
    N_("%(power)s's photograph(s) for %(phase)s: review them with `dippouch mail review %(game)s`"),
    N_("applied on %(by)s's word as %(power)s's photograph(s); they wait for review (`dippouch mail review %(game)s`)"),
)
"""What a held photographed message became, as records kept it before it was said by the number of photographs
(the first inside the reason of the player's confirming reply; or read into these ids from its older English by
migration 0033, :mod:`dippouch.store.mail.legacy`). Such a record holds no count among its values,
so :data:`dippouch.core.messages.FORMER_IDS` could choose no form for it and it is read back under its old id:
marked here, so the catalogues keep its translation and an old record is still said in every language (as
:data:`dippouch.play.mail_orders.FORMER_REASONS`)."""


def apply_orders(
    store: GameStore,
    game: str,
    power: str,
    text: str,
    *,
    received: datetime,
    now: datetime,
    then: Callable[[SubmitResult], Sequence[Finish]],
) -> Submitted:
    """A held message's orders ``text`` sent for ``power`` as received at ``received`` (when the mail came),
    on the coordinator's or the player's word given at ``now``; ``then``: the held message's record."""
    return send_orders(store, game, power, text, source="mail", now=now, received=received, then=then)


def dismiss(store: GameStore, mail_id: int) -> None:
    """Set a held message aside for good: it stays in the record, dismissed."""
    from dippouch.store.mail.inbox import dismiss_held

    dismiss_held(store, mail_id)


def release(store: GameStore, game: str, *, now: datetime) -> ReviewState:
    """The review is over: the phase is processed with what stands (refused before the deadline)."""
    from dippouch.store.mail.review import release as release_review

    return release_review(store, game, now=now)


def set_aside(store: GameStore, attachment_id: int, *, now: datetime, why: str = "") -> tuple[str, str]:
    """A photograph with no orders in it no longer holds the phase; (game, power)."""
    from dippouch.store.mail.review import set_aside as set_photo_aside

    return set_photo_aside(store, attachment_id, now=now, why=why)


def keep_reading(store: GameStore, attachment: int, text: str, *, now: datetime) -> None:
    """What the OCR engine read of a photograph waiting for review, kept so that it is read once however often
    the review shows it."""
    from dippouch.store.mail.photos import record_reading

    record_reading(store, attachment, text, now=now)


_BY_COORDINATOR = msg("the coordinator")
"""Whose word applied a held message, unless the player's confirmation did."""


def _apply_held_photo(
    store: GameStore,
    mail_id: int,
    game: str,
    power: str,
    *,
    photos: int,
    now: datetime,
    by: Msg = _BY_COORDINATOR,
    also: Callable[[IntakeOutcome], Sequence[Finish]] | None = None,
) -> IntakeOutcome:
    """A held message whose orders are ``photos`` photographs: on the coordinator's word they become the power's
    photographs for the open phase (as if from the registered address), to be reviewed like any other."""
    st = review_state(store, game, now=now)
    if st.phase_id is None:
        raise GameError(
            msg("game %(game)s has no open phase for the photographs of message #%(id)s", game=repr(game), id=mail_id)
        )
    powers = variant_copy.variant_of(store, game).power_names
    match = next((p for p in powers if p.lower() == power.strip().lower()), None)
    if match is None:
        raise GameError(
            msg(
                "no power %(power)s in %(game)s; powers: %(powers)s",
                power=repr(power),
                game=game,
                powers=", ".join(powers),
            )
        )
    power = match
    row = message_record(store, mail_id)
    received = row.received_at
    if row.phase is not None and row.phase != st.phase:
        raise GameError(_processed(mail_id, row.phase))
    if st.deadline is not None and received > st.deadline:
        raise GameError(
            msg(
                "message #%(id)s arrived %(time)s UTC, after the deadline of %(phase)s; it is not used",
                id=mail_id,
                time=f"{received:%Y-%m-%d %H:%M}",
                phase=PhaseName(st.phase or ""),
            )
        )
    out = IntakeOutcome(
        "photo",
        nmsg(
            "%(power)s's %(num)d photograph for %(phase)s: review it with `dippouch mail review %(game)s`",
            "%(power)s's %(num)d photographs for %(phase)s: review them with `dippouch mail review %(game)s`",
            photos,
            power=power,
            phase=PhaseName(st.phase or ""),
            game=game,
        ),
        mail_id=mail_id,
        power=power,
    )
    values = {
        "status": "photo",
        "reason": nmsg(
            "applied on %(by)s's word as %(power)s's %(num)d photograph; it waits for review (`dippouch mail review %(game)s`)",
            "applied on %(by)s's word as %(power)s's %(num)d photographs; they wait for review (`dippouch mail "
            "review %(game)s`)",
            photos,
            by=by,
            power=power,
            game=game,
        ),
        "phase_id": st.phase_id,
        "power": power,
    }
    finish_all(store, [Finish(mail_id, values, was="held"), *(also(out) if also is not None else ())])
    return out


def _processed(mail_id: int, phase: str) -> Msg:
    return msg(
        "message #%(id)s was for %(phase)s, which has been processed; it cannot be used now",
        id=mail_id,
        phase=PhaseName(phase),
    )


def _not_held(mail_id: int, status: str) -> Msg:
    return msg("message #%(id)s is %(status)s, not held; only held messages are applied", id=mail_id, status=status)


def apply_held(
    store: GameStore,
    mail_id: int,
    *,
    now: datetime,
    power: str | None = None,
    by: Msg = _BY_COORDINATOR,
    also: Callable[[IntakeOutcome], Sequence[Finish]] | None = None,
) -> IntakeOutcome:
    """The coordinator's word: apply a held message as if it came from the registered address (its orders
    become a version received when the message arrived). ``power`` overrides the subject's reading.

    The orders and the held message's record are one transaction (and so is ``also``: the record of the
    player's reply that confirmed it, made of what became of the held message), so the held message is applied
    once even if the process dies or another applies it at the same moment (refused then as no longer held)."""
    try:
        return _apply_held(store, mail_id, now=as_utc(now), power=power, by=by, also=also)
    except MessageTaken as e:
        if e.mail_id != mail_id:
            raise  # the confirming reply was taken in by another process: that one answers it
        raise GameError(_not_held(mail_id, e.status)) from None


def _apply_held(
    store: GameStore,
    mail_id: int,
    *,
    now: datetime,
    power: str | None,
    by: Msg,
    also: Callable[[IntakeOutcome], Sequence[Finish]] | None,
) -> IntakeOutcome:
    row = message_record(store, mail_id)
    if row.status != "held":
        raise GameError(_not_held(mail_id, row.status))
    raw, held_power, when = row.raw, row.power, row.received_at
    if row.game is None:
        raise GameError(msg("message #%(id)s is for no game", id=mail_id))
    gname = row.game
    if row.phase is not None:
        # Held for a phase: once that phase is processed, its orders would land in the next one.
        open_now = review_state(store, gname, now=now).phase
        if open_now != row.phase:
            raise GameError(_processed(mail_id, row.phase))
    parsed = parse_message(raw)
    who = power or held_power
    if who is None:
        raise GameError(msg("message #%(id)s names no power; say which with --power", id=mail_id))
    body, _ = clean_body(strip_token(parsed.body))
    body, _ = strip_sheet(body, [gname, who])
    if not body.strip():
        for a in parsed.text_attachments():
            t, _ = clean_body(a.data.decode("utf-8", "replace"))
            if t.strip():
                body = t
                break
    if not body.strip():
        if parsed.images():
            return _apply_held_photo(store, mail_id, gname, who, photos=len(parsed.images()), now=now, by=by, also=also)
        raise GameError(
            msg("message #%(id)s has no text orders and no photograph; nothing in it can be applied", id=mail_id)
        )

    def applied_as(result: SubmitResult) -> list[Finish]:
        out = _applied(mail_id, result)
        values = {
            "status": "applied",
            "reason": msg(
                "applied on %(by)s's word as %(power)s version %(version)d",
                by=by,
                power=result.power,
                version=result.version,
            ),
            "submission_id": result.submission_id,
            "power": result.power,
        }
        return [Finish(mail_id, values, was="held"), *(also(out) if also is not None else ())]

    # Through the use case every door sends orders by (the same size check as a mail taken in at once), as
    # received when the message arrived.
    sent = apply_orders(store, gname, who, body, received=when, now=now, then=applied_as)
    return _applied(mail_id, sent.receipt)


def _applied(mail_id: int, result: SubmitResult) -> IntakeOutcome:
    return IntakeOutcome(
        "applied",
        msg("%(power)s version %(version)d", power=result.power, version=result.version),
        mail_id=mail_id,
        power=result.power,
        version=result.version,
    )
