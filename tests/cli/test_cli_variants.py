"""``dippouch variants``: the list a coordinator starts from, one variant's vital signs, clear errors."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from dippouch.catalog import variant_names
from dippouch.cli import app, register_commands

runner = CliRunner()
register_commands()


def test_lists_every_variant_with_its_victory_condition() -> None:
    out = runner.invoke(app, ["variants"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    for name in variant_names():
        assert name in out.output
    assert "25 centres (British, Franks, Polotjans and Dregovites)" in out.output
    assert "31 centres (Byzantines)" in out.output
    assert "plus a capital of each kingdom" in out.output


def test_shows_one_variant() -> None:
    out = runner.invoke(app, ["variants", "standard"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    assert (
        "75 provinces, 34 supply centres (22 owned at the start, 12 neutral), 111 army and 141 fleet borders"
        in out.output
    )
    # The centres owned at the start, per power.
    assert "centres at the start" in out.output
    assert "Moscow, Sevastopol, St Petersburg, Warsaw" in out.output
    assert "starts Spring 1901 Movement" in out.output


def test_unknown_variant_is_a_message_not_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from dippouch.cli import main; main()", "variants", "hundered"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "did you mean 'hundred'" in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------------------------- authors

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from dippouch.catalog import load_variant  # noqa: E402


@pytest.fixture
def user_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user variant folder on DIPPOUCH_VARIANT_PATH and a settings file of the test's own."""
    folder = tmp_path / "variants"
    folder.mkdir()
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    return folder


def test_mapcheck_shows_the_centres_owned_at_the_start() -> None:
    out = runner.invoke(app, ["mapcheck", "1897"])
    assert "centres at the start:" in out.output
    assert "  Russia: (none)" in out.output
    out = runner.invoke(app, ["mapcheck", "standard"])
    assert "  Russia: mos sev stp war" in out.output
    assert "  neutral: bel bul den gre hol nwy por rum ser spa swe tun" in out.output


@pytest.mark.parametrize("extends", [None, "standard", "hundred"])
def test_new_writes_a_skeleton_that_loads_and_checks_clean(user_env: Path, extends: str | None) -> None:
    args = ["variants", "new", "mine", "--dir", str(user_env)] + (["--extends", extends] if extends else [])
    got = runner.invoke(app, args)
    assert got.exit_code == 0, got.output
    path = user_env / "mine.toml"
    assert path.read_text().startswith("# mine:")
    checked = runner.invoke(app, ["variants", "check", str(path)])
    assert checked.exit_code == 0, checked.output
    assert "no problems" in checked.output
    v = load_variant("mine")  # found by name through DIPPOUCH_VARIANT_PATH
    assert v.name == "mine"
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "already exists" in again.output


def test_new_refuses_bad_and_builtin_names(user_env: Path) -> None:
    bad = runner.invoke(app, ["variants", "new", "My Variant!", "--dir", str(user_env)])
    assert bad.exit_code == 2 and "try 'myvariant'" in bad.output
    builtin = runner.invoke(app, ["variants", "new", "standard", "--dir", str(user_env)])
    assert builtin.exit_code == 2 and "'standard' is a built-in variant" in builtin.output
    unknown = runner.invoke(app, ["variants", "new", "x", "--dir", str(user_env), "--extends", "standrd"])
    assert unknown.exit_code == 2 and "did you mean 'standard'" in unknown.output


def test_check_reports_every_problem_with_lines_and_exits_1(user_env: Path) -> None:
    path = user_env / "typos.toml"
    path.write_text(
        '[variant]\nname = "typos"\nextends = "standard"\n\n[calendar]\nstart_yaer = 1898\nstart_step = 9\n'
    )
    got = runner.invoke(app, ["variants", "check", str(path)], env={"COLUMNS": "300"})
    assert got.exit_code == 1
    assert "2 problems" in got.output
    assert f"{path}:6" in got.output and "did you mean 'start_year'" in got.output
    assert f"{path}:7" in got.output and "start_step is 0 to 4" in got.output
    missing = runner.invoke(app, ["variants", "check", str(user_env / "nope.toml")])
    assert missing.exit_code == 2 and "no file" in missing.output


def test_a_broken_user_file_never_hides_the_others(user_env: Path) -> None:
    (user_env / "broken.toml").write_text('[variant]\nname = "broken"\nextends = "standard"\nstart_step = 9\n')
    (user_env / "fine.toml").write_text('[variant]\nname = "fine"\nextends = "standard"\n')
    (user_env / "garbled.toml").write_text("[variant\nname = ")
    got = runner.invoke(app, ["variants"], env={"COLUMNS": "300"})
    assert got.exit_code == 0, got.output
    for name in ("standard", "w3k", "fine"):
        assert name in got.output
    assert "broken" in got.output and "BROKEN" in got.output
    assert "unknown key 'start_step' in [variant]" in got.output
    assert "garbled" in got.output and "not valid TOML" in got.output


def test_a_user_file_does_not_shadow_a_builtin_unless_asked(user_env: Path, tmp_path: Path) -> None:
    # A user standard.toml silently replaced the real one and broke 1897.
    text = (Path(__file__).resolve().parents[2] / "src/dippouch/variants/standard.toml").read_text()
    (user_env / "standard.toml").write_text(text.replace('title = "Standard Diplomacy"', 'title = "My standard"'))
    assert load_variant("standard").title == "Standard Diplomacy"
    assert load_variant("1897").name == "1897"
    listed = runner.invoke(app, ["variants"], env={"COLUMNS": "300"})
    assert "ignored: it would replace the built-in 'standard'" in listed.output
    where = runner.invoke(app, ["variants", "--where"], env={"COLUMNS": "300"})
    assert str(user_env) in where.output and "DIPPOUCH_VARIANT_PATH" in where.output
    assert "built-in" in where.output and "ignored" in where.output
    # Asked for explicitly: the user's standard is used by name, and 1897 still extends the built-in one.
    (tmp_path / "settings.toml").write_text('override_builtins = ["standard"]\n')
    assert load_variant("standard").title == "My standard"
    v1897 = load_variant("1897")
    assert v1897.data["variant"]["extends"] == "standard"
    assert "My standard" not in str(v1897.data)
    where = runner.invoke(app, ["variants", "--where"], env={"COLUMNS": "300"})
    assert "hidden by" in where.output


def test_a_user_file_extending_its_own_name_extends_the_next_one(user_env: Path, tmp_path: Path) -> None:
    (tmp_path / "settings.toml").write_text('override_builtins = ["standard"]\n')
    (user_env / "standard.toml").write_text(
        '[variant]\nname = "standard"\nextends = "standard"\ntitle = "Standard, 20 to win"\n\n[victory]\ncentres = 20\n'
    )
    v = load_variant("standard")
    assert v.title == "Standard, 20 to win" and v.victory["centres"] == 20
    assert len(v.map.provinces) == 76  # the built-in map underneath, no "inheritance cycle"


def test_settings_file_folders_and_its_mistakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "fromsettings.toml").write_text('[variant]\nname = "fromsettings"\nextends = "standard"\n')
    settings = tmp_path / "settings.toml"
    settings.write_text('variant_path = ["mine"]\n')  # relative to the settings file
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(settings))
    monkeypatch.delenv("DIPPOUCH_VARIANT_PATH", raising=False)
    assert load_variant("fromsettings").name == "fromsettings"
    settings.write_text('variant_paths = ["mine"]\n')
    got = runner.invoke(app, ["variants"])
    assert got.exit_code == 2
    assert "unknown setting 'variant_paths'; did you mean 'variant_path'?" in got.output


def test_check_by_path_finds_a_parent_beside_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DIPPOUCH_VARIANT_PATH", raising=False)
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    (tmp_path / "base98.toml").write_text(
        '[variant]\nname = "base98"\nextends = "standard"\n\n[victory]\ncentres = 17\n'
    )
    (tmp_path / "child98.toml").write_text('[variant]\nname = "child98"\nextends = "base98"\n')
    got = runner.invoke(app, ["variants", "check", str(tmp_path / "child98.toml")])
    assert got.exit_code == 0, got.output
    assert load_variant(str(tmp_path / "child98.toml")).victory["centres"] == 17


def test_the_key_of_a_variant_lists_every_abbreviation_with_its_names() -> None:
    out = runner.invoke(app, ["variants", "w3k", "--key"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    rows = {line.split("│")[1].strip(): line for line in out.output.splitlines() if line.count("│") > 4}
    from dippouch.catalog import load_variant

    w3k = load_variant("w3k")
    assert {loc.abbr for loc in w3k.map.locations} <= set(rows)
    assert "Hastings & Pevensey" in rows["hpv"] and "pevensey" in rows["hpv"]
    assert "Berwick-upon-Tweed" in rows["bwk"]
    assert "Caernarfonshire (North Coast)" in rows["cae/nc"]
    assert "oxon" in rows["oxf"]


def test_a_variant_lists_its_units_by_full_names_and_abbreviations_on_request() -> None:
    full = runner.invoke(app, ["variants", "standard"], env={"COLUMNS": "250"}).output
    assert "F St Petersburg (south coast)" in full and "F stp/sc" not in full
    short = runner.invoke(app, ["variants", "standard", "--abbrev"], env={"COLUMNS": "250"}).output
    assert "F stp/sc" in short
    refused = runner.invoke(app, ["variants", "--key"])
    assert refused.exit_code == 2 and "name the variant" in refused.output
