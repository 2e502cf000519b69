"""A reply by mail to a press message: it lands in the same channel, under the same press rules, or is refused.

Each copy of a press message went to one recipient's address with that recipient's own token in its subject
(``[press pr-...]``, made by :mod:`dippouch.store.press.messages`). A reply carrying it is the recipient's word only if:

- the token is one we made (a made-up or mistyped token proves nothing);
- the ``From:`` address is the one the token was sent to (another power's token, sent from your own address,
  is refused: it was not sent to you), and it is still the address registered for that power (a replaced
  player's token no longer speaks for the power).

The token is the proof (it reached that address only), as the orders token is in :mod:`dippouch.letters.proof`;
what the reply says then goes through :func:`dippouch.play.press.send_press` like a message typed on the page,
so the game's press rules decide, and a refusal is answered with the rule's words. Nothing is stored as press
from a reply that fails any of these; the mail itself is kept in the mail record with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import dippouch.store.press.messages as store_press
from dippouch.core.errors import DippouchError
from dippouch.core.messages import N_, Msg, msg
from dippouch.i18n import DEFAULT, translations
from dippouch.letters.message import Inbound
from dippouch.play.mail_record import finish
from dippouch.play.press import send_press
from dippouch.press.mailtext import find_token, reply_text
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.mail.inbox import Finish

__all__ = ["I18N_DOMAIN", "PressReply", "press_token", "take_reply"]

I18N_DOMAIN = "mail"
"""The answer to a reply is in the game's language once the code names the game (English before); the
reason it quotes is recorded as a message value (the press rules' own), said in each reader's language where
the mail log is shown."""


@dataclass(frozen=True)
class PressReply:
    """What became of a reply (intake makes its outcome of it)."""

    status: str
    """``accepted`` (in the channel, or held as postal press) or ``refused``."""
    reason: Msg
    game: str | None = None
    power: str | None = None
    replies: int = 0


def press_token(msg: Inbound) -> str | None:
    """The press reply token a message carries in its subject, if any (mail for the press, not orders)."""
    return find_token(msg.subject)


def _answer(msg: Inbound, mail_id: int, now: datetime, subject: str, body: str) -> dict[str, Any]:
    """The answer to a reply, queued with the reply's record (:func:`dippouch.play.mail_record.finish`)."""
    return {
        "key": f"press-reply:{mail_id}:{msg.sender.lower()}",
        "to": msg.sender,
        "subject": subject,
        "body": body,
        "kind": "reply",
        "now": now,
        "in_reply_to": msg.message_id,
    }


def _lang(store: GameStore, game: str | None, now: datetime) -> str:
    """The game's language (English when no game is named or its settings cannot be read)."""
    if game is None:
        return DEFAULT
    try:
        return store_status.status(store, game, now=now, drift=False, due=False).settings.language
    except Exception:  # the answer still goes, in English
        return DEFAULT


def _refuse(
    store: GameStore, mail: Inbound, mail_id: int, now: datetime, refusal: Msg, game: str | None = None
) -> PressReply:
    """Refuse a reply: the mail log keeps the reason as a message (said in its reader's language), the answer
    says it in the game's language."""
    lang = _lang(store, game, now)
    _ = translations(lang).gettext
    answer = _answer(
        mail,
        mail_id,
        now,
        _("Not sent: %(subject)s") % {"subject": mail.subject},
        _("Your message was not passed on: %(why)s.\n\nNothing was sent to the other powers.")
        % {"why": say(refusal, lang, "mail")},
    )
    values = {"status": "refused", "reason": refusal, "reading": {"press": True}}
    n = finish(store, Finish(mail_id, values, [answer], was="received"))
    return PressReply("refused", refusal, game=game, replies=n)


_NOT_OURS = msg("the press code in the subject is not one we sent")
_NOT_TO_YOU = msg("the press code in the subject was not sent to this address")


def _not_any_more(sender: str, power: str, game: str) -> Msg:
    return msg("%(sender)s is no longer the address of %(power)s in %(game)s", sender=sender, power=power, game=game)


def take_reply(store: GameStore, msg: Inbound, mail_id: int, now: datetime) -> PressReply:
    """Put a reply into its channel if it proves its sender and the press rules allow it; else refuse it.

    The reply is passed on, and the mail recorded with its answer, in one transaction: a fetch killed in
    between leaves the mail unfinished and nothing passed on, and the next fetch takes it in again."""
    token = press_token(msg)
    owner = store_press.token_owner(store, token) if token else None
    sender = msg.sender.strip().lower()
    if owner is None:
        return _refuse(store, msg, mail_id, now, _NOT_OURS)
    if sender != owner.address:
        # Either someone else's copy was forwarded, or the From header was made up: the code was not sent to
        # this address, so it proves nothing about who wrote this.
        return _refuse(store, msg, mail_id, now, _NOT_TO_YOU, owner.game)
    registered = {p: a for p, (_, a) in store_games.emails(store, owner.game).items()}
    if (registered.get(owner.power) or "").lower() != sender:
        return _refuse(
            store,
            msg,
            mail_id,
            now,
            _not_any_more(msg.sender, owner.power, owner.game),
            owner.game,
        )
    text = reply_text(msg.body)
    _ = translations(_lang(store, owner.game, now)).gettext  # read before the transaction that passes it on
    facts = {"game": owner.game, "power": owner.power}
    made: list[tuple[Msg, int]] = []

    def record(sent: store_press.Sent) -> list[Finish]:
        how = (
            Msg(N_("press held until the phase's results (postal press)")) if sent.held else Msg(N_("press passed on"))
        )
        answer = _answer(
            msg,
            mail_id,
            now,
            _("Sent: %(subject)s") % {"subject": msg.subject},
            _("Your message was held until the phase's results (postal press) in %(game)s, as %(power)s.") % facts
            if sent.held
            else _("Your message was passed on in %(game)s, as %(power)s.") % facts,
        )
        made.append((how, 1))
        values = {"status": "accepted", "reason": how, "power": owner.power, "reading": {"press": True}}
        return [Finish(mail_id, values, [answer])]

    try:
        send_press(store, owner.game, owner.power, text, channel=owner.channel_id, now=now, via="mail", then=record)
    except DippouchError as e:
        return _refuse(store, msg, mail_id, now, e.msg, owner.game)
    why, replies = made[-1]
    return PressReply("accepted", why, game=owner.game, power=owner.power, replies=replies)
