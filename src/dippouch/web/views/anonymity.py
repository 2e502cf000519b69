"""Which players' names a web reader may see in an anonymous game (:mod:`dippouch.people.anonymity`).

Every route that names a player asks :func:`seen_powers`: ``None`` when the reader may see every name (the
game is not anonymous, or is over, or the reader coordinates it), else the powers whose players the reader may
see (their own seats; none for a visitor). The answer's shape stays the same: a hidden player's place is
empty (or :data:`~dippouch.people.anonymity.HIDDEN` where a text must be filled), so a program reading the
API needs no second format.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dippouch.core.messages import Msg, msg
from dippouch.store.access import STAND_IN
from dippouch.store.people.persons import names_hidden
from dippouch.web.http.security import Viewer
from dippouch.web.http.service import Web

__all__ = [
    "absences_seen",
    "game_view_seen",
    "seen_powers",
    "shown_marker",
    "stand_in_used",
    "stands_in",
    "takes_part",
    "without_hidden",
]

I18N_DOMAIN = "games"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/games.po)."""


def seen_powers(web: Web, name: str, viewer: Viewer) -> frozenset[str] | None:
    """``None``: every name may be shown to ``viewer``; else the powers whose players they may see."""
    if viewer.coordinates(name) or not names_hidden(web.read, name):
        return None
    return frozenset(viewer.powers(name))


def stands_in(viewer: Viewer, name: str, power: str | None = None) -> bool:
    """Whether ``viewer`` holds a stand-in's grant in ``name`` (for ``power``, when given): a seat to order
    while its player is away, which no check of a player (:meth:`Viewer.plays`) counts."""
    return any(g.role == STAND_IN and g.game == name and power in (None, g.power) for g in viewer.grants)


def takes_part(viewer: Viewer, name: str) -> bool:
    """Whether ``viewer`` plays, stands in for a seat of, or coordinates ``name`` (or the installation): who
    may read the game's own people's matters, such as who is away when."""
    return viewer.in_game(name) or viewer.coordinates(None) or stands_in(viewer, name)


def without_hidden(
    rows: Iterable[Mapping[str, Any]], seen: frozenset[str] | None, fields: Iterable[str]
) -> list[dict[str, Any]]:
    """Rows (each with a ``power``) with ``fields`` emptied where their player is hidden from the reader."""
    keys = tuple(fields)
    if seen is None:
        return [dict(r) for r in rows]
    return [
        dict(r) if r.get("power") in seen else {**r, **dict.fromkeys((k for k in keys if k in r), None)} for r in rows
    ]


def stand_in_used(power: str) -> Msg:
    """A stand-in ordered for an absent ``power``, the stand-in not named (as an anonymous game shows it)."""
    return msg("%(power)s was away: a stand-in could order for them", power=power)


def absences_seen(view: Mapping[str, Any], seen: frozenset[str] | None, *, member: bool = True) -> dict[str, Any]:
    """A game's absences (:func:`dippouch.web.routes.roster.game_absences_view`) as the reader may see them.

    Who is away, and when, is for the game's own people (``member``: :func:`takes_part`), as the roster is: a
    holiday says when a house stands empty, which a visitor has no need to know. Everyone keeps the policy and
    what the game did at past deadlines (by power: the game's history shows it too).

    In an anonymous game (``seen`` not None) who is away now is shown for the reader's own seats only (a
    person's holiday shows the same days in every game they play: beside a game that names them, the days
    would name the player here); nor is the stand-in."""
    if not member:
        view = {**view, "away": []}
    if seen is None:
        return dict(view)
    applied = [
        u
        if u.get("power") in seen or u.get("policy") != "stand_in"
        else {**u, "text": stand_in_used(str(u.get("power"))).to_data()}
        for u in view.get("applied", [])
    ]
    return {
        **view,
        "stand_in": None,
        "stand_in_person_id": None,
        "away": [dict(a) for a in view.get("away", []) if a.get("power") in seen],
        "applied": applied,
    }


def game_view_seen(view: Mapping[str, Any], seen: frozenset[str] | None, *, member: bool) -> dict[str, Any]:
    """The game page's data (:func:`dippouch.web.views.games.game_view`, cached for every reader) for this reader
    (``member``: :func:`takes_part`, who reads who is away)."""
    out = dict(view)
    if seen is not None:
        out.update(names_hidden=True, powers=without_hidden(view.get("powers", []), seen, ("player", "person_id")))
    if isinstance(view.get("absences"), Mapping):
        out["absences"] = absences_seen(view["absences"], seen, member=member)
    return out


def shown_marker(marker: Sequence[int], *, hidden: bool) -> tuple[int, int, int, int]:
    """The game's change marker as the API gives it to this reader (:meth:`dippouch.store.access.Access.marker`
    keeps one more number than it shows). A reader from whom an anonymous game's names are ``hidden`` gets the last event but a person's own
    in the events' place: a holiday is written in every game its person plays at once, with event numbers
    in a row, so the anonymous game's marker would move with (and next to) the one of a game naming them."""
    events, phases, submissions, votes, game_events = marker
    return (game_events if hidden else events, phases, submissions, votes)
