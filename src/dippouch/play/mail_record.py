"""What the mail intake makes of a message, shared by its steps (:mod:`dippouch.play.mail_intake`), held mail
(:mod:`dippouch.play.held_mail`) and press replies (:mod:`dippouch.play.press_replies`): the outcome the door
shows, the record of what became of the message with its replies, and the one write of it.

A decision is a value (:class:`MailDecision`): its outcome and the record to write, written once by
:func:`dippouch.play.mail_intake.take_in` (or by the use case the decision called, in its own transaction:
orders, press, held mail). Replies are made here, not sent: the record and its replies are queued together
(:func:`finish`), so a message is never recorded as answered without its answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, NamedTuple

from dippouch.core.messages import Arg, Msg
from dippouch.game import GameError, GameSettings
from dippouch.i18n import translations
from dippouch.letters import compose
from dippouch.letters.message import Inbound
from dippouch.letters.subject import GameNames, Reading
from dippouch.saying import say
from dippouch.store.mail.games import MailGame, MailPhase
from dippouch.store.mail.inbox import Finish
from dippouch.store.repository import GameStore

__all__ = [
    "I18N_DOMAIN",
    "ForPower",
    "HeldNotice",
    "IntakeOutcome",
    "MailDecision",
    "answering_as",
    "finish",
    "finish_all",
    "from_address",
    "game_language",
    "record_of",
    "refuse",
    "reply",
    "said_both",
]

I18N_DOMAIN = "mail"
"""The replies' words are in the game's language once the game is known (English before: a stranger's
message names none). The reasons recorded in the mail log are message values, said in each reader's language
where they are shown (the review page, the command line); the log keeps their English too."""


_from: ContextVar[str] = ContextVar("from_address", default="")
"""The installation's From address while one message is taken in: a reply's sender domain and a token's
orders address both need it. The door reads it once, before the message's transactions (a read of the mail
settings is a query), and hands it to the intake (:func:`answering_as`)."""


@contextmanager
def answering_as(address: str) -> Iterator[None]:
    """Replies made inside are from ``address`` (the installation's sender, ``""`` when none is set)."""
    scope = _from.set(address)
    try:
        yield
    finally:
        _from.reset(scope)


def from_address() -> str:
    """The installation's From address the door handed in (``""``: none)."""
    return _from.get()


def _from_domain() -> str:
    return from_address().rpartition("@")[2] or "dippouch.invalid"


def said_both(msgid: str, lang: str, /, **values: Arg) -> tuple[Msg, str]:
    """A refusal as the mail log keeps it (a message) and as the reply says it in ``lang``: one message, so
    the two never drift apart."""
    why = Msg(msgid, values)
    return why, say(why, lang, "mail")


def game_language(g: MailGame) -> str:
    """The game's language, or English when its settings cannot say."""
    try:
        return GameSettings.from_data(g.settings).language
    except GameError:
        return "en"


@dataclass
class IntakeOutcome:
    """What became of a message, as the door that took it in shows it (the command line's line, a test's
    check): its status (the outcomes are :mod:`dippouch.play.mail_intake`'s), its reason as a message value, and
    what it was for."""

    status: str
    reason: Msg
    mail_id: int | None = None
    game: str | None = None
    power: str | None = None
    phase: str | None = None
    version: int | None = None
    sender: str = ""
    received: datetime | None = None
    replies: int = 0
    notes: list[Msg] = field(default_factory=list)
    """How the message was read (near misses, what was ignored, what proved the sender), said where shown."""

    def line(self, lang: str = "en") -> str:
        """The outcome as the command line prints it, its reason in ``lang``."""
        who = " ".join(x for x in (self.game, self.power, self.phase) if x)
        v = f" version {self.version}" if self.version else ""
        at = f" received {self.received:%Y-%m-%d %H:%M} UTC" if self.received else ""
        return f"#{self.mail_id or '-'} {self.status:<9} {self.sender} {who}{v}{at}: {say(self.reason, lang)}"


@dataclass(frozen=True)
class MailDecision:
    """What the intake decided of a message: its outcome, and the record to write of it with its replies
    (``None``: the use case the decision called, orders, press or held mail, wrote it in its own transaction).
    :func:`dippouch.play.mail_intake.take_in` writes it, once."""

    outcome: IntakeOutcome
    record: Finish | None = None

    def about(self, **facts: Any) -> MailDecision:
        """The same decision, its outcome naming the game, power and phase it was for."""
        return MailDecision(replace(self.outcome, **facts), self.record)


def record_of(
    mail_id: int,
    *,
    replies: Sequence[dict[str, Any]] = (),
    was: str | None = "received",
    **values: Any,
) -> Finish:
    """What became of the message, with its replies, to be queued in the same transaction; only from ``was``
    (a message taken in is finished from ``received``, once: :class:`MessageTaken` otherwise)."""
    return Finish(mail_id, values, replies, was)


def reply(
    msg: Inbound,
    mail_id: int,
    *,
    to: str,
    kind: str,
    subject: str,
    body: str,
    now: datetime,
    game_id: int | None = None,
    phase_id: int | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """A reply to ``msg``, as the outbox queues it with the record of the message (:func:`record_of`)."""
    return {
        "key": key or f"{kind}:{mail_id}:{to}",
        "to": to,
        "subject": subject,
        "body": body,
        "kind": kind,
        "now": now,
        "sender_domain": _from_domain(),
        "game_id": game_id,
        "phase_id": phase_id,
        "in_reply_to": msg.message_id,
    }


def refuse(
    msg: Inbound,
    mail_id: int,
    now: datetime,
    why: Msg,
    suggestion: str | None,
    *,
    status: str = "refused",
    reading: Reading | None = None,
    game_id: int | None = None,
    registered: bool = False,
    lang: str = "en",
    shown: str | None = None,
) -> MailDecision:
    """Refuse the message: ``why`` is recorded as it is (a message, said by each reader's door), ``shown`` is
    how the reply says it in ``lang`` (by default ``why`` said in it)."""
    _ = translations(lang).gettext
    body = compose.refusal_text(
        subject=msg.subject,
        why=shown or say(why, lang, "mail"),
        suggestion=suggestion,
        registered=registered,
        lang=lang,
    )
    replies = (
        [
            reply(
                msg,
                mail_id,
                to=msg.sender,
                kind="reply",
                subject=_("Not used: %(subject)s") % {"subject": msg.subject or _("(no subject)")},
                body=body,
                now=now,
                game_id=game_id,
            )
        ]
        if msg.sender and "@" in msg.sender
        else []
    )
    record = record_of(
        mail_id,
        replies=replies,
        status=status,
        reason=why,
        game_id=game_id,
        reading={"subject": reading.to_data() if reading else None, "suggestion": suggestion},
    )
    return MailDecision(IntakeOutcome(status, why), record)


class HeldNotice(NamedTuple):
    """A mail sent about a held message: to whom, its kind in the mail log, subject and text."""

    to: str
    kind: str
    subject: str
    body: str


@dataclass(frozen=True)
class ForPower:
    """A message for ``power``: where it came from (the mail log's row), what its subject was read as, and the
    game as read for it. The outcomes that need all of it take it whole: held (each reason to hold one, another
    address or no proof of the sender, adds its own why and notices), its orders and a photograph's receipt
    (:mod:`dippouch.play.mail_orders`)."""

    store: GameStore
    msg: Inbound
    mail_id: int
    now: datetime
    names: GameNames
    g: MailGame
    ph: MailPhase | None
    power: str
    reading: Reading

    def refused(self, why: Msg, shown: str, suggestion: str | None, *, status: str = "refused") -> MailDecision:
        """Refuse the message (:func:`refuse`) as one for this power: with its reading, its game, its sender
        registered, the reply in the game's language (``shown``: how it says ``why``)."""
        return refuse(
            self.msg,
            self.mail_id,
            self.now,
            why,
            suggestion,
            status=status,
            reading=self.reading,
            game_id=self.g.id,
            registered=True,
            lang=game_language(self.g),
            shown=shown,
        )


def finish(store: GameStore, done: Finish) -> int:
    """Record what became of a claimed message and queue its replies, in one transaction (a message is never
    recorded as answered without its answer); the number of replies queued. Raises
    :class:`dippouch.store.mail.inbox.MessageTaken` when another process finished it meanwhile."""
    return finish_all(store, [done])


def finish_all(store: GameStore, done: Sequence[Finish]) -> int:
    """Several messages' records in one transaction (a held message applied, and the player's reply that
    confirmed it)."""
    from dippouch.store.mail.inbox import record_messages

    return record_messages(store, done)
