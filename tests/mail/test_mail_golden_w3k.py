"""The mail a W3K season sends reads in English as it did before messages were values (issue 53), and in German
and French leaves nothing in English.

The season is the golden results reports' one (:mod:`w3k_season`, one seed), played by mail: each power mails
its orders (accepted and refused lines: receipts), one sends a second version, one mails a subject naming no
power (a refusal) and one mails orders after the deadline (a late reply); a deadline is extended (a notice),
silent powers are reminded 12 hours before the deadline and one falls into civil disorder (a notice), and every
phase's results go to the ten players and an observer.

``tests/data/golden/w3k_mail_en.txt`` was recorded with the code before the change (commit ``d623a4b2^``) by
running this file as a script with that code's ``src`` first on ``PYTHONPATH``::

    git worktree add /tmp/old d623a4b2^
    PYTHONPATH=/tmp/old/src .venv/bin/python tests/mail/test_mail_golden_w3k.py tests/data/golden/w3k_mail_en.txt

so the comparison is with what players were sent then, not with the code of the change. No line differed except
those the change meant to alter, which the golden file records as today's code writes them: none in English (the
German and French receipts said an arrival check's refusal in English before: the bug the issue names). The
tokens a receipt teaches are random and are written ``dp-<token>`` in the file.
"""

from __future__ import annotations

import os
import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from babel.support import NullTranslations

from dippouch.catalog import load_variant
from dippouch.game import GameSettings
from dippouch.i18n import translations
from dippouch.mail.intake import take_in
from dippouch.mail.notices import queue_notices, queue_reminders, setup
from dippouch.store import GameStore
from dippouch.store.mail.models import OutboxRow

if __name__ == "__main__":  # run as a script (recording with other code): the tests' helpers are beside it
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from w3k_season import season_orders

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "w3k_mail_en.txt"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PHASES = 6
"""Summer and Autumn 1642's movements and retreats, Winter's adjustments and the movement after them."""
OBSERVER = "archive@example.org"
_TOKEN = re.compile(r"\bdp-[0-9a-z]{6,}\b")


@dataclass(frozen=True)
class Sent:
    kind: str
    to_addr: str
    subject: str
    body: str


def _address(power: str) -> str:
    return power.lower().replace(" ", ".") + "@example.org"


def _mail(sender: str, subject: str, body: str, n: int) -> bytes:
    return (
        f"From: {sender}\r\nTo: orders@example.org\r\nSubject: {subject}\r\n"
        f"Message-ID: <golden{n}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def _outbox(store: GameStore) -> list[Sent]:
    with store.session() as s:
        return [Sent(r.kind, r.to_addr, r.subject, r.body) for r in s.query(OutboxRow).order_by(OutboxRow.id)]


def mail_season(db: Path, lang: str) -> list[Sent]:
    """Every mail the season queues, in order, for a game whose mail is in ``lang``."""
    store = GameStore(f"sqlite:///{db}")
    try:
        settings = GameSettings(deadlines={"movement": "2d", "retreats": "1d", "adjustments": "1d"}, language=lang)
        store_games.create_game(store, "golden", "w3k", now=T0, settings=settings)
        for p in load_variant("w3k").powers:
            store_games.assign(store, "golden", p.name, f"{p.name} player", now=T0, email=_address(p.name))
        setup(store, "golden", now=T0, changes={"observers": [OBSERVER], "reminders": ["12h"], "maps": "none"})
        rng = random.Random(1642)
        t, n = T0, 0

        def send(power: str, subject: str, text: str, at: datetime) -> None:
            nonlocal n
            n += 1
            take_in(store, _mail(_address(power), subject, text, n), now=at)

        for i in range(PHASES):
            phase = store_status.status(store, "golden", now=t).phase
            assert phase is not None
            for power, text in season_orders(rng, store, "golden", phase).items():
                if rng.random() < 0.15 or (power == "Hamilton" and i < 2):
                    continue  # silent: reminded (and Hamilton, silent two movements, falls into civil disorder)
                send(power, f"golden - {power} - {phase}", text, t + timedelta(hours=1))
                if i == 0 and power == "Crown":  # a second version, shorter: it stands
                    lines = text.splitlines()
                    send(power, f"golden - {power} - {phase} - v2", "\n".join(lines[::2]), t + timedelta(hours=2))
            if i == 0:
                send("Crown", f"golden - Nobody - {phase}", "A oxf H", t + timedelta(hours=3))
            if i == 1:
                store_deadlines.extend(store, "golden", timedelta(days=1), now=t + timedelta(hours=4))
                queue_notices(store, t + timedelta(hours=4, minutes=1))
            deadline = store_status.status(store, "golden", now=t + timedelta(hours=5)).deadline
            assert deadline is not None
            queue_reminders(store, deadline - timedelta(hours=11))
            store_processing.process(store, "golden", now=deadline + timedelta(minutes=1))
            if i == 0:
                send("Cumberland", f"golden - Cumberland - {phase}", "A all H", deadline + timedelta(minutes=2))
            queue_notices(store, deadline + timedelta(minutes=3))
            t = deadline + timedelta(minutes=5)
        return _outbox(store)
    finally:
        store.close()


def golden_text(rows: list[Sent]) -> str:
    """The mail as one text: each distinct mail once, with everyone it went to (the results go to eleven)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for r in rows:
        groups.setdefault((r.kind, r.subject, _TOKEN.sub("dp-<token>", r.body)), []).append(r.to_addr)
    return "".join(
        f"@@@@ {kind} to {', '.join(to)}\nSubject: {subject}\n\n{body}\n"
        for (kind, subject, body), to in groups.items()
    )


class _Missed(NullTranslations):
    """The last catalogue a language's lookups fall through to: it notes every message the language's
    catalogues lack (gettext's own fallback chain), and answers it in English as a lookup that finds nothing
    does."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def gettext(self, message: str) -> str:
        self.ids.add(message)
        return message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        self.ids.add(msgid1)
        return msgid1 if n == 1 else msgid2

    def pgettext(self, context: str, message: str) -> str:
        self.ids.add(f"{context}|{message}")
        return message

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        self.ids.add(f"{context}|{msgid1}")
        return msgid1 if n == 1 else msgid2


@dataclass
class Played:
    rows: list[Sent]
    missed: set[str]
    """The message ids the language's catalogues lacked when the season's mail was written."""


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Played]]:
    """The season's mail in a language, played once a language for the module's tests."""
    played: dict[str, Played] = {}
    env = {k: os.environ.pop(k) for k in ("DIPPOUCH_MAIL_FROM", "DIPPOUCH_SMTP_USER") if k in os.environ}
    os.environ["DIPPOUCH_MAIL_PROOF"] = "from-address"  # receipts, not requests for proof, are what is compared

    def mail(lang: str) -> Played:
        if lang not in played:
            words = translations(lang)
            missed = _Missed()
            before = getattr(words, "_fallback", None)
            words._fallback = missed
            try:
                rows = mail_season(tmp_path_factory.mktemp(f"mail-{lang}") / "w3k.db", lang)
            finally:
                words._fallback = before
            played[lang] = Played(rows, missed.ids)
        return played[lang]

    yield mail
    os.environ.pop("DIPPOUCH_MAIL_PROOF")
    os.environ.update(env)


def test_the_english_mail_reads_as_before(season: Callable[[str], Played]) -> None:
    english = golden_text(season("en").rows)
    if os.environ.get("DIPPOUCH_REGEN_GOLDEN"):
        GOLDEN.write_text(english, encoding="utf-8")
    assert english == GOLDEN.read_text(encoding="utf-8")


def test_the_season_mails_what_the_comparison_needs(season: Callable[[str], Played]) -> None:
    """A golden file of receipts for holds would prove nothing: every kind of mail a phase sends is there."""
    rows = season("en").rows
    kinds = {r.kind for r in rows}
    assert {"receipt", "reply", "reminder", "results", "notice"} <= kinds, kinds
    english = golden_text(rows)
    for seen in (
        "REJECTED",
        "Version 2 now stands",
        "already been processed",
        "civil disorder",
        "extended",
        "(illegal)",
        "bounced",
    ):
        assert seen in english, seen


NOTATION = ["under orders of", "convert", "via convoy", "Build", "Remove", "supply to", "Send", "UTC"]
"""The orders' own words, written as players type them in every language (the order parser reads these), and
the zone a time is given in."""


def _neutral() -> re.Pattern[str]:
    """What a mail writes the same in every language: the map's places, the powers, the game, the variant's
    title, the people's addresses, the words and letters of the order notation, what a player sent (quoted)
    and the subjects to send orders with (intake reads the calendar's English words)."""
    v = load_variant("w3k")
    names = {x.name for x in v.map.locations} | {x.name for x in v.map.provinces} | {p.name for p in v.powers}
    names |= {f"({x.abbr})" for x in v.map.provinces} | {v.title, "golden", "dippouch", OBSERVER, *NOTATION}
    names |= {_address(p.name) for p in v.powers}
    words = "|".join(r"\s+".join(map(re.escape, n.split())) for n in sorted(names, key=len, reverse=True))
    phase = "|".join({s.season for s in v.calendar.steps} | {s.kind.label for s in v.calendar.steps})
    subject = rf"golden - [^\n]*? - (?:{phase}) \d{{4}} (?:{phase})(?: - v\d+)?"
    example = rf"Powick Bridge - Montrose - (?:{phase}) \d{{4}} (?:{phase}) - v1"
    return re.compile(rf"{subject}|{example}|'[^'\n]*'|(?<!\w)(?:{words})(?!\w)|\b[AFSCHD]\b")


SPELT_THE_SAME = {"de": set[str](), "fr": {"version"}}
"""Words of prose a language writes as English does."""


def _segments(text: str) -> set[str]:
    """A mail's sentences and their parts, split where one message of the catalogue ends and the next begins
    (a line, a colon, a semicolon, brackets, a dash between a line and its reason), with what reads the same
    in every language taken out first."""
    text = _neutral().sub("·", _TOKEN.sub("·", text))
    return {p.strip() for p in re.split(r"\n|: |; |\(|\)| -- |\. ", text) if p.strip()}


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_every_message_the_mail_says_has_a_translation(season: Callable[[str], Played], lang: str) -> None:
    """Every message id the season's mail looked up in German and French is in their catalogues."""
    assert season(lang).rows
    assert sorted(season(lang).missed) == []


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_no_english_is_left_in_the_mail(season: Callable[[str], Played], lang: str) -> None:
    """Each mail in German and French beside the same mail in English: no sentence or part of one with a word
    of prose in it reads the same (a name, an order or a subject to send reads the same in every language)."""
    english, said = season("en").rows, season(lang).rows
    assert [(r.kind, r.to_addr) for r in said] == [(r.kind, r.to_addr) for r in english]
    left: set[str] = set()
    for en, xx in zip(english, said, strict=True):
        same = _segments(f"{en.subject}\n{en.body}") & _segments(f"{xx.subject}\n{xx.body}")
        left |= {part for part in same if set(re.findall(r"[^\W\d_]{2,}", part)) - SPELT_THE_SAME[lang]}
    assert sorted(left) == []


if __name__ == "__main__":
    import tempfile

    os.environ["DIPPOUCH_MAIL_PROOF"] = "from-address"
    with tempfile.TemporaryDirectory() as d:
        out = golden_text(mail_season(Path(d) / "w3k.db", sys.argv[2] if len(sys.argv) > 2 else "en"))
        Path(sys.argv[1]).write_text(out, encoding="utf-8")
