"""A practice game against bots, started by any visitor in one click (docs/bots.md, docs/web.md).

One form (variant, power or "any", the bots' level, a pace) creates a game whose every other power is a bot,
seats the visitor on their power with a player key, and lets the bots send their first orders at once. The
game is unlisted and marked as practice in its settings (so the public list never shows it, and the caps can
count it). What keeps it from being abused: the form carries the CSRF token like every form, each address
may start a few a window (the rate limiter), and there are caps on the practice games not yet over, per
address and overall; a refusal says which cap and its number. Bots cost CPU: their first moves are charged
to the address's work budget by the caller.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dippouch.bots import LEVELS
from dippouch.bots.practice import practice_visit_due
from dippouch.bots.seats import check_level, play_seats, seat_bot
from dippouch.catalog import load_variant, variants_usable
from dippouch.core.errors import DippouchError
from dippouch.game import Settings
from dippouch.store.bots import note_practice_visit, open_practice_games, practice_slot
from dippouch.store.installation import installation_secret
from dippouch.web.security import BadInput, TooMany
from dippouch.web.service import Web

__all__ = ["PACES", "PER_CLIENT", "TOTAL", "Practice", "client_tag", "note_visit", "start_practice"]

#: The paces a visitor may choose: a label, and the time a movement, retreat and adjustment phase each get.
#: "ready": the phase is processed as soon as the visitor's orders are marked ready (bots are always ready);
#: the long deadline only moves a game its player left.
PACES: dict[str, tuple[str, str]] = {
    "ready": ("when I'm ready", "7d"),
    "2m": ("a phase every 2 minutes", "2m"),
    "10m": ("a phase every 10 minutes", "10m"),
    "1d": ("a phase a day", "1d"),
}
DEFAULT_PACE = "ready"
DEFAULT_LEVEL = "heuristic"
PER_CLIENT = 3
"""Practice games not yet over that one address may have."""
TOTAL = 200
"""Practice games not yet over on the whole site."""
PLAYER = "you (practice)"


@dataclass(frozen=True)
class Practice:
    game: str
    power: str
    secret: str


def client_tag(web: Web, client: str) -> str:
    """What a practice game keeps of the address that started it: enough to count, not to show. An HMAC
    keyed with the installation's own secret: a plain hash of an address could be undone by hashing every
    address there is (IPv4 has four billion) by anyone who sees a game's settings (an export, a backup)."""
    key = installation_secret(web.store, "practice-client")
    return hmac.new(key, client.encode(), hashlib.sha256).hexdigest()[:20]


def note_visit(web: Web, game: str) -> None:
    """The person playing ``game`` came to their page (for a practice game: it is not left, so not stopped)."""
    now = web.now()
    if practice_visit_due(web.read, game, now=now):  # a read: most page views write nothing
        with web.writes:
            note_practice_visit(web.store, game, now=now)


def practice_games(web: Web) -> set[str]:
    return set(open_practice_games(web.store))


def _field(form: Mapping[str, Any], key: str, default: str) -> str:
    value = form.get(key, default)
    if not isinstance(value, str):
        raise BadInput(f"field {key!r} must be text")
    return value.strip() or default


def start_practice(
    web: Web, form: Mapping[str, Any], client: str, *, per_client: int = PER_CLIENT, total: int = TOTAL
) -> Practice:
    """Check the form, then the caps, then create the game, seat the bots and the visitor. Nothing is stored
    when anything is refused."""
    good, _broken = variants_usable()
    usable = [v.name for v in good]
    variant_name = _field(form, "variant", "standard")
    if variant_name not in usable:
        raise BadInput(f"no usable variant {variant_name!r}; choose one of {', '.join(usable)}")
    variant = load_variant(variant_name)
    powers = [p.name for p in variant.powers]
    wanted = _field(form, "power", "any")
    if wanted.lower() == "any":
        power = secrets.choice(powers)
    else:
        match = [p for p in powers if p.lower() == wanted.lower()]
        if not match:
            raise BadInput(f"{variant_name} has no power {wanted!r}; its powers are {', '.join(powers)}, or any")
        power = match[0]
    try:
        level = check_level(_field(form, "level", DEFAULT_LEVEL))
    except DippouchError as e:
        raise BadInput(str(e)) from None
    pace = _field(form, "pace", DEFAULT_PACE)
    if pace not in PACES:
        raise BadInput(f"no pace {pace!r}; choose one of " + ", ".join(f"{k} ({v[0]})" for k, v in PACES.items()))
    tag = client_tag(web, client)
    # Counted and created in one turn (practice_slot): concurrent requests, in any process, cannot both see
    # room under a cap and both create.
    with web.writes:
        with practice_slot(web.store):
            open_games = open_practice_games(web.store)
            mine = sum(1 for t in open_games.values() if t == tag)
            if mine >= per_client:
                raise TooMany(
                    f"you already have {mine} practice games going (at most {per_client} at once); "
                    "finish one of them first, or leave it: a practice game its player has left stops after a while "
                    "(ten of its movement phases, at least an hour, at most a week)",
                    600,
                )
            if len(open_games) >= total:
                raise TooMany(
                    f"the site has {len(open_games)} practice games going, its limit ({total}); try again later", 600
                )
            name = f"practice-{secrets.token_hex(5)}"
            deadline = PACES[pace][1]
            settings = Settings(
                deadlines={"movement": deadline, "retreats": deadline, "adjustments": deadline},
                missed_limit=0,  # the visitor's power never falls into civil disorder: the game waits for them
                practice=tag,
            )
            now = web.now()
            web.store.create_game(name, variant_name, now=now, settings=settings)
            web.access.set_visibility(name, "unlisted")
            for other in powers:
                if other != power:
                    seat_bot(web.store, name, other, level, now=now)
            web.store.assign(name, power, PLAYER, now=now)
            _, secret = web.access.create_key("player", game=name, power=power, label=PLAYER, now=now)
        # The bots' first orders after the turn: the caps are settled, and a slow level must not hold up
        # everyone else's start.
        play_seats(web.store, now=now, games=[name])
    web.touched(name)
    return Practice(name, power, secret)


def form_choices() -> dict[str, Any]:
    """What the home page's form offers."""
    good, _broken = variants_usable()
    return {
        "variants": [{"name": v.name, "title": v.title, "powers": [p.name for p in v.powers]} for v in good],
        "levels": list(LEVELS),
        "default_level": DEFAULT_LEVEL,
        "paces": [(k, label) for k, (label, _) in PACES.items()],
    }
