"""What each notification says: a title, a body and the page it points to, from the event's facts.

Every channel gets the same words (a chat post joins title and body; push shows them as a notification).
Facts come from callers (the scan, the openings, the press), so every value is cut to a length here: a
message excerpt of a megabyte becomes a line, never a megabyte in every queue row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from dippouch.core.messages import Msg, msg
from dippouch.game import GameError
from dippouch.i18n import translations
from dippouch.names import phase_words
from dippouch.notify.safety import public_url
from dippouch.saying import say

__all__ = ["I18N_DOMAIN", "MAX_BODY", "MAX_TITLE", "SETTINGS_PAGE", "Notification", "compose", "ending_of", "why"]

I18N_DOMAIN = "mail"
"""A notification is in its reader's language: the ``lang`` fact (:mod:`dippouch.notify.channels.people`
puts the person's language there, else the game's); English without it."""

MAX_TITLE = 200
MAX_BODY = 4000
"""A results mail carries the player's orders and results: a big power's in a big variant is a long text."""
SETTINGS_PAGE = "/notifications"
"""Where a person chooses what they are told and how: every mail names it."""
_MAX_FACT = 500


@dataclass(frozen=True)
class Notification:
    title: str
    body: str
    url: str
    """A path on the web app (``/games/demo``) or a full address; the transports make it absolute."""
    why: str = ""
    """Why the person gets it and how to get fewer: the end of an e-mail (:func:`why`)."""


def cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split()) if "\n" not in str(text) else str(text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


_AT_THE_SEAT = frozenset({"phase_processed", "deadline", "game_starting", "game_ended"})
"""Events told to a seated player about their seat."""


def _fact(facts: Mapping[str, Any], name: str, default: str = "") -> str:
    return cut(str(facts.get(name, default) or default), _MAX_FACT)


def ending_of(facts: Mapping[str, Any]) -> Msg | str:
    """How the game ended, as a message said in the reader's language (``ending_msg``), or the English text an
    event of an older installation carries (``ending``)."""
    data = facts.get("ending_msg")
    return Msg.from_data(data) if isinstance(data, Mapping) else _fact(facts, "ending")


def compose(event: str, facts: Mapping[str, Any]) -> Notification:
    """The words for ``event``; facts used: game, phase, power, hours, deadline (text), sender, excerpt, url,
    and lang (the reader's language, default English)."""
    lang = str(facts.get("lang") or "en")
    _ = translations(lang).gettext
    game = _fact(facts, "game")
    power = _fact(facts, "power")
    phase = phase_words(_fact(facts, "phase"), lang)
    # What a player is told about their own seat opens their own page: the last turn and the orders are there.
    own = game and power and event in _AT_THE_SEAT
    default = f"/games/{quote(game, safe='')}/play/{quote(power, safe='')}" if own else f"/games/{quote(game)}"
    url = str(facts.get("url") or (default if game else "/"))
    if len(url) > 2000:
        raise GameError("the notification's link is longer than 2,000 characters")
    deadline = _fact(facts, "deadline")
    due = " " + _("Orders are due by %(deadline)s.") % {"deadline": deadline} if deadline else ""
    if event == "phase_processed":
        title = _("%(game)s: %(phase)s processed") % {"game": game, "phase": phase}
        body = _("The results of %(phase)s in %(game)s are ready.") % {"phase": phase, "game": game}
        summary = str(facts.get("summary") or "").strip("\n")
        body += "\n\n" + summary + "\n\n" + _next(facts, lang).lstrip() if summary else _next(facts, lang)
    elif event == "game_ended":
        title = say(msg("%(game)s has ended", game=game), lang)
        body = say(msg("%(game)s is over: %(ending)s", game=game, ending=ending_of(facts)), lang)
        if facts.get("scores"):
            body += "\n\n" + str(facts["scores"])
    elif event == "deadline":
        title = _("%(game)s: orders for %(power)s missing") % {"game": game, "power": power}
        body = (
            _("%(game)s, %(phase)s: no orders for %(power)s yet, and the deadline is %(left)s away.")
            % {"game": game, "phase": phase, "power": power, "left": _fact(facts, "left") or _("near")}
            + due
        )
    elif event == "game_starting":
        title = _("%(game)s is starting") % {"game": game}
        body = (
            _("%(game)s has started: you play %(power)s. First phase: %(phase)s.")
            % {"game": game, "power": power, "phase": phase}
            + due
        )
    elif event == "seat_offered":
        title = _("%(game)s: a seat is offered to you") % {"game": game}
        body = _("%(power)s in %(game)s needs a player.") % {"power": power, "game": game}
        body += " " + _("Its player stopped sending orders.") if facts.get("reason") == "disorder" else ""
        body += " " + _("Open the link to take the seat.")
    elif event == "seat_lost":
        if facts.get("how") == "freed":
            title = _("%(game)s: your seat (%(power)s) is offered to others") % {"game": game, "power": power}
            body = _(
                "The coordinator of %(game)s offered your seat (%(power)s) to other players: it stays yours "
                "until one of them takes it."
            ) % {"game": game, "power": power}
        elif facts.get("reason") == "resigned":
            title = _("%(game)s: %(power)s has a new player") % {"game": game, "power": power}
            body = _("%(power)s in %(game)s, which you left, is now played by someone else.") % {
                "power": power,
                "game": game,
            }
        else:
            title = _("%(game)s: %(power)s is no longer yours") % {"game": game, "power": power}
            body = _("%(power)s in %(game)s is now played by someone else: your seat was taken by a replacement.") % {
                "power": power,
                "game": game,
            }
        body += " " + _("Your other games are on your page.")
    elif event == "message_received":
        sender = _fact(facts, "sender") or _("someone")
        title = _("%(game)s: a message from %(sender)s") % {"game": game, "sender": sender}
        body = (
            _("%(sender)s wrote in %(game)s: %(excerpt)s")
            % {
                "sender": sender,
                "game": game,
                "excerpt": _fact(facts, "excerpt"),
            }
        ).rstrip(": ")
    elif event == "proposal":
        what = facts.get("what")
        said = say(what, lang) if isinstance(what, Msg) else _fact(facts, "what")
        title = say(msg("%(game)s: a proposal to vote on", game=game), lang)
        proposer = _fact(facts, "proposer")
        body = say(
            msg("%(power)s proposes %(what)s in %(game)s.", power=proposer, what=said, game=game)
            if proposer
            else msg("A player proposes %(what)s in %(game)s.", what=said, game=game),
            lang,
        )
        until = _fact(facts, "until")
        body += " " + say(
            msg("Vote yes or no on your page before %(until)s, when it lapses.", until=until)
            if until
            else msg("Vote yes or no on your page."),
            lang,
        )
    else:
        raise GameError(msg("no event %(event)s", event=repr(event)))
    return Notification(cut(title, MAX_TITLE), cut(body, MAX_BODY), url, why(event, facts))


def why(event: str, facts: Mapping[str, Any]) -> str:
    """Why the person gets this, and how to get fewer, in their language: the last lines of every e-mail (the
    outbox adds the one-click link that stops this kind of mail)."""
    lang = str(facts.get("lang") or "en")
    game, power = _fact(facts, "game"), _fact(facts, "power")
    reason: Msg
    if event == "seat_offered":
        reason = msg("You get this because you signed up for a game here recently and may want another seat.")
    elif event == "message_received":
        reason = msg("You get this because you chose to have press (messages) by e-mail.")
    elif event in ("seat_lost", "game_ended"):
        reason = msg("You get this because you played %(power)s in %(game)s.", power=power, game=game)
    elif event == "proposal":
        reason = msg(
            "You get this because you play %(power)s in %(game)s, whose players vote on what its table decides.",
            power=power,
            game=game,
        )
    elif event == "deadline":
        reason = msg(
            "You get this because you play %(power)s in %(game)s and no orders of yours are in: one reminder a "
            "phase at most, none once you send orders or mark yourself ready.",
            power=power,
            game=game,
        )
    else:
        reason = msg("You get this because you play %(power)s in %(game)s.", power=power, game=game)
    page = public_url() + SETTINGS_PAGE if public_url() else SETTINGS_PAGE
    fewer = msg(
        "Fewer e-mails: choose what you are told, and how, on your notifications page: %(page)s",
        page=page,
    )
    return say(reason, lang) + "\n" + say(fewer, lang)


def _next(facts: Mapping[str, Any], lang: str = "en") -> str:
    _ = translations(lang).gettext
    nxt, deadline = phase_words(_fact(facts, "next"), lang), _fact(facts, "deadline")
    if nxt and deadline:
        return " " + _("Next: %(phase)s, orders due by %(deadline)s.") % {"phase": nxt, "deadline": deadline}
    return " " + _("Next: %(phase)s.") % {"phase": nxt} if nxt else ""
