"""A game's own copy of its variant: stored when the game was created, so editing a variant file never
changes a running game; compared with the file as it is now (:func:`variant_drift`), and replaced by it
only when the coordinator says so and the game's position still fits (:func:`upgrade_variant`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dippouch.catalog import load_variant
from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, hint, msg
from dippouch.core.variant import Variant, content_hash, play_hash
from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.rows import active_phases, current_phase, game_row, game_variant, log_event

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["VariantDrift", "options_of", "position_fits", "upgrade_variant", "variant_drift", "variant_of"]


@dataclass(frozen=True)
class VariantDrift:
    """How a game's stored variant compares with its file on disk today."""

    game: str
    variant: str
    stored_hash: str | None
    """``None``: a game from before migration 0004 whose file could not be read then (loaded by name)."""
    file_hash: str | None
    """``None`` when the file cannot be loaded now (``problem`` says why)."""
    problem: str | None = None
    same_rules: bool | None = None
    """Whether the two agree on everything but how the map is drawn (``None``: no stored data to compare)."""

    @property
    def changed(self) -> bool:
        """Whether the file now plays differently: drawing keys alone (shapes, colours) do not count."""
        if self.stored_hash is None or self.file_hash is None or self.file_hash == self.stored_hash:
            return False
        return self.same_rules is not True

    @property
    def note(self) -> Msg | None:
        """One line for ``status``, or ``None`` when the file and the game's copy agree."""
        if self.stored_hash is None:
            return None
        if self.problem is not None:
            return msg(
                "the variant file of %(variant)s cannot be loaded now (%(problem)s); the game plays from its stored "
                "copy",
                variant=repr(self.variant),
                problem=self.problem.splitlines()[0],
            )
        if self.changed:
            return msg(
                "the variant file of %(variant)s has changed since this game began (game's copy %(stored)s, file "
                "%(file)s); the game plays its own copy until %(hint)s",
                variant=repr(self.variant),
                stored=self.stored_hash[:12],
                file=str(self.file_hash)[:12],
                hint=hint("run-upgrade-variant", "`dippouch upgrade-variant %(game)s`", game=self.game),
            )
        return None


def variant_of(db: Database, name: str) -> Variant:
    """The variant game ``name`` plays: its stored copy (see :func:`dippouch.store.rows.game_variant`)."""
    with db.session() as s:
        return game_variant(game_row(s, name))


def variant_drift(db: Database, name: str) -> VariantDrift:
    """Compare the game's stored variant with its file as it is now."""
    with db.session() as s:
        g = game_row(s, name)
        stored, variant, options = g.variant_hash, g.variant, dict(g.options)
        stored_data = g.variant_data
    try:
        now = load_variant(variant, options)
    except DippouchError as e:
        return VariantDrift(name, variant, stored, None, str(e))
    # Rules are compared without the drawing keys: a redrawn or recoloured map changes no running game.
    same_rules = None if stored_data is None else play_hash(stored_data) == play_hash(dict(now.data))
    return VariantDrift(name, variant, stored, content_hash(dict(now.data)), same_rules=same_rules)


def upgrade_variant(
    db: Database, name: str, *, now: datetime, check_only: bool = False
) -> tuple[VariantDrift, list[Msg]]:
    """Switch a game to its variant file as it is now, if the game's position still fits the new data.

    Returns the comparison as it was before (``changed`` false: nothing to do) and the problems found.

    Every unit, dislodged unit, owned and home centre of the current position (and every seated power)
    must exist on the new map: otherwise nothing changes and the problems are returned. The copy the
    game played until now is kept in the event log (``variant_upgraded``), so nothing stored is lost.
    """
    now = as_utc(now)
    drift = variant_drift(db, name)
    if drift.problem is not None:
        raise GameError(msg("cannot upgrade %(game)s: %(reason)s", game=repr(name), reason=drift.problem))
    if drift.stored_hash is not None and not drift.changed:
        return drift, []
    new = load_variant(drift.variant, options_of(db, name))
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        ph = current_phase(s, g)
        if ph is not None:
            pos_data = ph.position
        else:
            last = active_phases(s, g)[-1]
            pos_data = last.next_position or last.position
        problems = position_fits(new, pos_data)
        for r in g.players:
            if r.replaced_at is None:
                try:
                    new.power(r.power)
                except KeyError as e:
                    problems.append(msg("player %(name)s: %(problem)s", name=r.name, problem=str(e.args[0])))
        if problems or check_only:
            return drift, problems
        data = dict(new.data)
        old = {"hash": g.variant_hash, "data": g.variant_data}
        g.variant_data = data
        g.variant_hash = content_hash(data)
        log_event(
            s,
            g,
            now,
            "variant_upgraded",
            previous_hash=old["hash"],
            new_hash=g.variant_hash,
            previous_data=old["data"],
        )
    return drift, []


def options_of(db: Database, name: str) -> dict[str, Any]:
    """The variant options the game was created with."""
    with db.session() as s:
        return dict(game_row(s, name).options)


def position_fits(v: Variant, data: Mapping[str, Any]) -> list[Msg]:
    """Every reason the stored position ``data`` cannot be read on variant ``v`` (empty when it fits).

    Each unit, dislodged unit and centre is read on its own, so one missing province does not hide the rest.
    """
    from dippouch.core.jsonio import JsonInputError, position_from_json

    problems: list[Msg] = []

    def attempt(label: Msg, part: dict[str, Any]) -> bool:
        try:
            position_from_json(v, {"phase": data.get("phase"), "units": [], "supply_centers": {}, **part})
        except JsonInputError as e:
            problems.append(msg("%(what)s: %(problem)s", what=label, problem=e.msg))
            return False
        return True

    if not attempt(msg("the phase"), {}):
        return problems
    for u in data.get("units", []):
        attempt(msg("unit %(unit)s (%(power)s)", unit=str(u.get("unit")), power=str(u.get("power"))), {"units": [u]})
    for d in data.get("dislodged", []):
        attempt(
            msg("dislodged %(unit)s (%(power)s)", unit=str(d.get("unit")), power=str(d.get("power"))),
            {"dislodged": [d]},
        )
    for key in ("supply_centers", "home_centers"):
        for power, provs in dict(data.get(key, {})).items():
            for p in provs:
                label = (
                    msg("centre %(place)s (%(power)s)", place=str(p), power=str(power))
                    if key == "supply_centers"
                    else msg("home centre %(place)s (%(power)s)", place=str(p), power=str(power))
                )
                attempt(label, {key: {power: [p]}})
    return problems
