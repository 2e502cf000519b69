"""Whose sight a web reader of a fog-of-war game has (:attr:`dippouch.game.GameSettings.fog`).

Every door that shows a game's board, orders or results asks :func:`fog_powers`: ``None`` when the whole game
may be shown to the reader (the game has no fog, or is finished, or the reader coordinates it without playing
in it), else the powers whose sight the reader has: their own seats (and the seats they stand in for), none for
anybody else, who then sees no unit at all. A coordinator who also plays (the creator of a player-run game)
sees as a player: the fairness rule of :mod:`dippouch.play.fairness`, that the creator who plays has no edge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from fastapi import Depends
from starlette.requests import Request

from dippouch.core.messages import msg
from dippouch.render.fog import fog_record
from dippouch.store import status as store_status
from dippouch.store.access import STAND_IN
from dippouch.web.http.deps import viewer_of, web_of
from dippouch.web.http.security import Forbidden, Viewer
from dippouch.web.http.service import Web

I18N_DOMAIN = "site"

__all__ = [
    "ClearGame",
    "clear_game",
    "fog_powers",
    "fog_tag",
    "fogged",
    "fogged_powers",
    "fogged_record",
    "refuse_in_fog",
    "sight_key",
]


def fogged(web: Web, name: str, known: tuple[Any, Mapping[str, Any], str] | None = None) -> bool:
    """Whether ``name`` is a fog-of-war game still running (kept per change of the game: it finishes by a
    change). ``known``: the game's change marker, settings and state as a caller has read them already (the game's
    view), so that asking costs no query."""
    kept: dict[str, tuple[Any, bool]] = web.kept(__name__, dict)
    if known is not None:
        marker, settings, game_state = known
        got = store_status.in_fog(settings.get("fog"), game_state)
    else:
        state = web.state(name)
        marker = state[1] if state is not None else None
        hit = kept.get(name)
        if hit is not None and hit[0] == marker and marker is not None:
            return hit[1]
        got = store_status.fogged(web.read, name)
    if len(kept) > 20_000:
        kept.clear()
    kept[name] = (marker, got)
    return got


def fog_powers(
    web: Web, name: str, viewer: Viewer, known: tuple[Any, Mapping[str, Any], str] | None = None
) -> frozenset[str] | None:
    """``None``: the whole game may be shown to ``viewer``; else the powers whose sight they see with
    (``known``: as :func:`fogged`'s)."""
    if not fogged(web, name, known):
        return None
    seats = set(viewer.powers(name)) | {
        g.power for g in viewer.grants if g.role == STAND_IN and g.game == name and g.power
    }
    if not seats and viewer.coordinates(name):
        return None
    return frozenset(seats)


def fog_tag(powers: frozenset[str] | None) -> str:
    """What names a sight in a cache's key or an ETag ('' for the whole board): pictures drawn for one sight are
    never handed to another reader."""
    if powers is None:
        return ""
    return "fog-" + hashlib.sha256("\n".join(sorted(powers)).encode()).hexdigest()[:16]


def sight_key(base: str, powers: frozenset[str] | None) -> str:
    """A shared page's sight (``base``: what of the names the reader sees) with the fog's: one short hash when
    there is fog (a shared page's kind is at most 40 characters), ``base`` unchanged when there is none."""
    if powers is None:
        return base
    return hashlib.sha256(f"{base}\n{fog_tag(powers)}".encode()).hexdigest()[:16]


def fogged_record(web: Web, name: str, record: Mapping[str, Any], powers: frozenset[str] | None) -> dict[str, Any]:
    """A stored phase as the reader may see it (unchanged without fog)."""
    if powers is None:
        return dict(record)
    return fog_record(web.variant_of(name), record, powers)


HIDDEN_COUNTS = ("units", "centres", "must_act", "submitted", "ready")
"""What the game's table of powers says of a power that a fog-of-war reader not playing it is not told: how many
units and centres it has (vDiplomacy's fog games show a question mark there), and whether it has orders to give
and has given them (in a retreat or adjustment phase that tells who was dislodged, who builds and who removes)."""


def fogged_powers(powers: Iterable[Mapping[str, Any]], sight: frozenset[str]) -> list[dict[str, Any]]:
    """The game's table of powers as a reader with ``sight`` (their powers) may see it: their own rows whole, the
    others' counts and order status as None. A power out of the game keeps its zeros: an elimination is public (the
    draw's voters are the survivors, and vDiplomacy marks a defeated player too)."""
    out = []
    for p in powers:
        out_of_game = p.get("units") == 0 and p.get("centres") == 0
        if p.get("power") in sight or out_of_game:
            out.append(dict(p))
        else:
            out.append({**p, **dict.fromkeys(HIDDEN_COUNTS)})
    return out


def refuse_in_fog(web: Web, name: str, viewer: Viewer) -> None:
    """Refuse a door that shows the whole game at once (its file, its replay, its book) while the fog lasts for
    this reader: the whole game is shown to everyone once it ends."""
    if fog_powers(web, name, viewer) is not None:
        raise Forbidden(
            msg("%(game)s is played in fog of war: the whole game is shown once it has ended", game=repr(name))
        )


def clear_game(request: Request, name: str) -> str:
    """The game ``name`` in the path, which the viewer may see whole: a door that shows the whole game at once
    (its replay, records, book) is refused while the fog lasts for them (404 as ``VisibleGame`` first)."""
    web, viewer = web_of(request), viewer_of(request)
    web.require_visible(name, viewer)
    refuse_in_fog(web, name, viewer)
    return name


ClearGame = Annotated[str, Depends(clear_game)]
"""The game in the path, which the viewer may see whole (no fog of war hides any of it from them)."""
