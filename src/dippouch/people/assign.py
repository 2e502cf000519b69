"""Powers for the people who signed up to a game, from their ranked wishes: a fair assignment.

Each person ranks some powers (best first) and may end their list with ``any`` (every power not named is as
good as the next rank); powers left unnamed without ``any`` are their least wanted. The assignment gives
every person exactly one power and no power twice, and among all such assignments takes one whose total
cost is least, a rank costing its square: two people on their second choice beat one on the first and one
on the third (fairer than counting ranks, which sees no difference). Among equally good assignments a seeded
random draw decides; the seed is recorded with the game, so anyone can check the draw again.

Pure: no clock, no I/O, no global random state (the store draws and records the seed).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["ANY", "Assignment", "assign_powers", "rank_of"]

ANY = "any"


@dataclass(frozen=True)
class Assignment:
    powers: dict[int, str]
    """Person -> power."""
    ranks: dict[int, int]
    """Person -> the rank (1 = first choice) their power had in their list."""
    seed: int


def rank_of(preferences: Sequence[str], power: str, n_powers: int) -> int:
    """The rank (1 = first) ``power`` has in a person's ``preferences``: its place in the list; a power not
    named ranks just after the named ones when the list says ``any`` there, else after every power."""
    named = [p for p in preferences if p != ANY]
    if power in named:
        return named.index(power) + 1
    if ANY in preferences:
        return len(preferences[: list(preferences).index(ANY)]) + 1
    return n_powers + 1


def assign_powers(powers: Sequence[str], preferences: Mapping[int, Sequence[str]], seed: int) -> Assignment:
    """Give each person (key of ``preferences``) one of ``powers``, wishes best met (see the module).

    Needs at least as many powers as people; powers left over stay empty."""
    people = sorted(preferences)
    if len(people) > len(powers):
        raise ValueError(f"{len(people)} people for {len(powers)} powers: someone would have no power")
    if len(set(powers)) != len(powers):
        raise ValueError("a power is listed twice")
    if not people:
        return Assignment({}, {}, seed)
    rng = random.Random(seed)
    # The tie-break: the same optimum found from a shuffled order of people and powers, so ties fall by lot.
    order_people = people[:]
    rng.shuffle(order_people)
    order_powers = list(powers)
    rng.shuffle(order_powers)
    n = len(order_powers)
    ranks = [[rank_of(list(preferences[p]), w, n) for w in order_powers] for p in order_people]
    cost = [[r * r for r in row] for row in ranks]
    chosen = _least_cost(cost)
    return Assignment(
        {order_people[i]: order_powers[j] for i, j in enumerate(chosen)},
        {order_people[i]: ranks[i][j] for i, j in enumerate(chosen)},
        seed,
    )


def _least_cost(cost: list[list[int]]) -> list[int]:
    """For each row, its column, so that no column is used twice and the total cost is least: the Hungarian
    method (Kuhn-Munkres with potentials, O(rows^2 x columns)), rows <= columns."""
    rows, cols = len(cost), len(cost[0])
    inf = float("inf")
    u = [0.0] * (rows + 1)
    v = [0.0] * (cols + 1)
    match = [0] * (cols + 1)  # column -> row (1-based; 0 = free)
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        match[0] = i
        j0 = 0
        least = [inf] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = match[j0]
            delta = inf
            j1 = 0
            for j in range(1, cols + 1):
                if used[j]:
                    continue
                cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                if cur < least[j]:
                    least[j] = cur
                    way[j] = j0
                if least[j] < delta:
                    delta = least[j]
                    j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while True:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
            if j0 == 0:
                break
    out = [0] * rows
    for j in range(1, cols + 1):
        if match[j]:
            out[match[j] - 1] = j - 1
    return out
