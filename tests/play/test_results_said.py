"""What the use cases and the layers tell people comes back as message values, said in the reader's language at
the door (issue 53): a seat's change, a vote, a confirmed photograph, an absence policy's notes and what the game
did for an absent player, a photographed line's reading, a variant's rules summary. Each is said in German with
no English sentence left, and in English as it always read."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from typer.testing import CliRunner

from dippouch import settings
from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.core.messages import Msg
from dippouch.game import Ending
from dippouch.mail.ocr import _flag_message
from dippouch.mail.ocr_match import LineReading
from dippouch.play.photos import PhotoConfirmed
from dippouch.play.seats import Seated
from dippouch.play.votes import Voted
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.games import SeatChange
from dippouch.store.people.absences import AbsencePolicy, GameAway, Use, away_for
from dippouch.web.routes.roster import absences_view
from dippouch.web.views.summary import rules_summary

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_a_seats_change_is_said_in_the_readers_language() -> None:
    got = Seated("demo", SeatChange("France", "Bo", "Ann", 7, 2), person_id=3, drawn={1: "Italy", 2: "Turkey"})
    assert say(got.said, "en") == (
        "Bo takes over France in demo from Ann. 2 links of France's player revoked. Ann is told. The address is a "
        "person's: the seat is on their page (Bo). The game is full and starts: 2 powers drawn for those waiting."
    )
    assert got.text == say(got.said, "en")
    german = say(got.said, "de")
    assert german.startswith("Bo übernimmt France in demo von Ann. 2 Links") and "gelost" in german
    for english in ("takes over", "revoked", "is told", "drawn for"):
        assert english not in german
    assert (
        say(Seated("demo", SeatChange("France", "Bo", None, None, 0)).said, "fr")
        == "Bo joue maintenant France dans demo."
    )


def test_a_vote_and_the_end_it_brings_are_said_in_the_readers_language() -> None:
    ending = Ending.of("draw", ("England", "France"), Msg("Draw: %(powers)s.", {"powers": "England, France"}))
    assert say(Voted("France", True, None).said, "de") == "France stimmt für ein Remis."
    assert say(Voted("France", False, None).said, "fr") == "France vote contre une nulle."
    over = say(Voted("France", True, ending).said, "de")
    assert over.startswith("France stimmt für ein Remis. DAS SPIEL IST BEENDET.")
    assert Voted("France", True, ending).text.startswith("France votes for a draw. THE GAME IS OVER.")


def test_a_confirmed_photograph_and_a_flagged_reading_are_said_in_the_readers_language() -> None:
    done = PhotoConfirmed(12, "demo", "France", 3)
    assert say(done.said, "de") == "Foto Nr. 12 als Version 3 von France bestätigt"
    assert done.text == "Photograph #12 confirmed as France version 3"
    line = LineReading(4, "A lvp - lon", "flagged", "A Liverpool - London", 0.62)
    flagged = _flag_message(line)
    assert say(flagged, "en").startswith("not read with confidence (62% sure: not read clearly enough); nearest")
    german = say(flagged, "de")
    assert german.startswith("nicht sicher gelesen (62 % sicher: nicht deutlich genug gelesen); nächster")
    assert "A Liverpool - London" in german and "not" not in german.split()
    assert Msg.from_data(flagged.to_data()) == flagged  # a line check keeps it as a value


def test_what_the_game_did_for_an_absent_player_is_said_in_the_readers_language(tmp_path: object) -> None:
    away = [GameAway("France", "Ann", date(2026, 8, 3), date(2026, 8, 21), _away(), True)]
    uses = [
        Use(
            "Spring 1901 Movement",
            "France",
            "extend",
            0.0,
            _noted("budget spent (%(days)s days): the deadline stands", days=14),
            T0,
        ),
        Use("Fall 1901 Movement", "France", "standing", 0.0, {"carried": ["A par - bur", "F bre - mao"]}, T0),
        Use("Fall 1901 Movement", "Italy", "extend", 0.0, {"note": "an old stored English note"}, T0),
    ]
    view = absences_view(_policy(), away, uses)
    assert say(Msg.from_data(view["away"][0]["text"]), "de") == "abwesend 3.\u201321. Aug."
    assert say(Msg.from_data(view["away"][0]["text"]), "en") == "away 3\u201321 Aug"
    applied = [say(Msg.from_data(u["text"]), "de") for u in view["applied"]]
    assert applied[0] == "France war abwesend: Kontingent aufgebraucht (14 Tage): die Frist bleibt"
    assert applied[1] == "France war abwesend: 2 bestehende Befehle übernommen, andere Einheiten halten"
    assert applied[2] == "Italy war abwesend: an old stored English note"  # kept as it was written
    fogged = absences_view(_policy(), away, uses[1:2], fog=True)
    assert "2" not in say(Msg.from_data(fogged["applied"][0]["text"]), "de")  # how many would tell the power's units


@pytest.mark.parametrize("variant", ["standard", "1000ad", "w3k", "hundred3", "1897"])
def test_a_variants_rules_summary_is_said_in_the_readers_language(variant: str) -> None:
    v = load_variant(variant)
    lines = rules_summary(v)
    assert lines[0] == v.description  # the variant file's own words, as it writes them
    for line in lines[1:]:
        assert isinstance(line, Msg), line
        english, german, french = say(line, "en"), say(line, "de"), say(line, "fr")
        assert german != english and french != english, english
    assert any("supply centres" in say(line, "en") for line in lines[1:])


def test_the_command_line_says_a_seats_change_and_a_vote_in_the_locales_language(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path}/g.db"
    store = GameStore(db)
    try:
        store_games.create_game(store, "demo", "standard", now=T0)
    finally:
        store.close()
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    settings.reread()
    register_commands()
    now = ["--db", db, "--now", T0.isoformat()]
    got = CliRunner().invoke(app, ["players", "assign", "demo", "France", "Ann", *now])
    assert got.exit_code == 0 and "Ann spielt jetzt France in demo." in got.output, got.output
    got = CliRunner().invoke(app, ["vote", "demo", "France", *now])
    assert got.exit_code == 0 and "France stimmt für ein Remis." in got.output, got.output


def _away() -> Msg:
    return away_for(date(2026, 8, 3), date(2026, 8, 21))


def _noted(template: str, **values: int) -> dict[str, object]:
    m = Msg(template, dict(values))
    return {"note": str(m), "note_msg": m.to_data()}


def _policy() -> AbsencePolicy:
    return AbsencePolicy("extend", 14, None, None, False)


def test_the_variant_page_says_its_rules_in_the_readers_language(tmp_path: object) -> None:
    """The page reads the JSON answer's model; its summary is validated in the page's language, not English first
    (German readers got "10 powers, 109 supply centres" although the sentence is translated)."""
    from websupport import Site

    site = Site(f"sqlite:///{tmp_path}/g.db", limits={})
    german = site.browser().get("/variants/w3k", headers={"Accept-Language": "de"}).text
    assert "10 Mächte, 109 Versorgungszentren." in german and "supply centres." not in german
    assert "Sieger muss außerdem eine Hauptstadt" in german
    assert german.count("Ten powers of England, Scotland and Ireland") == 1  # the description once, as written
    answer = site.browser().get("/api/variants/w3k").json()
    assert answer["summary"][1].startswith("10 powers, 109 supply centres.")  # the JSON API: English by default
    assert site.browser().get("/api/variants/w3k?lang=fr").json()["summary"][1].startswith("10 puissances")
