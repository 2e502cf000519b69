"""A practice game against bots, started by any visitor in one click from the home page (docs/bots.md,
docs/web.md): this module reads the form (variant, power or "any", the bots' level, a pace) and answers; what a
practice game is, and the caps on them, are :mod:`dippouch.play.practice`'s.

What the web adds against abuse: the form carries the CSRF token like every form, each address may start a few
a window (the rate limiter), and a cap reached is a 429 with the time to wait. Bots cost CPU: their first moves
are charged to the address's work budget by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dippouch.bots import LEVELS
from dippouch.bots.practice import practice_visit_due, watch_due
from dippouch.catalog import variants_usable
from dippouch.core.messages import msg
from dippouch.play import practice as play_practice
from dippouch.play.practice import DEFAULT_LEVEL, DEFAULT_PACE, PACES, PER_CLIENT, TOTAL, PracticeStarted
from dippouch.store.bots import open_practice_games
from dippouch.web.http.security import BadInput, TooMany, Viewer
from dippouch.web.http.service import Web

I18N_DOMAIN = "site"
"""The catalogue of the refusals said here (the JSON API gives their English, a page its reader's words)."""

__all__ = ["PER_CLIENT", "TOTAL", "client_tag", "form_choices", "note_visit", "start_practice"]


def client_tag(web: Web, client: str) -> str:
    """What a practice game keeps of the address that started it (:func:`dippouch.play.practice.client_tag`)."""
    return play_practice.client_tag(web.store, client)


def note_visit(web: Web, game: str, viewer: Viewer | None = None) -> None:
    """Someone came to a page of ``game``: for a practice game, its person (it is not left, so not stopped);
    for a game bots alone play, a signed-in ``viewer`` (it is watched, so not paused:
    :func:`dippouch.bots.practice.stop_unwatched_bot_games`). Reads first: most page views write nothing."""
    now = web.now()
    if practice_visit_due(web.read, game, now=now):
        play_practice.note_visited(web.store, game, now=now)
    elif viewer is not None and viewer.signed_in and watch_due(web.read, game, now=now):
        play_practice.note_watched(web.store, game, now=now)


def practice_games(web: Web) -> set[str]:
    return set(open_practice_games(web.store))


def _field(form: Mapping[str, Any], key: str, default: str) -> str:
    value = form.get(key, default)
    if not isinstance(value, str):
        raise BadInput(msg("field %(field)s must be text", field=repr(key)))
    return value.strip() or default


def start_practice(
    web: Web, form: Mapping[str, Any], client: str, *, per_client: int = PER_CLIENT, total: int = TOTAL
) -> PracticeStarted:
    """The home page's form read, then :func:`dippouch.play.practice.start_practice`; a cap reached is a 429."""
    try:
        started = play_practice.start_practice(
            web.store,
            web.access,
            client=client,
            now=web.now(),
            variant=_field(form, "variant", "standard"),
            power=_field(form, "power", "any"),
            level=_field(form, "level", DEFAULT_LEVEL),
            pace=_field(form, "pace", DEFAULT_PACE),
            per_client=per_client,
            total=total,
        )
    except play_practice.PracticeCapReached as e:
        raise TooMany(e.msg, e.retry_after) from None
    web.touched(started.game)
    return started


def form_choices() -> dict[str, Any]:
    """What the home page's form offers."""
    good, _broken = variants_usable()
    return {
        "variants": [{"name": v.name, "title": v.title, "powers": [p.name for p in v.powers]} for v in good],
        "levels": list(LEVELS),
        "default_level": DEFAULT_LEVEL,
        "paces": [(k, label) for k, (label, _) in PACES.items()],
    }
