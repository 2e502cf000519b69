"""The table's proposals through every door: the player's page (its forms and the _proposals.html part), the
JSON API (/api/games/{name}/powers/{power}/proposals), the command line (``dippouch propose``/``ballot``) and
DAIDE's DRW with powers: the same use case (dippouch.play.votes), the same result, the same refusal; and the
ballots shown as the game allows (by power in an open game, as counts under a secret ballot)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.store import status as store_status
from websupport import Site, page_words

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
KINDS = ("pause", "extend", "cancel", "concede", "draw")


def _site(tmp_path: Path, **form: str) -> tuple[Site, dict[str, Any]]:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    site.new_game("demo", **form)
    players = {p: site.player("demo", p, f"{p} player") for p in POWERS}
    return site, players


def _values(kind: str) -> dict[str, Any]:
    values: dict[str, dict[str, Any]] = {"pause": {"hours": 24}, "extend": {"hours": 12}, "concede": {"to": "Turkey"}}
    return values.get(kind, {})


def _propose(site: Site, door: str, players: dict[str, Any], kind: str, tmp_path: Path) -> str:
    values = _values(kind)
    if door == "cli":
        register_commands()
        args = ["propose", "demo", "France", kind, "--db", f"sqlite:///{tmp_path / 'g.db'}"]
        if "hours" in values:
            args += ["--hours", str(values["hours"])]
        if "to" in values:
            args += ["--to", values["to"]]
        return str(CliRunner().invoke(app, [*args, "--now", site.clock().isoformat()]).output)
    if door == "api":
        return str(
            site.api(players["France"], "/api/games/demo/powers/France/proposals", {"kind": kind, **values}).text
        )
    r = site.post_form(players["France"], "/games/demo/play/France/proposals", {"kind": kind, **values})
    assert r.status_code == 303, r.text
    return html.unescape(str(players["France"].get(r.headers["location"]).text))


def _ballot(site: Site, door: str, players: dict[str, Any], power: str, pid: int, yes: bool, tmp_path: Path) -> str:
    if door == "cli":
        args = ["ballot", "demo", power, str(pid), "--yes" if yes else "--no"]
        args += ["--db", f"sqlite:///{tmp_path / 'g.db'}", "--now", site.clock().isoformat()]
        return str(CliRunner().invoke(app, args).output)
    if door == "api":
        url = f"/api/games/demo/powers/{power}/proposals/{pid}/ballot"
        return str(site.api(players[power], url, {"yes": yes}).text)
    url = f"/games/demo/play/{power}/proposals/{pid}/ballot"
    r = site.post_form(players[power], url, {"yes": "yes" if yes else "no"})
    assert r.status_code == 303, r.text
    return html.unescape(str(players[power].get(r.headers["location"]).text))


@pytest.mark.parametrize("door", ["web", "api", "cli"])
@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_passes_through_each_door(tmp_path: Path, door: str, kind: str) -> None:
    site, players = _site(tmp_path)
    store = site.web.store
    before = store_status.status(store, "demo", now=site.clock())
    said = _propose(site, door, players, kind, tmp_path)
    assert "Proposal 1 is open" in said, said
    for power in ("Austria", "England", "Germany", "Italy", "Russia"):
        _ballot(site, door, players, power, 1, True, tmp_path)
    said = _ballot(site, door, players, "Turkey", 1, True, tmp_path)
    assert "Proposal 1 passed" in said, said
    st = store_status.status(store, "demo", now=site.clock())
    if kind == "pause":
        assert st.state == "paused"
    elif kind == "extend":
        assert before.deadline is not None and st.deadline is not None
        assert (st.deadline - before.deadline).total_seconds() == 12 * 3600
    else:
        assert st.state == "finished" and st.ending is not None
        assert st.ending.kind == {"cancel": "cancelled", "concede": "victory", "draw": "draw"}[kind]
        assert "THE GAME IS OVER" in said or st.ending.text.split(":")[0] in said, said


@pytest.mark.parametrize("door", ["web", "api", "cli"])
def test_a_refusal_is_the_same_words_at_every_door(tmp_path: Path, door: str) -> None:
    site, players = _site(tmp_path, scoring="sos")
    if door == "cli":
        args = ["propose", "demo", "France", "draw", "--power", "France", "--power", "Italy"]
        args += ["--db", f"sqlite:///{tmp_path / 'g.db'}", "--now", site.clock().isoformat()]
        register_commands()
        said = str(CliRunner().invoke(app, args).output)
    elif door == "api":
        r = site.api(
            players["France"],
            "/api/games/demo/powers/France/proposals",
            {"kind": "draw", "powers": ["France", "Italy"]},
        )
        assert r.status_code == 400
        said = str(r.text)
    else:
        r = site.post_form(
            players["France"],
            "/games/demo/play/France/proposals",
            {"kind": "draw", "powers": ["France", "Italy"]},
            headers={"Referer": "http://testserver/games/demo/play/France"},
        )
        said = (
            html.unescape(str(players["France"].get(r.headers.get("location", "/games/demo/play/France")).text))
            if r.status_code == 303
            else html.unescape(r.text)
        )
    assert "scores a draw the same whoever it names" in " ".join(said.split()), said
    assert store_status.status(site.web.store, "demo", now=site.clock()).state != "finished"


def test_the_page_shows_who_voted_what_in_an_open_game_and_counts_under_a_secret_ballot(tmp_path: Path) -> None:
    site, players = _site(tmp_path)
    site.post_form(players["France"], "/games/demo/play/France/proposals", {"kind": "extend", "hours": "6"})
    site.post_form(players["England"], "/games/demo/play/England/proposals/1/ballot", {"yes": "no"})
    page = page_words(players["Italy"].get("/games/demo/play/Italy").text)
    assert "Proposed by France." in page and "Yes: France." in page and "No: England." in page
    assert "refused" in page

    (tmp_path / "s").mkdir()
    secret, sp = _site(tmp_path / "s", secret_ballot="on")
    secret.post_form(sp["France"], "/games/demo/play/France/proposals", {"kind": "extend", "hours": "6"})
    secret.post_form(sp["England"], "/games/demo/play/England/proposals/1/ballot", {"yes": "yes"})
    page = page_words(sp["Italy"].get("/games/demo/play/Italy").text)
    assert "2 yes, 0 no; 7 yes needed." in page
    assert "Yes: France" not in page and "Proposed by France" not in page
    own = page_words(sp["England"].get("/games/demo/play/England").text)
    assert "You voted yes." in own
    got = secret.browser().get("/api/games/demo/powers/Italy/proposals")
    assert got.status_code in (401, 403)
    api = sp["Italy"].get("/api/games/demo/powers/Italy/proposals").json()
    assert api["secret"] is True and api["entries"][0]["ballots"] is None and api["entries"][0]["proposer"] is None


def test_the_api_withdraws_and_lists(tmp_path: Path) -> None:
    site, players = _site(tmp_path)
    r = site.api(players["France"], "/api/games/demo/powers/France/proposals", {"kind": "cancel"})
    assert r.status_code == 200, r.text
    assert r.json()["proposal"]["status"] == "open"
    r = site.api(players["England"], "/api/games/demo/powers/England/proposals/1/withdraw")
    assert r.status_code == 400 and "only France, who proposed it" in r.text
    r = site.api(players["France"], "/api/games/demo/powers/France/proposals/1/withdraw")
    assert r.json()["proposal"]["status"] == "withdrawn"
    listed = players["France"].get("/api/games/demo/powers/France/proposals").json()
    assert [e["status"] for e in listed["entries"]] == ["withdrawn"]
    assert listed["rule"] == "unanimous" and "process" not in listed["kinds"]
