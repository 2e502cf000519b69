"""How a game ends: a victory, the survivors, a draw's needs and agreement."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dippouch.core.lookup import load_rule_modules
from dippouch.core.messages import Msg, msg, nmsg
from dippouch.core.position import Position
from dippouch.core.rules.base import DRAW_HOOKS, VICTORY_HOOKS
from dippouch.core.variant import Variant
from dippouch.game.errors import GameError
from dippouch.game.settings import GameSettings

I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""


@dataclass(frozen=True)
class Ending:
    kind: str
    """``victory``, ``draw``, ``last_year``, ``ranked`` (few powers left, ranked by size) or ``no_powers``."""
    powers: tuple[str, ...]
    text: str
    """The ending in English: what logs, the command line and endings stored before messages were values read."""
    why: Msg | None = None
    """The ending as a message value, said in each reader's language where it is shown (:attr:`message`)."""

    @classmethod
    def of(cls, kind: str, powers: tuple[str, ...], why: Msg) -> Ending:
        """An ending told by ``why``, its English kept beside it."""
        return cls(kind, powers, str(why), why)

    @property
    def message(self) -> Msg:
        """What a door says (``saying.say(ending.message, lang)``): the value, or an old stored ending's text."""
        return self.why if self.why is not None else Msg(self.text)

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "powers": list(self.powers), "text": self.text}
        if self.why is not None:
            out["why"] = self.why.to_data()
        return out

    @classmethod
    def from_data(cls, d: Mapping[str, Any]) -> Ending:
        why = d.get("why")
        return cls(
            str(d["kind"]),
            tuple(d.get("powers", ())),
            str(d.get("text", "")),
            Msg.from_data(why) if isinstance(why, Mapping) else None,
        )


def check_victory(variant: Variant, position: Position) -> str | None:
    hook = variant.victory.get("hook")
    if hook:
        load_rule_modules()  # they register the victory tests
        fn = VICTORY_HOOKS.get(str(hook))
        if fn is None:
            raise GameError(
                msg("variant %(variant)s names an unknown victory hook %(hook)s", variant=variant.name, hook=repr(hook))
            )
        return fn(variant, position)
    need = variant.victory.get("centres")
    by_power = variant.victory.get("by_power", {})
    if need is None and not by_power:
        return None
    counts = {p: len(position.centres_of(p)) for p in variant.power_names}
    # ``[victory] by_power`` gives a power its own target (1000 AD: 25, 28 or 31); ``centres`` the rest.
    reached = [
        p for p in variant.power_names if by_power.get(p, need) is not None and counts[p] >= int(by_power.get(p, need))
    ]
    best = max((counts[p] for p in reached), default=0)
    leaders = [p for p in reached if counts[p] == best]
    if len(leaders) == 1:
        return leaders[0]
    return None


def surviving_powers(variant: Variant, position: Position) -> list[str]:
    return [p for p in variant.power_names if position.units_of(p) or position.centres_of(p)]


def game_end(variant: Variant, position: Position) -> Ending | None:
    """Does the game end on reaching ``position``? Victory first, then the variant's last year."""
    winner = check_victory(variant, position)
    if winner is not None:
        n = len(position.centres_of(winner))
        return Ending.of(
            "victory",
            (winner,),
            nmsg(
                "%(power)s wins with %(num)d supply centre.",
                "%(power)s wins with %(num)d supply centres.",
                n,
                power=winner,
            ),
        )
    remaining = variant.victory.get("remaining")
    if remaining is not None:
        # ``[victory] remaining = 3`` (1000 AD rule 12e): with that many powers left the game ends and
        # they rank by size. A power counts while it owns a centre, in civil disorder or not.
        left = [p for p in variant.power_names if position.centres_of(p)]
        if len(left) <= int(remaining):
            ranked = tuple(sorted(left, key=lambda p: (-len(position.centres_of(p)), p)))
            listing = ", ".join(f"{p} ({len(position.centres_of(p))})" for p in ranked)
            return Ending.of(
                "ranked",
                ranked,
                msg(
                    "Only %(count)s powers remain; they rank by size: %(listing)s.", count=len(ranked), listing=listing
                ),
            )
    if not surviving_powers(variant, position):
        # No power has a unit or a centre (1897 when nobody placed a first unit): nothing can ever happen
        # again, and every phase after this one would be processed at once with nobody to act.
        return Ending.of(
            "no_powers", (), msg("No power has a unit or a supply centre left: the game ends with no winner.")
        )
    last = variant.calendar.last_year
    if last is not None and position.phase.year > last:
        survivors = tuple(surviving_powers(variant, position))
        return Ending.of(
            "last_year",
            survivors,
            msg(
                "The game ends after %(year)s, its last year; surviving: %(powers)s.",
                year=last,
                powers=", ".join(survivors),
            ),
        )
    return None


@dataclass(frozen=True)
class DrawNeeds:
    """Where a draw stands: whether one is possible now (and why not), who votes, who has not voted yes."""

    possible: bool
    why_not: Msg | None
    """Why no draw is possible now, said in the reader's language where it is shown."""
    voters: tuple[str, ...]
    """The surviving powers not in civil disorder: every one must vote yes."""
    missing: tuple[str, ...]
    """Voters without a yes vote (a secret ballot shows others only how many)."""

    @property
    def reached(self) -> bool:
        return self.possible and bool(self.voters) and not self.missing


def draw_needs(
    variant: Variant, position: Position, settings: GameSettings, votes: Mapping[str, bool], excused: Iterable[str] = ()
) -> DrawNeeds:
    """What a draw needs now: a yes from every surviving power (powers in civil disorder have no vote), if
    the game and the variant allow one, and the variant's draw condition holds (W3K: only between kingdoms,
    its ``draw_hook``). ``why_not`` says, in the rule's own registered words, why none is possible now."""
    from dippouch.core.rules.base import description

    excused_set = set(excused)
    voters = tuple(p for p in surviving_powers(variant, position) if p not in excused_set)
    missing = tuple(p for p in voters if not votes.get(p, False))
    why: Msg | None = None
    if not settings.draws:
        why = msg("this game does not allow draws")
    elif not variant.victory.get("draws", True):
        why = msg("%(variant)s does not allow draws", variant=variant.title)
    else:
        draw_hook = variant.victory.get("draw_hook")
        if draw_hook:
            load_rule_modules()  # they register the draw conditions
        if draw_hook and DRAW_HOOKS[str(draw_hook)](variant, position) is None:
            rule = description("draw", str(draw_hook))
            why = (
                msg("the variant's draw condition is not met. %(rule)s", rule=Msg(rule))
                if rule
                else msg("the variant's draw condition (%(hook)s) is not met", hook=str(draw_hook))
            )
    return DrawNeeds(why is None, why, voters, missing)


def draw_reached(
    variant: Variant, position: Position, settings: GameSettings, votes: Mapping[str, bool], excused: Iterable[str] = ()
) -> Ending | None:
    """A draw needs a yes from every surviving power (powers in civil disorder have no vote): see :func:`draw_needs`."""
    needs = draw_needs(variant, position, settings, votes, excused)
    if needs.reached:
        survivors = tuple(surviving_powers(variant, position))
        return Ending.of(
            "draw",
            survivors,
            draw_agreed(needs.voters, survivors),
        )
    return None


def draw_agreed(voters: Iterable[str], sharing: Iterable[str]) -> Msg:
    """How a draw's ending reads, the same whichever door voted it: the powers named once when those who
    agreed are those who share it (the usual draw of all survivors), both lists when they differ."""
    voting, shared = list(voters), list(sharing)
    if sorted(voting) == sorted(shared):
        return msg("Draw agreed and shared by %(powers)s.", powers=", ".join(shared))
    return msg("Draw agreed by %(voters)s; shared by %(powers)s.", voters=", ".join(voting), powers=", ".join(shared))
