"""The game's rules of procedure with plain values: time, submissions checked line by line, endings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase
from dippouch.core.position import Position, Unit
from dippouch.core.variant import Variant
from dippouch.game import (
    GameError,
    GameSettings,
    check_orders,
    check_victory,
    civil_disorder_streak,
    draw_reached,
    format_duration,
    game_end,
    parse_duration,
    parse_time,
    position_from_data,
    position_to_data,
    powers_to_act,
)


@pytest.fixture(scope="module")
def std() -> Variant:
    return load_variant("standard")


def test_durations() -> None:
    assert parse_duration("12d") == timedelta(days=12)
    assert parse_duration("1d12h") == timedelta(days=1, hours=12)
    assert parse_duration("90m") == timedelta(minutes=90)
    assert parse_duration("2w") == timedelta(days=14)
    assert format_duration(timedelta(days=1, hours=2, minutes=3)) == "1d2h3m"
    for bad in ("", "12", "d12", "12x", "1d 2q"):
        with pytest.raises(GameError, match="cannot read the duration"):
            parse_duration(bad)


def test_parse_time_defaults_to_utc_and_reads_offsets() -> None:
    assert parse_time("2026-11-21T07:00") == datetime(2026, 11, 21, 7, tzinfo=UTC)
    assert parse_time("2026-11-21T07:00Z") == datetime(2026, 11, 21, 7, tzinfo=UTC)
    assert parse_time("2026-11-21T08:00+01:00") == datetime(2026, 11, 21, 7, tzinfo=UTC)
    with pytest.raises(GameError, match="cannot read the time"):
        parse_time("yesterday")


def test_deadline_rounds_up_to_local_time_of_day_across_dst() -> None:
    # W3K: days end at 7 am London time. 12 days from 2026-03-20 10:00 UTC is 2026-04-01 10:00 UTC;
    # the next 07:00 London (BST since 29 March) is 2026-04-02 07:00 BST = 06:00 UTC.
    s = GameSettings(timezone="Europe/London", time_of_day="07:00")
    start = datetime(2026, 3, 20, 10, 0, tzinfo=UTC)
    assert s.deadline("movement", start) == datetime(2026, 4, 2, 6, 0, tzinfo=UTC)
    # In winter (GMT) the same rule lands at 07:00 UTC.
    assert s.deadline("retreats", datetime(2026, 11, 1, 6, 0, tzinfo=UTC)) == datetime(2026, 11, 3, 7, 0, tzinfo=UTC)
    # Exactly on the time of day: no extra day.
    assert s.round_up(datetime(2026, 11, 3, 7, 0, tzinfo=UTC)) == datetime(2026, 11, 3, 7, 0, tzinfo=UTC)
    # Without a time of day a deadline is start + duration.
    plain = GameSettings(deadlines={"movement": "36h"})
    assert plain.deadline("movement", start) == start + timedelta(hours=36)


def test_settings_validation_and_round_trip() -> None:
    s = GameSettings(
        deadlines={"movement": "3d", "retreats": "1d", "adjustments": "1d"}, timezone="America/Mexico_City"
    )
    assert GameSettings.from_data(s.to_data()) == s
    with pytest.raises(GameError, match="unknown time zone"):
        GameSettings(timezone="Mars/Olympus")
    with pytest.raises(GameError, match="unknown phase kind"):
        GameSettings(deadlines={"moves": "3d"})
    with pytest.raises(GameError, match="time of day"):
        GameSettings(time_of_day="7 am")
    assert "GMT" in GameSettings(timezone="Europe/London").describe(datetime(2026, 12, 1, 7, tzinfo=UTC))


def test_position_data_round_trip(std: Variant) -> None:
    data = position_to_data(std, std.start)
    assert data["phase"] == "Spring 1901 Movement"
    assert {"power": "Russia", "unit": "F stp/sc"} in data["units"]
    back = position_from_data(std, data)
    assert dict(back.units) == dict(std.start.units)
    assert dict(back.centres) == dict(std.start.centres)
    assert {k: set(v) for k, v in back.homes.items()} == {k: set(v) for k, v in std.start.homes.items()}
    with pytest.raises(GameError, match=r"units\[0\]\.unit: no province 'xyz'"):
        position_from_data(std, {**data, "units": [{"power": "France", "unit": "A xyz"}]})


def test_check_orders_accepts_and_rejects_line_by_line(std: Variant) -> None:
    text = "\n".join(
        [
            "# France's opening",
            "A Paris -> Burgundy",
            "A mar S A par - bur",
            "F bre - lon",
            "A par - gas",
            "A ber - kie",
            "A mar - xyzzy",
            "Build A par",
        ]
    )
    lines = check_orders(std, std.start, "France", text)
    verdict = {ln.line: (ln.order, ln.error) for ln in lines}
    assert verdict[2] == ("A par - bur", None)
    assert verdict[3] == ("A mar S A par - bur", None)
    errors = {ln.line: str(ln.error or "") for ln in lines}
    # The adjudicator's own reason, with the closest legal orders as a hint.
    assert errors[4].startswith("F Brest cannot reach London") and "F Brest - English Channel" in errors[4]
    assert "already has an order on line 2" in errors[5]
    assert "A Berlin belongs to Germany; France cannot order it" in errors[6]
    assert "xyzzy" in errors[7]
    assert "movement phase" in errors[8]
    assert [ln.line for ln in lines if ln.accepted] == [2, 3]


def test_retreat_and_adjustment_checks(std: Variant) -> None:
    # A dislodged French army in Burgundy that may retreat to Picardy or Gascony.
    from dippouch.core.position import Dislodged

    m = std.map
    bur = m.loc("bur")
    pos = std.start.with_(
        phase=Phase(1901, 1),
        dislodged={m.province_of(bur): Dislodged(Unit("France", "A", bur), frozenset({m.loc("pic"), m.loc("gas")}))},
    )
    lines = check_orders(std, pos, "France", "A bur R pic\nA bur - par\nA mun R boh")
    assert lines[0].accepted and lines[0].order == "A bur R pic"
    assert not lines[1].accepted  # second order for the unit, or an illegal retreat: refused either way
    assert "no dislodged unit in Munich" in (lines[2].error or "")
    assert powers_to_act(std, pos) == ["France"]
    bad = check_orders(std, pos, "France", "A bur R par")[0]
    assert "cannot retreat to Paris" in (bad.error or "") and "Gascony, Picardy" in (bad.error or "")

    # Winter: France owns one more centre than it has units; it may build once, in a vacant home centre.
    units = {p: u for p, u in std.start.units.items() if u.power != "France" or m.provinces[p].abbr != "par"}
    winter = std.start.with_(phase=Phase(1901, 4), units=units)
    lines = check_orders(std, winter, "France", "Build A par\nBuild A mar\nWaive")
    assert lines[0].accepted and lines[0].order == "Build A par"
    assert not lines[1].accepted
    assert not lines[2].accepted and "France has no build to decline" in (lines[2].error or "")
    assert powers_to_act(std, winter) == ["France"]


def _owning(std: Variant, power: str, n: int) -> Position:
    m = std.map
    centres = dict(std.start.centres)
    for c in m.supply_centres:
        if sum(1 for o in centres.values() if o == power) >= n:
            break
        if centres.get(c) != power:
            centres[c] = power
    return std.start.with_(centres=centres)


def test_victory_needs_the_variant_count_and_a_single_leader(std: Variant) -> None:
    assert check_victory(std, std.start) is None
    assert check_victory(std, _owning(std, "France", 17)) is None
    win = _owning(std, "France", 18)
    assert check_victory(std, win) == "France"
    ending = game_end(std, win)
    assert ending is not None and ending.kind == "victory" and ending.powers == ("France",)


def test_last_year_ends_the_game(std: Variant) -> None:
    import dataclasses

    short = dataclasses.replace(std, calendar=dataclasses.replace(std.calendar, last_year=1905))
    assert game_end(short, std.start.with_(phase=Phase(1905, 4))) is None
    ending = game_end(short, std.start.with_(phase=Phase(1906, 0)))
    assert ending is not None and ending.kind == "last_year" and "Russia" in ending.powers


def test_draw_needs_every_surviving_power(std: Variant) -> None:
    s = GameSettings()
    everyone = dict.fromkeys(std.power_names, True)
    assert draw_reached(std, std.start, s, everyone) is not None
    assert draw_reached(std, std.start, s, {**everyone, "Italy": False}) is None
    # A power in civil disorder has no vote; an eliminated power is not a survivor.
    assert draw_reached(std, std.start, s, {**everyone, "Italy": False}, excused=["Italy"]) is not None
    no_italy = std.start.with_(
        units={p: u for p, u in std.start.units.items() if u.power != "Italy"},
        centres={c: o for c, o in std.start.centres.items() if o != "Italy"},
    )
    assert draw_reached(std, no_italy, s, {**everyone, "Italy": False}) is not None
    assert draw_reached(std, std.start, GameSettings(draws=False), everyone) is None


def test_civil_disorder_streak() -> None:
    assert civil_disorder_streak([]) == 0
    assert civil_disorder_streak([True, True, False]) == 0
    assert civil_disorder_streak([False, True, True]) == 2


def test_a_variant_can_name_its_own_victory_test(std: Variant) -> None:
    import dataclasses

    from dippouch.game import VICTORY_HOOKS

    def capitals(variant: Variant, position: Position) -> str | None:
        # e.g. W3K: a power wins holding particular provinces, whatever its count.
        m = variant.map
        owners = {position.centres.get(m.province_of(m.loc(c))) for c in ("lon", "par")}
        return owners.pop() if len(owners) == 1 and None not in owners else None

    VICTORY_HOOKS["test_capitals"] = capitals
    try:
        v = dataclasses.replace(std, victory={"hook": "test_capitals"})
        assert check_victory(v, std.start) is None
        m = std.map
        pos = std.start.with_(centres={**std.start.centres, m.province_of(m.loc("lon")): "France"})
        assert check_victory(v, pos) == "France"
        with pytest.raises(GameError, match="unknown victory hook"):
            check_victory(dataclasses.replace(std, victory={"hook": "nope"}), pos)
    finally:
        del VICTORY_HOOKS["test_capitals"]


def test_orders_without_unit_type_are_stored_canonically(std: Variant) -> None:
    """A player may leave out the unit type; what is stored and reported is the canonical form."""
    checks = check_orders(std, std.start, "France", "Par - Bur\nmar h\n")
    assert [c.order for c in checks] == ["A par - bur", "A mar H"]
