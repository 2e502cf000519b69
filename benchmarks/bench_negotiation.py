"""A ladder of press games: do bots that negotiate finish ahead of the same bots silent?

Standard map, one bot level (``heuristic`` by default) in every seat. Each game is played twice from the
same seed: once with every power silent, once with a team of three powers negotiating among themselves
(the other four silent). Team ``g`` is the powers at places ``g``, ``g + 2`` and ``g + 4`` of the variant's
list (modulo seven), so over seven games every power is on a team three times. The bots and their random
numbers are the same in both games; only what the team said and kept differs, so the team's centres in the
two games are a paired comparison.

What a team negotiates, each movement phase, through :mod:`dippouch.bots.negotiate` and its text (a request
is written as a player would, "support my A Burgundy to Munich", and read back by the parser; the answer is
the bot's reply, read back by :func:`~dippouch.bots.negotiate.accepted`):

- peace, proposed to each teammate in the first movement phase ("peace?"), kept while neither attacks;
- supports: each move a member plans into a province held by another power or into a centre it does not own
  is asked of the teammates in turn, until one says yes;
- the members then order their own plan changed to keep what they accepted (:func:`honour`), by personality.

Printed per personality (``honest``, ``opportunist``): the team's mean centres a power with negotiation and
the same powers' when silent, their difference, games where the team did better / worse / the same, solos
and eliminations; and the four silent powers' centres in both. Figures are what this machine ran: the
report names the seeds and sizes.

    nice .venv/bin/python benchmarks/bench_negotiation.py                       # 14 games x 2 personalities
    nice .venv/bin/python benchmarks/bench_negotiation.py --games 7 --years 6 --level heuristic
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dippouch.bots import make_bot
from dippouch.bots.base import Bot, settle
from dippouch.bots.engine import (
    Move,
    Order,
    Outcome,
    PhaseKind,
    Position,
    Variant,
    adjudicate,
    all_legal_orders,
    game_end,
)
from dippouch.bots.memory import Memory, remember
from dippouch.bots.negotiate import (
    HONEST,
    OPPORTUNIST,
    Commitment,
    Decision,
    accepted,
    at_war,
    decide,
    honour,
    parse_request,
    planning_view,
    promised_units,
    reply_text,
)
from dippouch.catalog import load_variant
from dippouch.core.notation import format_unit

SEED = 4300
"""The first game's seed; game ``g`` plays seed ``SEED + g`` in both of its versions."""


@dataclass
class Table:
    """The team's talk in one game: each member's replies (phase, text) it has sent, as a store keeps press."""

    personality: str
    team: tuple[str, ...]
    said: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    messages: int = 0
    yes: int = 0

    def ask(
        self,
        variant: Variant,
        position: Position,
        phase: str,
        asker: str,
        bot: str,
        text: str,
        hostile: set[str],
        plan: Sequence[Order] = (),
    ) -> list[Decision]:
        """``asker`` writes ``text`` to ``bot``; the bot answers (read back as it would be from the press)."""
        proposals = parse_request(variant, text)
        mine = self.commitments(variant, phase, bot)
        promised = promised_units(variant, position, bot, mine)
        answers = [
            decide(
                variant,
                position,
                bot,
                asker,
                p,
                personality=self.personality,
                hostile=hostile,
                promised=promised,
                plan=plan,
            )
            for p in proposals
        ]
        reply = reply_text(variant, answers, partner=asker)
        self.said.setdefault(bot, []).append((phase, reply))
        self.messages += 2
        self.yes += sum(1 for a in answers if a.yes)
        return answers

    def make_peace(
        self, variant: Variant, position: Position, phase: str, recent: list[tuple[str, Order]]
    ) -> dict[str, Position]:
        """Peace proposed between teammates in the first movement phase; then each member's view to plan in
        (:func:`planning_view`: its partners' centres are not targets)."""
        war = {p: at_war(variant, position, p, recent) for p in self.team}
        if not any(self.said.values()):
            for a in self.team:
                for b in self.team:
                    if a < b:
                        answers = self.ask(variant, position, phase, a, b, "peace?", war[b])
                        if answers and answers[0].yes:  # the proposer keeps what it proposed: its yes, said back
                            self.said.setdefault(a, []).append((phase, f"[dippouch] YES PEACE WITH {b}"))
        return {p: planning_view(variant, position, p, self.commitments(variant, phase, p), war[p]) for p in self.team}

    def commitments(self, variant: Variant, phase: str, power: str) -> list[Commitment]:
        return accepted(variant, self.said.get(power, []), phase)


def team_for(powers: Sequence[str], game: int) -> tuple[str, ...]:
    n = len(powers)
    return tuple(powers[(game + k) % n] for k in (0, 2, 4))


def _negotiate(
    variant: Variant,
    position: Position,
    phase: str,
    table: Table,
    plans: Mapping[str, list[Order]],
    recent: list[tuple[str, Order]],
) -> dict[str, list[Order]]:
    """The team's orders once its members have talked: peace first, then supports for their attacks."""
    prov = variant.map.province_of
    war = {p: at_war(variant, position, p, recent) for p in table.team}
    # Each member's plan as it will keep the peace it made, so no support is asked for a move it will not send.
    kept = {
        p: honour(
            variant,
            position,
            p,
            plans.get(p, []),
            [c for c in table.commitments(variant, phase, p) if c.proposal.kind != "support"],
            personality=table.personality,
            hostile=war[p],
        )
        for p in table.team
    }
    for asker in table.team:
        for o in kept[asker]:
            if not isinstance(o, Move):
                continue
            d = prov(o.dest)
            held = position.units.get(d)
            if not (
                (held is not None and held.power != asker)
                or (d in variant.map.supply_centres and position.centres.get(d) != asker)
            ):
                continue
            unit = format_unit(variant, o.kind, o.loc, full=True)
            text = f"support my {unit} to {variant.map.label(o.dest)}"
            for helper in table.team:
                if helper == asker:
                    continue
                answers = table.ask(variant, position, phase, asker, helper, text, war[helper], kept[helper])
                if answers and answers[0].yes:
                    break
        # A centre of the asker's that a power outside the team can attack now: a support to hold it.
        for u in position.units_of(asker):
            here = prov(u.loc)
            if position.centres.get(here) != asker or any(
                o.unit_loc is not None and prov(o.unit_loc) == here and isinstance(o, Move) for o in kept[asker]
            ):
                continue
            near = variant.map.army_adj[here] | {
                n for loc in variant.map.fleet_locations(here) for n in variant.map.fleet_reach[loc]
            }
            if not any((x := position.units.get(n)) is not None and x.power not in table.team for n in near):
                continue
            text = f"support my {format_unit(variant, u.kind, u.loc, full=True)} to hold"
            for helper in table.team:
                if helper != asker:
                    answers = table.ask(variant, position, phase, asker, helper, text, war[helper], kept[helper])
                    if answers and answers[0].yes:
                        break
    return {
        p: honour(
            variant,
            position,
            p,
            kept[p],
            table.commitments(variant, phase, p),
            personality=table.personality,
            hostile=war[p],
        )
        for p in table.team
    }


@dataclass
class Played:
    centres: dict[str, int]
    winner: str | None
    illegal: int
    messages: int = 0
    yes: int = 0


def play(variant: Variant, bots: Mapping[str, Bot], seed: int, years: int, table: Table | None) -> Played:
    """One game from the start, as :func:`dippouch.bots.play.play_game` plays it, the team talking if any."""
    rng = random.Random(seed)
    position = variant.start
    first = position.phase.year
    memories: dict[str, Memory] = {}
    recent: list[tuple[str, Order]] = []
    illegal = 0
    winner = None
    while position.phase.year < first + years:
        kind = variant.calendar.kind(position.phase)
        legal = all_legal_orders(variant, position)
        orders: dict[str, list[Order]] = {}
        views: dict[str, Position] = {}
        phase = str(position.phase.year) + str(position.phase.step)
        if table is not None and kind is PhaseKind.MOVEMENT:
            views = table.make_peace(variant, position, phase, recent)
        for power in variant.power_names:
            if not legal.get(power):
                continue
            orders[power] = bots[power].orders(
                variant, views.get(power, position), power, random.Random(rng.getrandbits(64)), memories.get(power)
            )
        if table is not None and kind is PhaseKind.MOVEMENT:
            orders.update(_negotiate(variant, position, phase, table, orders, recent))
        for power, chosen in orders.items():
            allowed = {o for options in legal[power].values() for o in options}
            illegal += sum(1 for o in chosen if o not in allowed)
            orders[power] = [o for o in chosen if o in allowed]
        resolution = adjudicate(variant, position, orders, rng=random.Random(rng.getrandbits(64)))
        if kind is PhaseKind.MOVEMENT:
            memories = {p: remember(variant, memories.get(p), p, resolution.results) for p in variant.power_names}
            recent = [(r.power, r.order) for r in resolution.results if not r.automatic]
        illegal += sum(1 for r in resolution.results if r.result is Outcome.ILLEGAL and not r.automatic)
        position = resolution.next
        ending = game_end(variant, position)
        if ending is not None:
            winner = ending.powers[0] if ending.kind == "victory" else None
            break
    played = Played({p: len(position.centres_of(p)) for p in variant.power_names}, winner, illegal)
    if table is not None:
        played.messages, played.yes = table.messages, table.yes
    return played


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=14, help="games per personality (each played twice)")
    ap.add_argument("--years", type=int, default=6, help="game years a game lasts at most (from 1901)")
    ap.add_argument("--level", default="heuristic", help="the bot level in every seat")
    ap.add_argument("--personalities", default=f"{HONEST},{OPPORTUNIST}")
    ap.add_argument("--seed", type=int, default=SEED, help="the first game's seed")
    ap.add_argument("--show", action="store_true", help="print one game's talk (the first honest game's)")
    args = ap.parse_args(argv)
    variant = load_variant("standard")
    settle(variant)
    # The search level's budget in CPU time, as bench_bots measures it: a busy machine does not change its play.
    bots = {p: make_bot(args.level, clock=time.process_time) for p in variant.power_names}
    started = time.perf_counter()
    print(
        f"== standard, {args.level} in every seat, {args.games} games a personality, {args.years} years, seeds {args.seed}..{args.seed + args.games - 1}"
    )
    illegal = 0
    for personality in [p.strip() for p in args.personalities.split(",") if p.strip()]:
        talk_c: list[float] = []
        quiet_c: list[float] = []
        others_talk: list[float] = []
        others_quiet: list[float] = []
        better = worse = same = solos_t = solos_q = out_t = out_q = messages = yes = 0
        for g in range(args.games):
            team = team_for(variant.power_names, g)
            table = Table(personality, team)
            quiet = play(variant, bots, args.seed + g, args.years, None)
            talk = play(variant, bots, args.seed + g, args.years, table)
            illegal += quiet.illegal + talk.illegal
            t = _mean([talk.centres[p] for p in team])
            q = _mean([quiet.centres[p] for p in team])
            talk_c.append(t)
            quiet_c.append(q)
            rest = [p for p in variant.power_names if p not in team]
            others_talk.append(_mean([talk.centres[p] for p in rest]))
            others_quiet.append(_mean([quiet.centres[p] for p in rest]))
            better += t > q
            worse += t < q
            same += t == q
            solos_t += talk.winner in team
            solos_q += quiet.winner in team
            out_t += sum(1 for p in team if talk.centres[p] == 0)
            out_q += sum(1 for p in team if quiet.centres[p] == 0)
            messages += talk.messages
            yes += talk.yes
            if args.show and g == 0 and personality == HONEST:
                for power, said in table.said.items():
                    for phase, text in said[:6]:
                        print(f"   {phase} {power}: {text.splitlines()[0]}")
        n = args.games
        print(
            f"  {personality}: team centres a power {_mean(talk_c):.2f} negotiating v {_mean(quiet_c):.2f} silent "
            f"({_mean(talk_c) - _mean(quiet_c):+.2f}); team better in {better}, worse in {worse}, same in {same} of {n}"
        )
        print(
            f"    the four silent powers: {_mean(others_talk):.2f} beside a negotiating team v {_mean(others_quiet):.2f}; "
            f"team solos {solos_t} v {solos_q}; team powers eliminated {out_t} v {out_q}; "
            f"messages {messages} ({yes} yes)"
        )
    print(f"  illegal orders: {illegal}; {time.perf_counter() - started:.0f} s")
    return 0 if illegal == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
