"""The one reminder policy: which deadlines are near, for whom, and at which lead time, for the game's own mail
and the notifications alike.

The rule, one for both: a reminder goes at a lead time before the deadline once that lead is reached, and
only the nearest lead reached counts (a game set up 10 hours before its deadline gets the 12-hour reminder,
not the 48-hour one as well); each (phase, power, lead) is reminded once. The leads are the game mail's
(``mail setup --reminders``, default :data:`DEFAULT_REMINDERS`) and each person's own (their notification
settings, default 12 hours). Whose orders are missing is decided once per phase
(:func:`dippouch.store.events.missing_orders`): a power that must act and has no accepted order standing, is
not ready, and sent no photograph waiting for the coordinator's review.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from dippouch.game import GameError, parse_duration
from dippouch.i18n import translations
from dippouch.notify.events import DEFAULT_DEADLINE_HOURS, preferences
from dippouch.notify.registry import Event, Look, Reader
from dippouch.store import events as logged
from dippouch.store import notify as stored
from dippouch.store.mail_games import mail_games

__all__ = ["DEFAULT_REMINDERS", "I18N_DOMAIN", "due", "game_leads", "lead_reached", "left"]

I18N_DOMAIN = "mail"
"""The time left, as a reminder says it, in the reader's language."""

DEFAULT_REMINDERS = ("48h", "12h")
"""The game mail's lead times when ``mail setup`` names none."""


def lead_reached(deadline: datetime, leads: Iterable[timedelta], now: datetime) -> timedelta | None:
    """The nearest lead time before ``deadline`` that ``now`` has reached, or None (none reached yet, or the
    deadline has passed)."""
    if now >= deadline:
        return None
    reached = [lead for lead in leads if deadline - lead <= now]
    return min(reached) if reached else None


def game_leads(config: Mapping[str, Any]) -> list[timedelta]:
    """The game mail's lead times (none when its settings cannot be read: no reminder beats a wrong one)."""
    try:
        return [parse_duration(str(x)) for x in config.get("reminders", DEFAULT_REMINDERS)]
    except GameError:
        return []


def left(td: timedelta, lang: str = "en") -> str:
    """The time left, as a reminder says it: rounded down (a reminder never promises more time than there is;
    under a minute still says "1 minute"), in the singular for one, in ``lang``."""
    t = translations(lang)
    hours = int(td.total_seconds() // 3600)
    if hours >= 48:
        days = hours // 24
        return t.ngettext("%(num)d day", "%(num)d days", days) % {"num": days}
    if hours >= 1:
        return t.ngettext("%(num)d hour", "%(num)d hours", hours) % {"num": hours}
    minutes = max(1, int(td.total_seconds() // 60))
    return t.ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}


def due(look: Look) -> list[Event]:
    """A ``deadline`` event for each open phase with a lead reached by its game's mail or a seated person
    whose orders are missing. Its ``detail``: ``phase_id``, ``phase``, ``deadline`` (the moment), ``missing``
    (powers), ``mail_lead`` (the game mail's lead reached, or None); its readers: the seated people to
    notify, each at their own lead."""
    store, now = look.store, look.now
    mail = {g.id: game_leads(g.config) for g in mail_games(store) if g.status == "active"}
    longest = max(
        [timedelta(hours=stored.longest_lead(store, DEFAULT_DEADLINE_HOURS)), *(x for v in mail.values() for x in v)]
    )
    out: list[Event] = []
    for ph in stored.phases_due_within(store, now, longest):
        assert ph.deadline is not None
        mail_lead = lead_reached(ph.deadline, mail.get(ph.game_id, ()), now)
        people = []
        for pid, power in stored.seated_people(store, ph.game_id):
            prefs = preferences(store, pid)
            hours = prefs.deadline_hours
            if lead_reached(ph.deadline, [timedelta(hours=hours)], now) is not None:
                people.append((pid, power, prefs, hours))
        if mail_lead is None and not people:
            continue
        missing = logged.missing_orders(store, ph.phase_id)
        if not missing:
            continue
        facts = {
            "game": ph.game,
            "phase": ph.phase,
            "deadline": look.describe(ph.game, ph.deadline),
            "left": left(ph.deadline - now),
        }
        readers = tuple(
            Reader(
                pid,
                power,
                f"{ph.phase_id}:{power}:{hours}",
                {**facts, "power": power},
                prefs,
                mark=f"deadline:{ph.phase_id}:{pid}:{power}:{hours}",
            )
            for pid, power, prefs, hours in people
            if power in missing
        )
        detail = {
            "phase_id": ph.phase_id,
            "phase": ph.phase,
            "deadline": ph.deadline,
            "missing": sorted(missing),
            "mail_lead": mail_lead,
        }
        out.append(Event("deadline", now, ph.game_id, ph.game, detail, readers))
    return out
