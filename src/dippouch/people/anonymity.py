"""Anonymous games: who may know which person plays which power, and the one way names are taken out.

A game whose setting ``anonymous`` is on (:class:`dippouch.game.GameSettings`) shows its players' names, and
everything that tells who they are (an e-mail or postal address, a link to the person's page), only to its
coordinators and to each player for their own seat, until the game is finished; then to everyone as usual.
Every page, answer, file and message that names a player asks :func:`names_hidden` and, where a reader must
not know, leaves the name out with :func:`redact_game_file` or by showing :data:`HIDDEN` (pure: the callers
hand in the game's settings and status).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["HIDDEN", "PERSONAL_EVENTS", "PLAYER_FIELDS", "names_hidden", "redact_events", "redact_game_file"]

HIDDEN = "(anonymous)"
"""What a reader who may not know a player is shown in a player's place, where a place must be filled."""

PLAYER_FIELDS = ("player", "name", "email", "person", "person_id", "address")
"""Keys of a game file's rows and events that name or point to a person."""


def names_hidden(settings: Mapping[str, Any] | None, status: str) -> bool:
    """Whether players' names are hidden in a game with these settings (``GameRow.settings``) and status."""
    return bool((settings or {}).get("anonymous")) and status != "finished"


PERSONAL_EVENTS = ("away", "away_removed")
"""Events a person's own act writes in every game they play at once (a holiday recorded): the same days at
the same moment in a game that names them would tell who plays the power here."""


def redact_events(events: list[dict[str, Any]], own: Collection[str] = ()) -> list[dict[str, Any]]:
    """A game's event log without the names of players other than ``own`` powers' (assignments, hand-overs,
    e-mail changes, seats freed: the log keeps who played what, and an anonymous game's readers may not),
    and without their :data:`PERSONAL_EVENTS`."""
    out = []
    for e in events:
        detail = e.get("detail")
        if e.get("kind") in PERSONAL_EVENTS and isinstance(detail, Mapping) and detail.get("power") not in own:
            continue
        if isinstance(detail, Mapping) and detail.get("power") not in own and any(k in detail for k in PLAYER_FIELDS):
            e = {**e, "detail": {k: v for k, v in detail.items() if k not in PLAYER_FIELDS}}
        out.append(e)
    return out


def redact_game_file(data: dict[str, Any], own: Collection[str] = ()) -> None:
    """Take every player's name and address out of a game file (in place), but for the ``own`` powers' (the
    reader's seats): the rows stay (power, when assigned, replaced), so the file still reads as a game."""
    for r in data.get("players", []):
        if r.get("power") not in own:
            for k in PLAYER_FIELDS:
                if k in r:
                    r[k] = HIDDEN if k == "name" else None
    if isinstance(data.get("events"), list):
        data["events"] = redact_events(data["events"], own)
    data["anonymous"] = "players' names are hidden until the game ends"
