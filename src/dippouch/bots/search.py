"""The ``search`` level: the heuristic's order sets, weighed by adjudicating them against sampled replies.

In a movement phase it samples replies for every other power, each from that power's own point of view: half
from the heuristic, half from a model of the DumbBot family (:mod:`dippouch.bots.province_value`, the field's
rule-based bots descend from it), each first plain, then with every unit that stood still last phase ordered
as it was then, then varied (the heuristic's values jittered, the model's own random picks) with some units
repeating their last order. Players repeat themselves (a unit that bounced tries again, a support stays where
it was needed); against DumbBots the replies foresee 91% of the orders, the heuristic's plain one 31%. It then
weighs candidate order sets for its power by adjudicating each against every reply with the real adjudicator
and scoring the positions they lead to. The candidates are the heuristic's own set, then variations of it,
then, until the time budget runs out or nothing new is left to weigh, the best set so far with one unit's
order changed, or with one unit moved and another supporting that move, sometimes a third too (a hill climb over
the legal orders against the sampled replies). Every candidate is weighed against the same replies; one the
budget cut short is not counted. Retreats and adjustments are the heuristic's (there is little to search there),
its builds going where a new unit has somewhere new to go.

The score of a position for a power: centres it owns or stands on, minus centres it owns that another
power stands on, plus the spread value of the provinces its units reach, minus its dislodged units; plus what
the position threatens a phase on: each other power's unit dislodged (a unit lost is a centre later), each own
centre another power reaches with more units than this one can hold it with (exposed), and each centre not
its own it reaches with more units than anyone can hold it with (open). Near a solo the weights change: the
others gang up on the leader, and it wins by taking rather than guarding; and for the others each centre the
leader keeps counts against them. A power near its end is finished: its centres draw this power's own
candidates and count more to stand on, so that it does not outlive a solo on the few it kept. The weights
were found by playing against DumbBot (docs/bots.md has each step's figures).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence

from dippouch import settings
from dippouch.bots.engine import (
    Hold,
    Move,
    Order,
    PhaseKind,
    Position,
    Support,
    Variant,
    adjudicate,
    all_legal_orders,
)
from dippouch.bots.heuristic import HeuristicBot, Values, captures, weak_powers
from dippouch.bots.memory import Memory
from dippouch.bots.province_value import Worths, movement_orders, worths

REPEATS = 2
"""A candidate that sends a move failed this many movement phases running, unsupported, is not weighed."""
CENTRE = 10.0
LOST = 6.0
DISLODGED = 5.0
KILL = 3.0
"""An other power's unit dislodged."""
EXPOSED = 4.0
"""An own centre another power reaches with more units than this one can hold it with."""
OPEN = 4.0
"""A centre not this power's that it reaches with more units than anyone can hold it with (at 2, a
Turkey of nine centres set up no attack on a held neighbour for years; docs/bots.md, "the Turkish corner")."""
DRIVE = (4.0, 0.0, 6.0)
"""KILL, EXPOSED and OPEN for a power near a solo: the others gang up on it, and it wins by taking, not by
guarding (lone search among six DumbBots, 14 games to 1920: with the weights above throughout 5 wins, these
from 14 of 18 centres on 7, from 12 on 8; milder ones (3, 1, 4) from 10 on, 5)."""
DRIVE_FROM = 2 / 3
"""The share of a solo's centres from which a power drives for it (12 of the standard map's 18)."""
STALE = 400
"""Candidates drawn in a row that were all weighed before: the climb has nowhere new to go."""
REPEAT = 0.3
"""The share of the jittered replies' units (those that stood still last phase) that repeat their last order."""
RIVAL = 3.0
"""What each centre of a power near a solo (another's, from :data:`DRIVE_FROM` of its centres) costs the others:
they take from it and stand in its way before it is too late to."""
PAIRED = 0.3
"""The share of the climb's steps that change two units at once: a move and its support (see :func:`_paired`)."""
TRIPLE = 0.5
"""The share of the paired steps that add a second support to the move where another unit can give it: a
province held with a support falls only to three units at once, which no step of one unit or two reaches from a
set that leaves it alone (a corner power's home centres, held and supported, outlived solos)."""
FINISH = 4.0
"""What standing on a centre of a power near its end (:data:`WEAK` centres or fewer) is worth over any other
centre. A centre is a centre to the score whoever owned it, so a power left on a few centres kept them for
years while its neighbours took from the strong; a solo then ended the game with it alive (a lone DumbBot among
six search powers survived 4 of 14 games on 1 to 7 centres). Taking its last centres also ends a power that
would otherwise stand in a leader's way as somebody's ally."""
WEAK = 3
"""Centres a power owns at most for its centres to be worth :data:`FINISH` more."""
GUARDED = 2.0
"""How much the threat to an own centre adds to its value at most in this level's own candidates, builds and
score (the heuristic's :data:`~dippouch.bots.heuristic.THREATENED`, 3.5, where nothing else weighs the threat):
the score counts an exposed or lost centre against the replies already, and at 3.5 the units stayed home (a
Turkey among six DumbBots held its centres with five units of eight for a decade; docs/bots.md, "the Turkish
corner")."""


class SearchBot:
    """Sampled look-ahead over the heuristic's candidates within ``budget`` seconds a movement decision."""

    name = "search"

    def __init__(
        self,
        budget: float | None = None,
        candidates: int = 10,
        replies: int = 10,
        noise: float = 0.4,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.budget = budget if budget is not None else settings.current().search_budget
        """Seconds a movement decision may take: the installation's ``DIPPOUCH_SEARCH_BUDGET`` unless given."""
        self.clock = clock
        """What the budget is measured by: wall time in play; the benchmark gives CPU time, so that its
        figures do not depend on how busy the machine is."""
        self.candidates = candidates
        self.replies = replies
        self.plain = HeuristicBot()
        self.builder = HeuristicBot(crowding=True, guarded=GUARDED)
        """Retreats and adjustments: the heuristic's, with builds where a new unit has somewhere new to go."""
        self.noisy = HeuristicBot(noise=noise)
        finish = WEAK if FINISH else 0
        self.own = HeuristicBot(finish=finish, guarded=GUARDED)
        self.noisy_own = HeuristicBot(noise=noise, finish=finish, guarded=GUARDED)
        """Its own candidates: the heuristic's, drawn to the centres of powers near their end (:data:`FINISH`);
        the replies stay the plain heuristic's and the DumbBot family's."""
        self.last_evaluations = 0
        """Adjudications the last decision made (for the benchmark)."""
        self.evaluated = 0
        """Adjudications made by every decision so far: the clock of :meth:`count_evaluations`."""
        self.last_replies: list[dict[str, list[Order]]] = []
        """The replies the last movement decision was weighed against (for the benchmark: how often they
        foresaw what the others ordered)."""

    def count_evaluations(self, per_decision: int) -> None:
        """Measure the budget in adjudications, ``per_decision`` a movement decision, rather than in seconds.

        A game from a seed is then played the same on any machine at any load, so that two versions of the bot
        can be compared game by game and a game traced again; in play the budget stays time, which is what a
        deadline is kept in. Replies are drawn before any adjudication, so all of them are drawn."""
        self.budget = float(per_decision)
        self.clock = self._evaluations

    def _evaluations(self) -> float:
        return float(self.evaluated)

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        started = self.clock()
        deadline = started + self.budget
        if variant.calendar.kind(position.phase) is not PhaseKind.MOVEMENT:
            return self.builder.orders(variant, position, power, rng, memory)
        legal = all_legal_orders(variant, position)
        mine = legal.get(power)
        if not mine:
            return []
        own = self.own.orders_from(variant, position, power, mine, rng, memory)
        self.last_evaluations = 0
        # Replies first (the plain heuristic's, then jittered ones), with at most 40% of the budget.
        others = [p for p in variant.power_names if p != power and legal.get(p)]
        replies: list[dict[str, list[Order]]] = []
        last = memory.last if memory is not None else {}
        fall = captures(variant, position)
        worth: dict[str, Worths] = {}

        def modelled(p: str) -> list[Order]:
            if p not in worth:
                worth[p] = worths(variant, position, p, fall)
            return movement_orders(variant, position, p, legal[p], worth[p], rng)

        for r in range(self.replies):
            if replies and self.clock() > started + 0.4 * self.budget:
                break
            # The heuristic's replies (0, 1, then the even ones) and the DumbBot family's (2, 3, then the odd
            # ones): plain, then with every unit that stood still repeating its order, then with some.
            share = 0.0 if r in (0, 2) or not last else 1.0 if r in (1, 3) else REPEAT
            heuristic = r <= 1 or (r >= 4 and r % 2 == 0)
            bot = self.plain if r <= 1 else self.noisy
            reply = {
                p: _repeating(
                    bot.orders_from(variant, position, p, legal[p], rng) if heuristic else modelled(p),
                    p, last, legal[p], variant, share, rng,
                )
                for p in others
            }  # fmt: skip
            if reply not in replies:  # a second copy would only weigh the first twice
                replies.append(reply)
        self.last_replies = replies
        weak = _weak(position, power)
        values = Values(variant, position, power, memory, weak, GUARDED)
        rival = _rival(position, power, values)
        supports = _supports(mine, variant, position, power)

        def weigh(c: list[Order]) -> float | None:
            total = 0.0
            for reply in replies:
                if self.clock() > deadline:
                    return None  # weighed against only some replies: not comparable with the others
                total += _score(adjudicate(variant, position, {**reply, power: c}).next, power, values, rival, weak)
                self.last_evaluations += 1
                self.evaluated += 1
            return total

        best, best_score = own, weigh(own)
        if best_score is None:
            return own
        seen = {frozenset(own)}
        # Then the heuristic's variations, and then changes of one unit's order in the best set so far.
        stale = 0
        while self.clock() < deadline and stale < STALE:
            stale += 1
            if len(seen) < self.candidates:
                c = self.noisy_own.orders_from(variant, position, power, mine, rng, memory)
            elif rng.random() < PAIRED:
                c = _paired(best, supports, mine, variant, rng)
            else:
                c = _neighbour(best, mine, variant, values, rng)
            key = frozenset(c)
            if key in seen:
                continue
            seen.add(key)
            stale = 0
            if memory is not None and _repeats_failure(c, memory, variant):
                continue  # a move that failed twice running, sent a third time without the support it lacked
            score = weigh(c)
            if score is None:
                break
            if score > best_score:
                best, best_score = c, score
        return best


def _neighbour(
    orders: list[Order], legal: Mapping[int, Sequence[Order]], variant: Variant, values: Values, rng: random.Random
) -> list[Order]:
    """``orders`` with one unit's order changed to another of its legal orders (moves, holds and supports of
    own units; never a hand-over or other variant order, nor a move by convoy, which the heuristic weighs with
    the convoying fleets' orders: changed alone, a convoyed move only ever stands still)."""
    prov_of = variant.map.province_of
    # Units at the front (another power's unit within reach) are where a change can alter an adjudication.
    front = [k for k, o in enumerate(orders) if o.unit_loc is not None and values.threat[prov_of(o.unit_loc)] > 0]
    i = rng.choice(front) if front and rng.random() < 0.85 else rng.randrange(len(orders))
    loc = orders[i].unit_loc
    options = next((os_ for lloc, os_ in legal.items() if loc is not None and prov_of(lloc) == prov_of(loc)), ())
    own_places = {prov_of(o.unit_loc) for o in orders if o.unit_loc is not None}
    choices = [
        o
        for o in options
        if isinstance(o, Hold)
        or (isinstance(o, Move) and not o.via_convoy)
        or (isinstance(o, Support) and prov_of(o.target) in own_places)
    ]
    if not choices:
        return orders
    return [*orders[:i], rng.choice(choices), *orders[i + 1 :]]


def _supports(
    legal: Mapping[int, Sequence[Order]], variant: Variant, position: Position, power: str
) -> tuple[list[Support], list[Support]]:
    """The supports one own unit can give another own unit's move, and those of them aimed at a centre not this
    power's or a province another power stands on: the paired steps' choices, the same all decision long."""
    prov_of = variant.map.province_of
    own = {prov_of(loc) for loc in legal}
    centres = position.centres
    every: list[Support] = []
    aimed: list[Support] = []
    for options in legal.values():
        for s in options:
            if not isinstance(s, Support) or s.dest is None or prov_of(s.target) not in own:
                continue
            dest = prov_of(s.dest)
            every.append(s)
            stands = position.units.get(dest)
            other_centre = variant.map.provinces[dest].supply_centre and centres.get(dest) != power
            if other_centre or (stands is not None and stands.power != power):
                aimed.append(s)
    return every, aimed


def _paired(
    orders: list[Order],
    supports: tuple[list[Support], list[Support]],
    legal: Mapping[int, Sequence[Order]],
    variant: Variant,
    rng: random.Random,
) -> list[Order]:
    """``orders`` with one unit moved and another supporting that move (one of ``supports``, from
    :func:`_supports`), and in :data:`TRIPLE` of them a third unit supporting it too where one can.

    A held province falls only to a supported attack: one unit's order changed alone sends the attack
    unsupported (it bounces, and the set scores no better) or supports a move not made, so a climb of one-unit
    steps never reaches the pair. Most pairs go for a centre that is not this power's, or a province another
    power stands on."""
    prov_of = variant.map.province_of
    own_at = {prov_of(o.unit_loc): i for i, o in enumerate(orders) if o.unit_loc is not None}
    every, aimed = supports
    pool = aimed if aimed and rng.random() < 0.8 else every
    if not pool:
        return orders
    s = rng.choice(pool)
    a = own_at[prov_of(s.target)]
    a_loc = orders[a].unit_loc
    dest = prov_of(s.dest) if s.dest is not None else -1
    moves = [
        o
        for lloc, os_ in legal.items()
        if a_loc is not None and prov_of(lloc) == prov_of(a_loc)
        for o in os_
        if isinstance(o, Move) and not o.via_convoy and prov_of(o.dest) == dest
    ]
    if not moves:
        return orders
    out = list(orders)
    out[a] = rng.choice(moves)
    out[own_at[prov_of(s.loc)]] = s
    if rng.random() < TRIPLE:
        seconds = [
            t
            for t in every
            if t.dest is not None
            and prov_of(t.dest) == dest
            and prov_of(t.target) == prov_of(s.target)
            and prov_of(t.loc) != prov_of(s.loc)
        ]
        if seconds:
            t = rng.choice(seconds)
            out[own_at[prov_of(t.loc)]] = t
    return out


def _repeating(
    orders: list[Order],
    power: str,
    last: Mapping[int, tuple[str, Order]],
    legal: Mapping[int, Sequence[Order]],
    variant: Variant,
    share: float,
    rng: random.Random,
) -> list[Order]:
    """``orders`` with a ``share`` of the units that were ``power``'s last movement phase in the same place
    ordered as they were then, where that order is still legal."""
    if share <= 0.0:
        return orders
    prov_of = variant.map.province_of
    out = list(orders)
    for i, o in enumerate(orders):
        loc = o.unit_loc
        if loc is None:
            continue
        was = last.get(prov_of(loc))
        if was is None or was[0] != power or was[1] == o or (share < 1.0 and rng.random() >= share):
            continue
        if was[1] in legal.get(loc, ()):
            out[i] = was[1]
    return out


def _repeats_failure(orders: list[Order], memory: Memory, variant: Variant) -> bool:
    """Whether ``orders`` send a move that failed the last two movement phases running again without more own
    support than it had (the heuristic's candidates never do; a one-unit change of the hill climb may)."""
    prov_of = variant.map.province_of
    supported: dict[tuple[int, int], int] = {}
    for o in orders:
        if isinstance(o, Support) and o.dest is not None:
            key = (prov_of(o.target), prov_of(o.dest))
            supported[key] = supported.get(key, 0) + 1
    for o in orders:
        if isinstance(o, Move):
            key = (prov_of(o.loc), prov_of(o.dest))
            if memory.failures(*key) >= REPEATS and supported.get(key, 0) <= memory.supports_had(*key):
                return True
    return False


def _rival(position: Position, power: str, values: Values) -> str | None:
    """The other power with the most centres, when it owns :data:`DRIVE_FROM` of a solo's or more."""
    sizes: dict[str, int] = {}
    for owner in position.centres.values():
        if owner != power:
            sizes[owner] = sizes.get(owner, 0) + 1
    top = max(sizes, key=lambda p: (sizes[p], p), default=None)
    return top if top is not None and sizes[top] >= DRIVE_FROM * values.to_win else None


def _weak(position: Position, power: str) -> frozenset[str]:
    """The other powers that own :data:`WEAK` centres or fewer (and at least one): the ones to finish."""
    return weak_powers(position, power, WEAK) if FINISH else frozenset()


def _score(
    after: Position, power: str, values: Values, rival: str | None = None, weak: frozenset[str] = frozenset()
) -> float:
    gmap, graph, hooks = values.gmap, values.graph, values.hooks
    centres: Mapping[int, str] = after.centres
    score = 0.0
    held: set[int] = set()
    reach: dict[str, dict[int, float]] = {}
    for prov, unit in after.units.items():
        strength = hooks.unit_strength(unit)
        into = reach.setdefault(unit.power, {})
        for q in values.reach(unit.kind, prov):
            into[q] = into.get(q, 0.0) + strength
        if unit.power == power:
            score += values.of(unit.kind, prov)
            if gmap.provinces[prov].supply_centre:
                held.add(prov)
                if centres.get(prov) in weak:
                    score += FINISH
        elif centres.get(prov) == power:
            score -= LOST
    if rival is not None and RIVAL:
        stood = {
            prov for prov, unit in after.units.items() if unit.power == rival and gmap.provinces[prov].supply_centre
        }
        taken = {prov for prov, unit in after.units.items() if unit.power != rival and centres.get(prov) == rival}
        score -= RIVAL * len(({p for p, o in centres.items() if o == rival} - taken) | stood)
    owned = {p for p, o in centres.items() if o == power}
    score += CENTRE * len(owned | held)
    drive = values.mode == "solo" or len(owned) >= DRIVE_FROM * values.to_win
    kill, exposed, open_ = DRIVE if drive else (KILL, EXPOSED, OPEN)
    dislodged: Sequence[object] = [d for d in after.dislodged.values() if d.unit.power == power]
    killed = len(after.dislodged) - len(dislodged)
    score += kill * killed - DISLODGED * len(dislodged)
    mine = reach.get(power, {})
    for sc in graph.centres:
        stands = after.units.get(sc)
        if centres.get(sc) == power:
            if stands is not None and stands.power != power:
                continue  # already counted as lost
            ours = mine.get(sc, 0.0) + (hooks.unit_strength(stands) if stands is not None else 0.0)
            if exposed and any(into.get(sc, 0.0) > ours for p, into in reach.items() if p != power):
                score -= exposed
        elif (ours := mine.get(sc, 0.0)) > 0.0 and (stands is None or stands.power != power):
            hold = max(
                (
                    into.get(sc, 0.0)
                    + (hooks.unit_strength(stands) if stands is not None and stands.power == p else 0.0)
                    for p, into in reach.items()
                    if p != power
                ),
                default=0.0,
            )
            if stands is not None and stands.power not in reach:
                hold = max(hold, hooks.unit_strength(stands))
            if ours > hold:
                score += open_
    return score
