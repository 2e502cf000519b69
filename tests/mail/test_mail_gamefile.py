"""A game file carries the game's mail record (messages, photographs, held mail, ``mail setup`` settings and
the players' tokens) for the coordinator, so a game moved to another database keeps working by mail; the
public file carries none of it.

Mail comes in through Dovecot as in play; the files go through ``dippouch export`` and ``import``, and the
public file is fetched over the web by people without the coordinator's key.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_mail_proof import ENGLAND, FRANCE, GAME, SUBJECT, T0, Game, at, game, mail, refused, run, token  # noqa: F401

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dippouch.mail.intake import take_in
from dippouch.store import GameStore
from mailservers import ImapServer
from websupport import Site

IMAGE = b"\x89PNG\r\n\x1a\n" + b"photographed orders: A par - bur" * 20


def photo_mail(sender: str, subject: str) -> bytes:
    from email.message import EmailMessage

    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@dip.example", subject
    m["Message-ID"] = f"<photo-{sender}@example.org>"
    m.set_content("")
    m.add_attachment(IMAGE, maintype="image", subtype="png", filename="sheet.png")
    return m.as_bytes()


def _fill(box: ImapServer) -> str:
    """France: a text version (token), a photograph (token), a forged message held; England's message from
    another address held. Returns France's token."""
    run("mail", "setup", GAME, "--title", "The Gunboat", "--review-wait", "24h", "--now", at(0))
    t = token("France", FRANCE)
    box.append(mail(FRANCE, f"{SUBJECT} - v1 [{t}]", "A par - bur\n"), (T0 + timedelta(days=1)).timestamp())
    box.append(photo_mail(FRANCE, f"{SUBJECT} - v2 [{t}]"), (T0 + timedelta(days=2)).timestamp())
    box.append(mail(FRANCE, SUBJECT, "A par - gas\n"), (T0 + timedelta(days=3)).timestamp())
    box.append(mail("eng.holiday@example.net", f"{GAME} - England - Spring 1901 Movement", "F lon - nth\n"),
               (T0 + timedelta(days=3)).timestamp())  # fmt: skip
    out = run("mail", "fetch", "--now", at(3))
    assert "4 messages from" in out and "1 accepted, 2 held, 1 photo." in out, out
    return t


def _mail_list(db: str) -> list[str]:
    out = run("mail", "list", GAME, "--db", db)
    return sorted(
        re.sub(r"[│┃ ]+", " ", ln).strip().split(" ", 2)[2]
        for ln in out.splitlines()
        if ln.startswith(("│", "┃")) and "@" in ln
    )


def test_export_and_import_keep_the_mail_record(game: Game, tmp_path: Path) -> None:  # noqa: F811
    box, _smtp, db = game
    t = _fill(box)
    file = tmp_path / "gunboat.json"
    # After the deadline nothing is sealed: the coordinator's file has the whole record.
    run("export", GAME, str(file), "--now", at(11))
    data = json.loads(file.read_text())
    record = data["mail"]
    assert record["settings"]["titles"] == ["The Gunboat"] and record["settings"]["review_wait"] == "24h"
    assert len(record["messages"]) == 4
    other = f"sqlite:///{tmp_path / 'moved.db'}"
    run("import", str(file), "--db", other, "--now", at(11))
    assert _mail_list(other) == _mail_list(db)
    # The same token proves France's mail in the new database; the settings came along.
    assert token_in(other) == t
    assert "subjects may call it: Gunboat, The Gunboat" in run("mail", "setup", GAME, "--db", other, "--now", at(11))
    # The photograph waits for review there, with the same bytes; the held messages wait for a decision.
    review = run("mail", "review", GAME, "--db", other, "--save", str(tmp_path / "seen"), "--now", at(11))
    assert "photograph #" in review and "from France" in review and "WAITS FOR YOU" in review
    assert [p.read_bytes() for p in (tmp_path / "seen").iterdir()] == [IMAGE]
    assert review.count("held message #") == 2
    held = re.search(r"held message #(\d+) from eng\.holiday@example\.net", review)
    assert held is not None
    assert "England version 1" in run("mail", "apply", held.group(1), "--db", other, "--now", at(11))
    # Fetching the same mailbox into the moved game takes nothing twice, and results are not mailed again.
    again = run("mail", "fetch", "--db", other, "--now", at(11))
    assert "duplicate" in again and "accepted" not in again


def token_in(db: str) -> str:
    line = next(ln for ln in run("mail", "tokens", GAME, "--db", db).splitlines() if "France" in ln)
    return line.rsplit(" ", 1)[1]


def test_a_copy_beside_the_original_keeps_its_own_mail(game: Game, tmp_path: Path) -> None:  # noqa: F811
    box, _smtp, _db = game
    _fill(box)
    file = tmp_path / "gunboat.json"
    run("export", GAME, str(file), "--now", at(11))
    run("import", str(file), "--name", "Gunboat copy", "--now", at(11))
    listed = _listed(GAME)
    assert len(listed) == 4 and _listed("Gunboat copy") == listed


def _listed(name: str) -> list[list[str]]:
    """Each message ``mail list`` shows for the game ``name``: its power, status and attachments (the table's
    columns are as wide as their words, so a longer game name wraps the reasons otherwise: its lines are no
    measure)."""
    table = run("mail", "list", name).splitlines()
    return [[c.strip() for c in ln.split("│")[5:8]] for ln in table if re.match(r"│ \d+ │", ln)]


def test_the_coordinators_sealed_file_seals_the_mail_too_and_cannot_be_imported(game: Game, tmp_path: Path) -> None:  # noqa: F811
    box, _smtp, _db = game
    _fill(box)
    file = tmp_path / "sealed.json"
    run("export", GAME, str(file), "--now", at(4))
    data = json.loads(file.read_text())
    assert all(m["raw"] is None and m["sealed"] for m in data["mail"]["messages"])
    assert all(a["data"] is None for m in data["mail"]["messages"] for a in m["attachments"])
    assert "A par - bur" not in file.read_text() and base64.b64encode(IMAGE[:30]).decode()[:20] not in file.read_text()
    out = refused("import", str(file), "--name", "Sealed copy", "--now", at(4))
    assert "export --unsealed" in out


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda r: r["messages"][0].update(raw="not base64!"), "mail.messages[0].raw: not base64"),
        (lambda r: r["messages"][0].update(phase=99), "mail.messages[0].phase: 99 is not the place of a phase"),
        (lambda r: r["messages"][0].update(submission=12345), "mail.messages[0].submission: 12345 is not the id"),
        (lambda r: r.update(settings=[1]), "mail.settings: expected an object"),
        (lambda r: r["notices"].append({"kind": "nonsense"}), "expected results, reminder, event or cd"),
    ],
)
def test_a_damaged_mail_record_is_refused_by_place_and_nothing_is_imported(
    game: Game,  # noqa: F811
    tmp_path: Path,
    damage: Callable[[dict[str, Any]], object],
    said: str,
) -> None:
    box, _smtp, _db = game
    _fill(box)
    run("mail", "send", "--queue-only", "--now", at(11))
    file = tmp_path / "g.json"
    run("export", GAME, str(file), "--now", at(11))
    data = json.loads(file.read_text())
    damage(data["mail"])
    file.write_text(json.dumps(data))
    out = refused("import", str(file), "--name", "Damaged", "--now", at(11))
    assert said in out
    assert "no game 'Damaged'" in refused("status", "Damaged")


def test_the_public_file_carries_no_mail_record(db_url: str) -> None:
    """From the attacker's side: without the coordinator's key (no key, a player's key), every game-file
    address answers without addresses, tokens, messages or photographs."""
    site = Site(db_url)
    site.new_game("g")
    for power, addr in (("France", FRANCE), ("England", ENGLAND)):
        r = site.api(site.coordinator, "/api/games/g/players", {"power": power, "player": power[:3], "email": addr})
        assert r.status_code == 200, r.text
    store = GameStore(db_url)
    try:
        from dippouch.store.mail.games import game_id
        from dippouch.store.mail.tokens import player_token

        secret = player_token(store, game_id(store, "g"), "France", FRANCE, now=T0)
        raw = mail(FRANCE, f"g - France - Spring 1901 Movement [{secret}]", "A par - bur\n")
        outcome = take_in(store, raw, now=T0 + timedelta(days=1))
        assert outcome.status in ("accepted", "late"), outcome
    finally:
        store.close()
    player = site.player("g", "Italy", "Ines")
    for who in (site.browser(), player):
        asks = [who.get("/games/g/export.json"), who.get("/api/games/g/export")]
        asks.append(site.api(who, "/api/games/g/export", {"reason": "x"}))  # asking for it unsealed
        asks.append(site.post_form(who, "/games/g/export.json", {"reason": "x"}))
        for r in asks:
            url = str(r.request.url)
            if r.status_code in (401, 403):  # a call that needs a key, refused without one: nothing leaks
                assert "example.org" not in r.text and secret not in r.text, (url, r.text)
                continue
            assert r.status_code == 200, r.text
            assert "mail" not in r.json()
            for leak in (FRANCE, ENGLAND, secret, "example.org", base64.b64encode(raw[:45]).decode()):
                assert leak not in r.text, (url, leak)
    # The coordinator's file has it.
    data = site.coordinator.get("/api/games/g/export").json()
    assert data["mail"]["settings"]["tokens"]["France"]["token"] == secret
