"""The variant, map, ratings and score commands speak the locale's language (``LC_ALL=de_DE.UTF-8``: German,
``fr_FR.UTF-8``: French) from their first line to their last, as their refusals do; in the C locale every line
reads in English as it did. Names (variants, places, games, files) stay as they are written."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.play.records import choose_scoring
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person, seat_person

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


@contextmanager
def speaking(monkeypatch: pytest.MonkeyPatch, locale: str) -> Iterator[None]:
    """The commands run under ``locale``, as a new process started with ``LC_ALL`` would; the settings are read
    again afterwards, so the next test speaks as the environment it had."""
    with monkeypatch.context() as m:
        m.setenv("LC_ALL", locale)
        settings.reread()
        try:
            yield
        finally:
            settings.reread()
    settings.reread()


def run(*args: str, code: int = 0) -> list[str]:
    """The command's lines (stdout and stderr), each without its trailing spaces."""
    register_commands()
    # Wide enough that no cell wraps: the list names each user variant's folder, a long path under pytest's workers.
    got = CliRunner().invoke(app, list(args), env={"COLUMNS": "1000"})
    assert got.exit_code == code, got.output
    assert "Traceback" not in got.output, got.output
    return [line.rstrip() for line in got.output.splitlines()]


@pytest.fixture
def user_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user variant folder on DIPPOUCH_VARIANT_PATH and a settings file of the test's own (not there)."""
    folder = tmp_path / "variants"
    folder.mkdir()
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    return folder


@pytest.fixture
def rated(tmp_path: Path) -> str:
    """Two draws of seven people (Russia holds 4 centres, the rest 3) under sum of squares."""
    url = migrated_sqlite(tmp_path / "g.db")
    store = GameStore(url)
    people = [create_person(store, f"P{i}", now=NOW) for i in range(8)]
    for n, seated in enumerate((people[:7], people[1:])):
        game = f"d{n}"
        store_games.create_game(store, game, "standard", now=NOW)
        choose_scoring(store, game, "sos", now=NOW)
        for power, person in zip(POWERS, seated, strict=True):
            store_games.assign(store, game, power, f"{game} {power}", now=NOW)
            seat_person(store, game, power, person, now=NOW)
        for power in POWERS:
            store_votes.vote(store, game, power, True, now=NOW + timedelta(hours=n + 1))
    return url


def test_a_variant_is_shown_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    with speaking(monkeypatch, "de_DE.UTF-8"):
        lines = run("variants", "standard")
        key = run("variants", "standard", "--key")
        refused = run("variants", "--key", code=2)
    assert (
        "75 Provinzen, 34 Versorgungszentren (22 zu Beginn in Besitz, 12 neutral), 111 Armee- und 141 "
        "Flottengrenzen; Beginn Frühjahr 1901 Bewegung; Sieg: 18 Zentren"
    ) in lines
    assert (
        "Orte mit ihren vollen Namen; `dippouch variants standard --key` listet jede Abkürzung und jeden anderen Namen."
    ) in lines
    heading = next(line for line in lines if "Heimatzentren" in line)
    assert [w.strip() for w in heading.strip("┃").split("┃")] == [
        "Macht",
        "Buchstabe",
        "Heimatzentren",
        "Zentren zu Beginn",
        "Einheiten",
    ]
    assert "Standard Diplomacy: Orte" in key
    ankara = next(line for line in key if line.startswith("│ ank "))
    assert [w.strip() for w in ankara.strip("│").split("│")][2:4] == ["Küste", "ja"]
    assert refused == [
        "error: nennen Sie die Variante, deren Legende gezeigt werden soll, z. B. `dippouch variants w3k --key`"
    ]


def test_an_author_is_told_in_german(user_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    typos = user_env / "typos.toml"
    typos.write_text('[variant]\nname = "typos"\nextends = "standard"\n\n[calendar]\nstart_yaer = 1898\n')
    (user_env / "standard.toml").write_text('[variant]\nname = "standard"\nextends = "standard"\n')
    with speaking(monkeypatch, "de_DE.UTF-8"):
        made = run("variants", "new", "mine", "--dir", str(user_env))
        checked = run("variants", "check", str(user_env / "mine.toml"), "--no-picture")
        wrong = run("variants", "check", str(typos), "--no-picture", code=1)
        where = run("variants", "--where")
        listed = run("variants")
    path = user_env / "mine.toml"
    assert made == [
        f"{path} geschrieben.",
        f"Prüfen Sie sie mit `dippouch variants check {path}`; um sie zu spielen, fügen Sie {user_env} zu "
        "DIPPOUCH_VARIANT_PATH oder zu variant_path in der Einstellungsdatei hinzu (`dippouch variants --where`).",
    ]
    assert checked[-1] == f"{path}: keine Probleme."
    assert f"1 Problem in {typos}:" in wrong
    assert where[0] == "Variantenordner, in dieser Reihenfolge durchsucht:"
    assert f"  1. {user_env}  (DIPPOUCH_VARIANT_PATH)" in where
    assert any(re.fullmatch(r"  \d\. \S+/variants  \(eingebaut\)", line) for line in where), where
    assert f"Einstellungsdatei: {user_env.parent / 'settings.toml'} (keine)" in where
    assert any("│ verwendet" in line for line in where) and not any("│ used" in line for line in where)
    assert (
        f"note: {user_env / 'standard.toml'} ignoriert: sie würde die eingebaute 'standard' ersetzen; benennen Sie "
        f"sie um oder tragen Sie 'standard' unter override_builtins in {user_env.parent / 'settings.toml'} ein"
    ) in listed
    assert any("┃ Herkunft" in line for line in listed) and any("│ eingebaut" in line for line in listed)
    table = "\n".join(listed)
    assert "25 Zentren (British, Franks, Polotjans and Dregovites)" in table
    assert "55 Zentren, dazu eine Hauptstadt jedes Königreichs" in table and "oder 3 verbleibende" in table
    assert "│ typos       │ DEFEKT " in table and "│ 1 Problem, siehe unten " in table


def test_a_map_is_written_and_refused_in_german(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    svg = tmp_path / "x.svg"
    with speaking(monkeypatch, "de_DE.UTF-8"):
        wrote = run("map", "standard", "--out", str(svg))
        refused = run("map", "standard", "--out", "x.gif", code=2)
    size = svg.stat().st_size
    assert size > 1000
    assert wrote == [f"{svg} geschrieben ({size:,} Bytes)".replace(",", ".")]
    assert refused == ["error: das Format ist aus 'x.gif' nicht erkennbar: nennen Sie die Datei .svg, .png oder .pdf"]


def test_a_map_is_written_in_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    svg = tmp_path / "x.svg"
    with speaking(monkeypatch, "fr_FR.UTF-8"):
        wrote = run("map", "standard", "--out", str(svg))
    grouped = f"{svg.stat().st_size:,}".replace(",", "\u202f")  # French groups digits by a narrow no-break space
    assert wrote == [f"{svg} écrit ({grouped} octets)"]


def test_mapcheck_reports_the_drawing_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    with speaking(monkeypatch, "de_DE.UTF-8"):
        lines = run("mapcheck", "standard")
    assert "drawing check (auto names, the sample game's busiest phase as drawn):" not in lines
    assert "Zeichnungsprüfung (Namen auto, die vollste Phase der Beispielpartie, wie gezeichnet):" in lines
    assert "falsch platziert: 0" in lines
    assert lines[lines.index("jede Einheit, die eine Provinz aufnehmen kann, an ihrem Platz:") + 1 :][:3] == [
        "  Einheiten übereinander 0",
        "  Einheiten über Namen 0",
        "  verdeckte Hinweislinien 0",
    ]
    printed = [line for line in lines if line.startswith("gedruckt auf ")]
    assert [line.split(" (")[0] for line in printed] == ["gedruckt auf A4", "gedruckt auf LETTER"]
    for line in printed:
        assert re.fullmatch(
            r"gedruckt auf \w+ \((1 Seite|\d+ Seiten: die Übersicht und \d+ Bl(att|ätter))\): Namen unter 6 pt \d+"
            r"(, .+ \d+)*; Namen auf keiner Seite mit 6 pt oder mehr \d+(: .+)?",
            line,
        ), line


def test_ratings_and_scores_in_german(rated: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with speaking(monkeypatch, "de_DE.UTF-8"):
        nobody = run("ratings", "--db", rated)
        unchecked = run("ratings", "check", "--db", rated, code=1)
        updated = run("ratings", "update", "--db", rated)
        again = run("ratings", "update", "--db", rated)
        boards = run("ratings", "--db", rated)
        checked = run("ratings", "check", "--db", rated)
        chosen = run("score", "d0", "--choose", "sos", "--db", rated, "--now", NOW.isoformat())
        scored = run("score", "d0", "--db", rated, "--now", NOW.isoformat())
    assert nobody == [
        "Noch niemand ist gewertet: Wertungen entstehen aus beendeten Partien mit mindestens zwei Spielern."
    ]
    assert "2 Partien sind in ihrem jetzigen Stand nicht eingerechnet (`dippouch ratings update`)." in unchecked
    assert any(re.fullmatch(r"\d+ Abweichungen?:", line) for line in unchecked), unchecked
    assert len(updated) == 1 and re.fullmatch(
        r"2 Partien eingerechnet, 0 herausgenommen; die Wertungen fortgeschrieben \(\d+,\d\d s\)\.", updated[0]
    ), updated
    assert again == ["Die Wertungen sind auf dem neuesten Stand."]
    assert (
        "Gesamt: 2 gewertete Partien, 8 Personen" in boards
        and "Variante standard: 2 gewertete Partien, 8 Personen" in boards
    )
    heading = next(line for line in boards if "Zuverlässigkeit" in line)
    assert [w.strip() for w in heading.strip("┃").split("┃")] == [
        "Rang",
        "Person",
        "Nr.",
        "Wertung",
        "Partien",
        "Zuverlässigkeit",
    ]
    assert checked == [
        "2 beendete Partien, 2 mit Wertung; 8 Personen in der Gesamtwertung.",
        "Die gespeicherten Wertungen stimmen mit der Neuberechnung überein.",
    ]
    assert chosen == ["Die Partie d0 wird nach Sum of squares (sos) gewertet."]
    assert scored[0] == "d0: Sum of squares (das System der Partie)"
    assert [w.strip() for w in scored[2].strip("┃").split("┃")] == ["Macht", "Zentren", "Punkte"]
    assert scored[-1].startswith("Remis vereinbart"), scored[-1]


def test_ratings_in_french(rated: str, monkeypatch: pytest.MonkeyPatch) -> None:
    run("ratings", "update", "--db", rated)
    with speaking(monkeypatch, "fr_FR.UTF-8"):
        assert run("ratings", "update", "--db", rated) == ["Les cotes sont à jour."]
        assert "Général : 2 parties classées, 8 personnes" in run("ratings", "--db", rated)


def test_the_c_locale_reads_as_before(user_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """English, as the lines read before they were messages (a sentence once broken over two lines is one)."""
    with speaking(monkeypatch, "C"):
        made = run("variants", "new", "mine", "--dir", str(user_env))
        where = run("variants", "--where")
        svg = tmp_path / "x.svg"
        wrote = run("map", "standard", "--out", str(svg))
        drawn = run("mapcheck", "standard")
    path = user_env / "mine.toml"
    assert made == [
        f"Wrote {path}.",
        f"Check it with `dippouch variants check {path}`; to play it, add {user_env} to DIPPOUCH_VARIANT_PATH or to "
        "variant_path in the settings file (`dippouch variants --where`).",
    ]
    assert where[0] == "Variant folders, searched in this order:"
    assert f"  1. {user_env}  (DIPPOUCH_VARIANT_PATH)" in where
    assert any(re.fullmatch(r"  \d\. \S+/variants  \(built-in\)", line) for line in where), where
    assert f"Settings file: {user_env.parent / 'settings.toml'} (none)" in where
    assert wrote == [f"wrote {svg} ({svg.stat().st_size:,} bytes)"]
    assert "drawing check (auto names, the sample game's busiest phase as drawn):" in drawn
    assert "misplaced: 0" in drawn
    assert drawn[drawn.index("every unit a province can hold, at its spot:") + 1 :][:3] == [
        "  units over each other 0",
        "  units over names 0",
        "  leader lines covered 0",
    ]
    assert any(
        re.fullmatch(
            r"printed on A4 \(\d+ pages: the overview and \d+ sheets?\): names under 6 pt \d+(, .+ \d+)*; "
            r"names on no page at 6 pt or more \d+(: .+)?",
            line,
        )
        for line in drawn
    ), drawn
