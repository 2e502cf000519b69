"""A mail's vote lines ("Vote draw", "Vote yes 1", "Vote no 1") are read by the mail reader's table of instruction
lines (dippouch.game.read_version_lines, beside "Ready" and "Version 2") and done by the table's use case
(dippouch.play.votes.from_lines, from play.orders.send_orders): the same proposal and ballots as the page's, the
orders beside them taken as sent. A mail taken in with dippouch.mail.intake.take_in, as the fetch does."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.game import read_version_lines
from dippouch.mail.intake import take_in
from dippouch.play import votes
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from websupport import Site

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _mail(power: str, body: str) -> bytes:
    m = EmailMessage()
    m["From"] = f"{power.lower()}@example.org"
    m["To"] = "judge@example.org"
    m["Subject"] = f"demo - {power} - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(email.utils.localtime())
    m.set_content(body)
    return m.as_bytes()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@example.org")
    settings.reread()
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo")
    for power in POWERS:
        store_games.assign(s.web.store, "demo", power, power, now=s.clock(), email=f"{power.lower()}@example.org")
    yield s


def test_the_reader_takes_vote_lines_out_of_the_orders() -> None:
    got = read_version_lines("A Par - Bur\nVOTE DRAW\nvote yes 3\nVote no on proposal #4\nvote withdraw 5\n")
    assert got.votes == (("draw", None), ("yes", 3), ("no", 4), ("withdraw", 5))
    assert got.text.split("\n")[0] == "A Par - Bur" and "vote" not in got.text.lower()


def test_vote_draw_by_mail_proposes_and_votes_the_draw_of_every_survivor(site: Site) -> None:
    store: GameStore = site.web.store
    take_in(store, _mail("France", "A Par - Bur\nVote draw\n"), now=site.clock())
    [p] = votes.proposals(store, "demo", now=site.clock())
    assert p.kind == "draw" and p.ballots == {"France": True} and "powers" not in p.values
    lines = store_history.phase_record(store, "demo", "Spring 1901 Movement", open_ok=True)["submissions"][0]["lines"]
    assert [ln["order"] for ln in lines if not ln.get("error")] == ["A par - bur"]
    take_in(store, _mail("England", "Vote no 1\n"), now=site.clock())
    [p] = votes.proposals(store, "demo", now=site.clock())
    assert p.status == "refused" and p.ballots["England"] is False
    for power in ("Austria", "Germany", "Italy", "Russia", "Turkey", "England", "France"):
        take_in(store, _mail(power, "Vote draw\n"), now=site.clock())
    st = store_status.status(store, "demo", now=site.clock())
    assert st.ending is not None and st.ending.kind == "draw"


def test_the_receipt_of_a_letter_with_vote_lines_says_what_each_did_in_the_games_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The votes act before the orders' transaction, so the receipt made inside it reports each line: the
    proposal opened, a ballot refused with the reason, and the proposal a last yes decided (it said nothing
    of them: the receipt was written before the votes acted)."""
    from dippouch.game import GameSettings
    from dippouch.store.mail.models import OutboxRow

    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@example.org")
    settings.reread()
    store = GameStore(migrated_sqlite(tmp_path / "de.db"))
    store_games.create_game(
        store, "demo", "standard", now=T0, settings=GameSettings(language="de", vote_rule="majority")
    )
    for power in POWERS:
        store_games.assign(store, "demo", power, power, now=T0, email=f"{power.lower()}@example.org")

    def receipt(power: str, body: str) -> str:
        got = take_in(store, _mail(power, body), now=T0)
        assert got.status == "accepted", got.reason
        with store.session() as s:
            rows = [r.body for r in s.query(OutboxRow).order_by(OutboxRow.id) if r.kind == "receipt"]
        return rows[-1]

    body = receipt("France", "A Par - Bur\nVote draw\nVote yes 9\n")
    assert "Vorschlag 1 ist offen: ein Remis aller überlebenden Mächte (1 von 4 Ja-Stimmen)." in body
    assert "die Partie 'demo' hat keinen Vorschlag Nummer 9" in body
    assert "Proposal" not in body and "A Paris - Burgundy" in body  # the orders beside them taken as sent
    for power in ("England", "Germany", "Italy"):
        receipt(power, "Vote no 1\n")
    body = receipt("Russia", "A Mos - Ukr\nVote no 1\n")
    assert "Vorschlag 1 ist abgelehnt: ein Remis aller überlebenden Mächte." in body, body
    # A last yes that ends the game: the orders beside it come too late, and the reply says why and what passed.
    receipt("France", "Vote draw\n")
    for power in ("England", "Germany"):
        receipt(power, "Vote yes 2\n")
    got = take_in(store, _mail("Italy", "A Ven - Pie\nVote yes 2\n"), now=T0)
    st = store_status.status(store, "demo", now=T0)
    assert st.ending is not None and st.ending.kind == "draw"
    with store.session() as s:
        last = [r.body for r in s.query(OutboxRow).order_by(OutboxRow.id) if r.to_addr == "italy@example.org"][-1]
    assert "Vorschlag 2 ist angenommen: ein Remis aller überlebenden Mächte." in last, (got, last)
