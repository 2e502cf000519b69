"""Phases and the calendar that orders them.

A calendar is a repeating cycle of steps, each a season label, a phase kind and a year offset, so the
standard year (Spring, Fall, Winter) and Hundred's five-year turns with adjustments every second turn
are the same data with different numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from dippouch.core.derived import Derived
from dippouch.core.errors import PhaseError
from dippouch.core.messages import msg

__all__ = ["Calendar", "Phase", "PhaseKind", "Step"]

I18N_DOMAIN = "rules"
"""The catalogue of the calendar's refusals, said in the reader's language where they are shown (dippouch.saying)."""


def _year_digits(text: str) -> bool:
    """Whether ``text`` is a year as typed: ASCII digits (``str.isdigit`` also takes ``'²'``, which ``int``
    refuses), and few enough that ``int`` is instant (a 5,000-digit "year" is refused, not converted)."""
    return 0 < len(text) <= 9 and text.isascii() and text.isdigit()


class PhaseKind(StrEnum):
    MOVEMENT = "movement"
    RETREATS = "retreats"
    ADJUSTMENTS = "adjustments"

    @property
    def label(self) -> str:
        return self.value.capitalize()


@dataclass(frozen=True, slots=True, order=True)
class Phase:
    """A point in the calendar: the year as shown and the index of the step in the cycle."""

    year: int
    step: int


@dataclass(frozen=True, slots=True)
class Step:
    season: str
    kind: PhaseKind
    offset: int = 0
    """Years after the start of the cycle (Hundred's second turn is 5 years on)."""


@dataclass(frozen=True, slots=True)
class Calendar:
    steps: tuple[Step, ...]
    cycle_years: int
    start: Phase
    last_year: int | None = None
    derived: Derived = field(default_factory=Derived, init=False, repr=False, compare=False)
    """Tables derived from the calendar (the adjudicator's chains of phases), kept with it."""

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Calendar:
        steps = tuple(
            Step(str(s.get("season", "")), PhaseKind(str(s["kind"]).lower()), int(s.get("offset", 0)))
            for s in data["phases"]
        )
        start_year = int(data.get("start_year", 1901))
        start_step = int(data.get("start_step", 0))
        last = data.get("last_year")
        return cls(steps, int(data.get("cycle_years", 1)), Phase(start_year, start_step), int(last) if last else None)

    def kind(self, phase: Phase) -> PhaseKind:
        return self.steps[phase.step].kind

    def season(self, phase: Phase) -> str:
        return self.steps[phase.step].season

    def name(self, phase: Phase) -> str:
        """``"Spring 1901 Movement"``; a step without a season label reads ``"1425 Movement"``."""
        step = self.steps[phase.step]
        parts = [step.season, str(phase.year), step.kind.label]
        return " ".join(p for p in parts if p)

    def next(self, phase: Phase) -> Phase:
        base = phase.year - self.steps[phase.step].offset
        step = phase.step + 1
        if step == len(self.steps):
            step = 0
            base += self.cycle_years
        return Phase(base + self.steps[step].offset, step)

    def following(self, phase: Phase, kinds: Sequence[PhaseKind]) -> Phase:
        """The next phase whose kind is one of ``kinds`` (skipping, say, retreats nobody needs)."""
        p = self.next(phase)
        for _ in range(len(self.steps) + 1):
            if self.kind(p) in kinds:
                return p
            p = self.next(p)
        raise PhaseError(msg("calendar has no phase of kinds %(kinds)s", kinds=str(kinds)))

    def parse(self, text: str) -> Phase:
        """Read a phase name as :meth:`name` writes it, case-insensitively, tolerant of spacing.

        Also accepts the short forms ``S1901M``/``F1901R``/``W1901A`` where season initials are unique.
        """
        words = text.replace(",", " ").split()
        if not words:
            raise PhaseError(msg("empty phase name"))
        compact = text.strip().upper()
        if len(words) == 1 and len(compact) >= 2 and _year_digits(compact[:-1]) and compact[-1] in "MRA":
            # Seasonless short form ("1430A") for calendars whose steps have no season labels.
            kinds = [i for i, s in enumerate(self.steps) if not s.season and s.kind.value[0].upper() == compact[-1]]
            if kinds:
                return self._in_year(int(compact[:-1]), kinds, text)
        year_idx = next((i for i, w in enumerate(words) if _year_digits(w.lstrip("-"))), None)
        if year_idx is None:
            if len(compact) >= 3 and _year_digits(compact[1:-1]):
                return self._from_short(compact, text)
            raise PhaseError(
                msg(
                    "phase %(phase)s has no year; expected e.g. %(example)s",
                    phase=repr(text),
                    example=repr(self.name(self.start)),
                )
            )
        year = int(words[year_idx])
        season = " ".join(words[:year_idx]).lower()
        kind_word = " ".join(words[year_idx + 1 :]).lower()
        candidates = []
        for i, s in enumerate(self.steps):
            if s.season.lower() != season:
                continue
            if kind_word and not s.kind.value.startswith(kind_word.rstrip("s")[:4]):
                continue
            candidates.append(i)
        if not candidates:
            seasons = sorted({s.season for s in self.steps if s.season})
            known = ", ".join(f"{s.season + ' ' if s.season else ''}{s.kind.label}" for s in self.steps)
            raise PhaseError(
                msg(
                    "no phase %(phase)s in this calendar (seasons: %(seasons)s; phases: %(phases)s)",
                    phase=repr(text),
                    seasons=", ".join(seasons) or "none",
                    phases=known,
                )
            )
        return self._in_year(year, candidates, text)

    def _in_year(self, year: int, candidates: Sequence[int], text: str) -> Phase:
        """The first candidate step that falls in ``year``.

        In a cycle longer than a year (Hundred: two five-year turns), "1430 Movement" is the second
        turn's movement step, not the first's: a step only occurs in years ``offset`` after a cycle start.
        """
        first = self.start.year - self.steps[self.start.step].offset
        for i in candidates:
            if (year - self.steps[i].offset - first) % self.cycle_years == 0:
                return Phase(year, i)
        starts = sorted({first + self.steps[i].offset for i in candidates})
        when = " or ".join(
            f"{', '.join(str(y + k * self.cycle_years) for k in range(3))}, ... (every {self.cycle_years} years)"
            for y in starts
        )
        raise PhaseError(
            msg("no phase %(phase)s in this calendar: that step happens only in %(when)s", phase=repr(text), when=when)
        )

    def _from_short(self, compact: str, text: str) -> Phase:
        season_c, year, kind_c = compact[0], int(compact[1:-1]), compact[-1]
        steps = [
            i
            for i, s in enumerate(self.steps)
            if s.season[:1].upper() == season_c and s.kind.value[0].upper() == kind_c
        ]
        if steps:
            return self._in_year(year, steps, text)
        raise PhaseError(msg("no phase %(phase)s in this calendar", phase=repr(text)))
