"""Mistakes in a variant file are errors with file, line and the closest valid key, all at once.

Each test writes the kind of file a new variant author writes (extending standard, outside the package)
with one or more typical mistakes, and checks the message says where and what was meant.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.errors import UnknownVariantError, VariantError


def _write(folder: Path, name: str, text: str) -> Path:
    p = folder / f"{name}.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _problems(path: Path) -> str:
    with pytest.raises(VariantError) as e:
        load_variant(str(path))
    return str(e.value)


HEAD = '[variant]\nname = "{name}"\nextends = "standard"\n'


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_unknown_keys_are_errors_with_line_and_the_key_meant(tmp_path: Path) -> None:
    text = (
        HEAD.format(name="s1")
        + '\n[calendar]\nstart_yaer = 1898\n\n[victroy]\ncentres = 18\n\n[powers.Austria]\ncenters = ["tri"]\n'
    )
    got = _problems(_write(tmp_path, "s1", text))
    assert f"s1.toml:{_line(text, 'start_yaer')}" in got
    assert "unknown key 'start_yaer' in [calendar]; did you mean 'start_year'?" in got
    assert "unknown key 'victroy' in the file's top level; did you mean 'victory'?" in got
    assert f"s1.toml:{_line(text, 'victroy')}" in got
    assert "unknown key 'centers' in [powers.Austria]; did you mean 'centres'?" in got
    assert f"s1.toml:{_line(text, 'centers')}" in got
    assert "3 problems" in got  # all at once


def test_contract_spelling_supply_centers_points_at_centres(tmp_path: Path) -> None:
    text = HEAD.format(name="s2") + '\n[powers.Austria]\nsupply_centers = ["tri"]\nhome_centers = ["tri"]\n'
    got = _problems(_write(tmp_path, "s2", text))
    assert "unknown key 'supply_centers' in [powers.Austria]; did you mean 'centres'?" in got
    assert "unknown key 'home_centers' in [powers.Austria]; did you mean 'home_centres'?" in got


@pytest.mark.parametrize(
    ("value", "message"), [("9", "9 is out of range: there are 5 phases"), ("-1", "must be 0 or more")]
)
def test_start_step_out_of_range(tmp_path: Path, value: str, message: str) -> None:
    text = HEAD.format(name="s3") + f"\n[calendar]\nstart_step = {value}\n"
    got = _problems(_write(tmp_path, "s3", text))
    assert message in got
    assert "calendar.start_step (" in got and f"s3.toml:{_line(text, 'start_step')}" in got


def test_wrong_types_and_negative_numbers(tmp_path: Path) -> None:
    text = (
        HEAD.format(name="s4")
        + '\n[calendar]\nstart_year = "1898"\ncycle_years = 0\n\n[victory]\ncentres = -3\n\n'
        + '[provinces.bel]\nsc = "yes"\npoint = [4.5]\n'
    )
    got = _problems(_write(tmp_path, "s4", text))
    assert "calendar.start_year" in got and "not the text '1898' (write the number without quotes)" in got
    assert "calendar.cycle_years" in got and "0 is out of range: must be 1 or more" in got
    assert "victory.centres" in got and "-3 is out of range" in got
    assert "provinces.bel.sc" in got and "must be true or false" in got
    assert "provinces.bel.point" in got and "[longitude, latitude]" in got


def test_misspelt_power_in_its_own_table_and_in_other_tables(tmp_path: Path) -> None:
    text = (
        HEAD.format(name="s5")
        + '\n[victory]\nby_power = { Frnace = 20 }\n\n[rules]\nextra_build_centres = { Englnd = ["bel"] }\n\n'
        + "[powers.Frnace]\ncentres = []\n"
    )
    got = _problems(_write(tmp_path, "s5", text))
    assert "powers.Frnace" in got and "did you mean France?" in got
    assert f"s5.toml:{_line(text, '[powers.Frnace]')}" in got
    assert "victory.by_power.Frnace" in got and "no power 'Frnace'; did you mean France?" in got
    assert "rules.extra_build_centres.Englnd" in got and "did you mean England?" in got


def test_unknown_rule_names_and_build_sites_values(tmp_path: Path) -> None:
    text = HEAD.format(name="s6") + '\n[rules]\nbuild_sites = "ownd"\nbuild_sitse = "owned"\nphase_end = ["nope"]\n'
    got = _problems(_write(tmp_path, "s6", text))
    assert "no behaviour 'ownd' for build_sites; did you mean 'owned'?" in got
    assert re.search(r"Known: home, owned, ", got)
    assert "unknown key 'build_sitse' in [rules]; did you mean 'build_sites'?" in got
    assert "no behaviour 'nope' for phase_end" in got


def test_owned_is_accepted(tmp_path: Path) -> None:
    v = load_variant(str(_write(tmp_path, "s7", HEAD.format(name="s7") + '\n[rules]\nbuild_sites = "owned"\n')))
    assert v.rules["build_sites"] == "owned"


def test_name_must_equal_the_file_stem(tmp_path: Path) -> None:
    text = HEAD.format(name="eighteen98")
    got = _problems(_write(tmp_path, "s8", text))
    assert "name 'eighteen98' differs from the file's name 's8'" in got
    assert f"s8.toml:{_line(text, 'name =')}" in got


def test_extends_an_unknown_variant_names_file_and_line(tmp_path: Path) -> None:
    text = '[variant]\nname = "s9"\nextends = "standrd"\n\n[powers.Austria]\ncentrs = []\n'
    got = _problems(_write(tmp_path, "s9", text))
    assert f"variant.extends ({tmp_path / 's9.toml'}:3)" in got
    assert "no variant 'standrd'; did you mean 'standard'?" in got
    # The file's own mistakes are reported with it, not hidden behind the missing parent.
    assert "unknown key 'centrs'" in got


def test_fleet_on_a_split_coast_gets_the_coast_hint(tmp_path: Path) -> None:
    text = HEAD.format(name="s10") + '\n[powers.Russia]\nunits = ["F stp", "A mos"]\n'
    got = _problems(_write(tmp_path, "s10", text))
    assert "a fleet in St Petersburg stands on one of its coasts: F stp/nc or F stp/sc" in got
    assert f"s10.toml:{_line(text, 'units')}" in got


def test_unknown_province_in_centres_has_the_closest_name(tmp_path: Path) -> None:
    text = HEAD.format(name="s11") + '\n[powers.Austria]\ncentres = ["trieste", "vienna", "budapst"]\n'
    got = _problems(_write(tmp_path, "s11", text))
    assert "unknown province 'budapst'; did you mean 'Budapest'?" in got
    assert "1 problem:" in got  # full names are fine


def test_every_problem_of_a_file_in_one_run(tmp_path: Path) -> None:
    text = (
        '[variant]\nname = "s12"\nextends = "standard"\nmap_hoks = []\n\n[calendar]\nstart_step = 7\n\n'
        '[rules]\nbuild_sites = "ownd"\n\n[powers.Russia]\nunits = ["F stp"]\ncolour = "red"\n'
    )
    got = _problems(_write(tmp_path, "s12", text))
    for needle in ("map_hoks", "start_step", "ownd", "F stp/nc", "colour"):
        assert needle in got, needle
    assert "5 problems" in got


def test_unknown_variant_by_name_still_suggests() -> None:
    with pytest.raises(UnknownVariantError, match="did you mean 'standard'"):
        load_variant("standrd")


def test_builtin_variants_pass_the_schema() -> None:
    from dippouch.catalog import variant_names

    for name in variant_names():
        load_variant(name)  # raises on any problem


def test_option_overrides_are_checked_like_the_file(tmp_path: Path) -> None:
    text = (
        HEAD.format(name="s13") + "\n[options.fast]\ndefault = false\noverrides = { calendar = { start_yr = 1950 } }\n"
    )
    got = _problems(_write(tmp_path, "s13", text))
    assert "options.fast.overrides.calendar.start_yr" in got and "did you mean 'start_year'?" in got
    assert f"s13.toml:{_line(text, 'overrides')}" in got


BAD_SHAPES = {
    "powers.France.units": '[powers.France]\nunits = "A par"\n',
    "provinces.par.army": "[provinces.par]\narmy = [1, 2]\n",
    "provinces.stp.coasts": "[provinces.stp]\ncoasts = [1]\n",
    "provinces.stp.coasts.nc": '[provinces.stp]\ncoasts.nc = "x"\n',
    "calendar.phases": "[calendar]\nphases = [1, 2]\n",
    "calendar.phases.kind": '[calendar]\nphases = [{kind = "moves"}]\n',
    "options.x": "[options]\nx = 3\n",
    "options.x.values": "[options.x]\ndefault = 1\nvalues = [1, 2]\n",
    "options.x.overrides": '[options.x]\ndefault = true\noverrides = "no"\n',
    "powers.France": '[powers]\nFrance = "x"\n',
    "provinces.par": "[provinces]\npar = 5\n",
    "powers.France.letter": '[powers.France]\nletter = "FR"\n',
    "provinces.par.point": '[provinces.par]\npoint = ["a", "b"]\n',
    "provinces.par.type": '[provinces.par]\ntype = "mountain"\n',
    "mapcheck.long_edges": "[mapcheck]\nlong_edges = 5\n",
    "rules.phase_end": "[rules]\nphase_end = 3\n",
    "rules.unit_strength.D": "[rules]\nunit_strength = { D = 0 }\n",
    "rules.opening_sites.France": '[rules]\nopening_sites = { France = ["zzz"] }\n',
    "powers.France.homeland": '[powers.France]\nhomeland = ["zzz"]\n',
    "victory.capitals.A": '[victory]\ncapitals = { A = ["zzz"] }\n',
    "provinces.zzz": '[provinces.zzz]\nname = "Z"\n',
}


@pytest.mark.parametrize("where", sorted(BAD_SHAPES))
def test_a_value_of_the_wrong_shape_is_a_message_never_a_crash(where: str, tmp_path: Path) -> None:
    name = "shape"
    got = _problems(_write(tmp_path, name, HEAD.format(name=name) + "\n" + BAD_SHAPES[where]))
    assert f"- {where} (" in got
