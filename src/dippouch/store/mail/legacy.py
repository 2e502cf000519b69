"""What became of a message taken in, as the mail log stored it before it was a message value, read back into
its message (migration 0033).

Until then ``mail_messages.reason`` kept only English, written by the mail intake, the press replies and the
coordinator's commands. The migration reads each such text, once, against the sentences they wrote then
(:data:`TEMPLATES`, a frozen copy: a migration must do the same on every database whenever it runs, whatever
the intake's wording becomes; they are the ids today's writers use, so the catalogues translate both) and
stores the message beside it (``reason_msg``). A text no template reads whole, with every nested reason read
too (a refusal the game rules wrote inside "it confirms held message #3, which cannot be applied: ..."), is left
as it is, shown as it is, and counted.

Each template says what its placeholders held: a name or a word (``s``, the default), a number (``%d``), a
phase's name said with the reader's season words (``p``) or a nested message (``m``).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import Msg
from dippouch.store.legacy_reader import Change, SentenceReader, walk_texts
from dippouch.store.legacy_text import BATCH, Counts

__all__ = ["TEMPLATES", "add_reason_messages", "reason_read_back"]

TEMPLATES: tuple[tuple[str, str], ...] = (
    # dippouch.play.mail_intake: ignored, refused, late and held messages.
    ("not answered: %(what)s", ""),
    ("no sender address to answer", ""),
    ("%(game)s is over", ""),
    ("the subject could not be read", ""),
    ("the subject names no game this address takes orders for", ""),
    (
        "%(sender)s is not the address registered for %(power)s in %(game)s; held for the coordinator, nothing applied",
        "",
    ),
    ("%(power)s in %(game)s has no registered e-mail address; held for the coordinator, nothing applied", ""),
    ("%(phase)s has already been processed; the game is now in %(current)s", "phase=p current=p"),
    ("%(phase)s is not open yet; the game is in %(current)s", "phase=p current=p"),
    (
        "it arrived on time (%(received)s UTC, before the deadline of %(phase)s, %(deadline)s UTC), but "
        "%(phase)s was processed at %(processed)s UTC, before this message was fetched, so it was not "
        "used; the coordinator has it and only a rollback of the game could use it now",
        "phase=p",
    ),
    ("it arrived on time but %(phase)s was processed before it was fetched, so it was not used", "phase=p"),
    (
        "no orders found in the message (its text, after quoted lines and the signature, was empty) and no photograph",
        "",
    ),
    ("version %(version)d recorded after the deadline: late, not used", ""),
    ("version %(version)d recorded (%(accepted)d accepted, %(rejected)d rejected)", ""),
    ("%(reason)s; every power was ready: %(phases)s processed", "reason=m"),
    ("photograph(s) received after the deadline: recorded as late, not used", ""),
    ("photograph(s) kept sealed; the coordinator reviews them after the deadline", ""),
    (
        "nothing proves that %(power)s's player sent it (no token, no DKIM/SPF pass from a trusted server); "
        "held until the player confirms it, nothing applied",
        "",
    ),
    ("confirms held message #%(id)d: %(reason)s", "reason=m"),
    ("it confirms held message #%(id)s, which cannot be applied: %(why)s", "why=m"),
    ("%(power)s version %(version)d", ""),
    ("%(power)s's photograph(s) for %(phase)s: review them with `dippouch mail review %(game)s`", "phase=p"),
    ("applied on %(by)s's word as %(power)s version %(version)d", "by=m"),
    (
        "applied on %(by)s's word as %(power)s's photograph(s); they wait for review (`dippouch mail review %(game)s`)",
        "by=m",
    ),
    ("the coordinator", ""),
    ("the player's confirmation", ""),
    # dippouch.store.mail.inbox: set aside.
    ("dismissed by the coordinator", ""),
    # dippouch.play.press_replies: a press reply passed on, or held.
    ("press passed on", ""),
    ("press held until the phase's results (postal press)", ""),
    # dippouch.play.press_replies: a press reply refused.
    ("the press code in the subject is not one we sent", ""),
    ("the press code in the subject was not sent to this address", ""),
    ("%(sender)s is no longer the address of %(power)s in %(game)s", ""),
)
"""Each sentence the stored reasons were written with, and the kinds of its placeholders."""

_READER = SentenceReader(TEMPLATES, depth=4, longest_first=True)
"""Reasons nest at most four deep ("confirms held message #3: applied on ...'s word as ..."): a bound, not a
rule."""


def reason_read_back(text: str) -> Msg | None:
    """The message of a stored reason's English ``text``, or ``None`` when no template reads it whole (and says
    exactly ``text`` again)."""
    return _READER.read_back(text)


_MAIL = sa.table(
    "mail_messages",
    sa.column("id", sa.Integer()),
    sa.column("reason", sa.Text()),
    sa.column("reason_msg", sa.JSON()),
)


def add_reason_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Give every stored reason without message data its message (``reason_msg``), beside its text (which
    stays); a text no template reads is left alone and counted. A second walk finds nothing left to do."""
    counts = Counts()

    def add(reason: str, data: Any) -> Msg | None:
        if data is not None or not reason:
            return None
        m = reason_read_back(reason)
        if m is None:
            counts.unreadable += 1
            return None
        counts.converted += 1
        return m

    counts.rows = _walk(conn, add, batch)
    return counts


def _walk(conn: sa.Connection, change: Change, batch: int) -> int:
    return walk_texts(conn, _MAIL, "id", "reason", "reason_msg", change, batch)
