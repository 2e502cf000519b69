"""Forged ``Authentication-Results`` headers prove nothing; our own server's verdict does.

The sender writes every header under the ``Received:`` line with which our server took the message in, and
may write one with our server's name (authserv-id). The cases m06 to m14 are those of the security review
(docs/mail.md section 2a has the rule): what the sender wrote is refused, however our server's own lines
around it look; the layouts that real setups write (Postfix with OpenDKIM, OpenDMARC or rspamd milters, a
content filter handing the message back over the loopback, Dovecot delivering by LMTP) are accepted. Passes
count only for a domain of the ``From:`` address's own organisation, which the Public Suffix List decides.
"""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dippouch.cli import app
from dippouch.letters.proof import auth_results_pass
from dippouch.store import GameStore
from dippouch.store import status as store_status

TRUSTED = ["mx.trial.test"]
ALICE = "alice@example.org"
DATE = "Mon, 6 Jan 2025 10:00:00 +0000"


def ar(value: str) -> str:
    return f"Authentication-Results: {value}\r\n"


def received(value: str) -> str:
    return f"Received: {value}; {DATE}\r\n"


# Our server taking the message in from the attacker's machine, and from the player's provider.
FROM_ATTACKER = received(
    "from attacker.test (attacker.test [203.0.113.66]) by mx.trial.test (Postfix) with ESMTPS id 4XyZ1 "
    "for <orders@trial.test>"
)
FROM_PROVIDER = received(
    "from mail.example.org (mail.example.org [198.51.100.7]) by mx.trial.test (Postfix) with ESMTPS id 4AbC2 "
    "for <orders@trial.test>"
)
# The player's provider taking it from the player's program: a hop before ours.
AT_PROVIDER = received("from [192.0.2.10] (unknown [192.0.2.10]) by mail.example.org with ESMTPSA id 77")
# Steps on our side after the arrival: Dovecot's LMTP delivery, a content filter and Postfix taking it back.
LMTP = received(
    "from mx.trial.test ([127.0.0.1]) by imap.trial.test with LMTP id Jk2 (envelope-from <alice@example.org>) "
    "for <orders@trial.test>"
)
FILTER = received(
    "from mx.trial.test ([127.0.0.1]) by localhost (mx.trial.test [127.0.0.1]) (amavisd-new, port 10024) "
    "with ESMTP id q1 for <orders@trial.test>"
)
BACK = received("from localhost (localhost [IPv6:::1]) by mx.trial.test (Postfix) with ESMTP id 4DeF3")

PASS = ar("mx.trial.test; dkim=pass header.d=example.org; spf=pass smtp.mailfrom=alice@example.org")
SERVER_FAIL = ar("mx.trial.test; dkim=none; spf=fail smtp.mailfrom=alice@example.org")


def message(head: str, sender: str = ALICE) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@trial.test", "pub - England - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = DATE
    m.set_content("F lon - nth\n")
    return head.encode() + m.as_bytes()


def proves(head: str, sender: str = ALICE) -> bool:
    return auth_results_pass(message(head, sender), sender, TRUSTED) is not None


# The review's cases (docs/mail.md, 2a): everything here but our server's own verdict is the sender's writing.
REVIEW = {
    "m06 a pass from a server not trusted": (ar("mx.other.test; dkim=pass header.d=example.org") + FROM_ATTACKER),
    "m07 a forged pass under our only Received line": FROM_ATTACKER + PASS,
    "m08 a forged pass under two Received lines": FROM_ATTACKER + AT_PROVIDER + PASS,
    "m09 our server's fail, then a forged pass": SERVER_FAIL + FROM_ATTACKER + PASS,
    "m11 DKIM passed for the public suffix org": ar("mx.trial.test; dkim=pass header.d=org") + FROM_ATTACKER,
    "m14 no Received line at all": PASS,
}


@pytest.mark.parametrize("head", REVIEW.values(), ids=REVIEW.keys())
def test_the_reviews_forgeries_prove_nothing(head: str) -> None:
    assert not proves(head)


GENUINE = {
    "a milter's verdict above the arrival": PASS + FROM_PROVIDER + AT_PROVIDER,
    "rspamd's single header on top": (
        ar(
            "mx.trial.test; dkim=pass header.d=example.org header.s=s1 header.b=abc; "
            "spf=pass (mx.trial.test: domain of alice@example.org designates 198.51.100.7 as permitted sender) "
            "smtp.mailfrom=alice@example.org; dmarc=pass (policy=reject) header.from=example.org"
        )
        + FROM_PROVIDER
    ),
    "Dovecot's LMTP line above the verdict": LMTP + PASS + FROM_PROVIDER,
    "a content filter's hand-offs above the verdict": BACK + FILTER + PASS + FROM_PROVIDER,
    # OpenDMARC and OpenDKIM each add a header under the same name; a domain without DMARC has no dmarc pass.
    "OpenDMARC's none above OpenDKIM's pass": (
        ar("mx.trial.test; dmarc=none (p=none dis=none) header.from=example.org")
        + ar("mx.trial.test; dkim=pass (2048-bit key; unprotected) header.d=example.org header.i=@example.org")
        + FROM_PROVIDER
    ),
    "Postfix with three milters, one header each, under local delivery's lines": (
        "Delivered-To: orders@trial.test\r\n"
        + ar("mx.trial.test; dmarc=pass (p=reject dis=none) header.from=example.org")
        + ar("mx.trial.test; dkim=fail (bad signature) header.d=example.org")
        + ar("mx.trial.test; spf=pass (sender SPF authorized) smtp.mailfrom=example.org")
        + FROM_PROVIDER
    ),
    "a second signature passes where the first is broken": (
        ar("mx.trial.test; dkim=fail header.d=lists.test; dkim=pass header.d=example.org") + FROM_PROVIDER
    ),
    "relaxed alignment: a subdomain signs": ar("mx.trial.test; dkim=pass header.d=mail.example.org") + FROM_PROVIDER,
}


@pytest.mark.parametrize("head", GENUINE.values(), ids=GENUINE.keys())
def test_our_servers_own_verdict_proves_the_sender(head: str) -> None:
    assert proves(head)


def test_what_proved_it_is_said() -> None:
    assert (
        auth_results_pass(message(PASS + FROM_PROVIDER), ALICE, TRUSTED)
        == "DKIM passed for example.org (mx.trial.test)"
    )


# Our Received line records things the sender chose (the HELO name, the recipient): none of it may make the
# arrival look like a step on our side, which would let the forged header under it count.
DISGUISED = {
    "HELO [127.0.0.1]": received(
        "from [127.0.0.1] (unknown [203.0.113.66]) by mx.trial.test (Postfix) with ESMTP id 1 for <orders@trial.test>"
    ),
    "HELO by": received("from by (unknown [203.0.113.66]) by mx.trial.test (Postfix) with ESMTP id 2"),
    "HELO with an open parenthesis": received("from ( (unknown [203.0.113.66]) by mx.trial.test with ESMTP id 3"),
    "qmail's bare client address": received(
        "from unknown (HELO [127.0.0.1]) (203.0.113.66) by mx.trial.test with SMTP"
    ),
    "qmail's bare IPv6 client address": received("from unknown (HELO [::1]) (2001:db8::66) by mx.trial.test with SMTP"),
    "a quoted recipient saying LMTP": received(
        "from attacker.test (attacker.test [203.0.113.66]) by mx.trial.test (Postfix) with ESMTP id 4 "
        'for <"orders+> with LMTP <"@trial.test>'
    ),
    "an unbracketed quoted recipient saying LMTP": received(
        'from attacker.test ([203.0.113.66]) by mx.trial.test with esmtp id 5 for "orders+ with LMTP"@trial.test'
    ),
    "a comment saying LMTP": received(
        "from attacker.test (with LMTP [203.0.113.66]) by mx.trial.test (Postfix) with ESMTP id 6"
    ),
    "no client address at all": received("from localhost by mx.trial.test with ESMTP id 7"),
}


@pytest.mark.parametrize("line", DISGUISED.values(), ids=DISGUISED.keys())
def test_an_arrival_dressed_as_our_own_step_is_still_the_arrival(line: str) -> None:
    assert not proves(line + PASS)
    assert proves(PASS + line), "above it, our server's verdict still counts"


def test_steps_on_our_side_without_an_arrival_prove_nothing() -> None:
    """Only hand-offs (the message was put in the mailbox from inside, or its Received lines are the
    sender's): nothing shows which headers our server wrote."""
    assert not proves(LMTP + PASS)
    assert not proves(BACK + FILTER + PASS)


def test_our_servers_first_word_on_a_method_is_final() -> None:
    """A lower header with our name cannot overturn a fail, none or temperror above it, even on our side."""
    for result in ("fail", "none", "neutral", "temperror", "permerror", "policy"):
        top = ar(f"mx.trial.test; dkim={result} header.d=example.org")
        assert not proves(top + ar("mx.trial.test; dkim=pass header.d=example.org") + FROM_PROVIDER), result
    # Another method reported lower still counts: OpenDKIM's header under OpenDMARC's.
    spf_only = ar("mx.trial.test; spf=fail smtp.mailfrom=alice@example.org")
    assert proves(spf_only + ar("mx.trial.test; dkim=pass header.d=example.org") + FROM_PROVIDER)


def test_a_dmarc_fail_is_final_for_the_message() -> None:
    """The From domain's owner says it is not theirs (say a strict alignment policy and a subdomain's
    signature): a DKIM pass next to it does not prove the sender."""
    head = ar("mx.trial.test; dmarc=fail (p=reject) header.from=example.org; dkim=pass header.d=mail.example.org")
    assert not proves(head + FROM_PROVIDER)
    assert proves(ar("mx.trial.test; dkim=pass header.d=mail.example.org") + FROM_PROVIDER), "the DMARC fail decides"


def test_dmarc_passes_only_for_the_from_domain_itself() -> None:
    head = ar("mx.trial.test; dmarc=pass header.from=example.org") + FROM_PROVIDER
    assert proves(head)
    assert not proves(head, "alice@mail.example.org"), "DMARC judged another From domain than this message's"


@pytest.mark.parametrize(
    ("domain", "sender", "aligned"),
    [
        ("org", ALICE, False),
        ("example.org", ALICE, True),
        ("mail.example.org", ALICE, True),
        ("example.org", "alice@mail.example.org", True),
        ("other.example.org", "alice@mail.example.org", True),
        ("evil.org", ALICE, False),
        ("co.uk", "alice@example.co.uk", False),
        ("evil.co.uk", "alice@example.co.uk", False),
        ("example.co.uk", "alice@example.co.uk", True),
        ("mail.example.co.uk", "alice@example.co.uk", True),
        ("uk", "alice@example.co.uk", False),
        ("example.co.uk", "alice@co.uk", False),
        ("", ALICE, False),
    ],
)
def test_alignment_is_by_organisational_domain(domain: str, sender: str, aligned: bool) -> None:
    """DMARC's relaxed alignment (RFC 7489 section 3.2): the same organisational domain, by the Public Suffix
    List. A public suffix is nobody's organisation, so a pass for it proves nobody."""
    assert proves(ar(f"mx.trial.test; dkim=pass header.d={domain}") + FROM_PROVIDER, sender) is aligned
    mailfrom = f"bounce@{domain}" if domain else ""
    assert proves(ar(f"mx.trial.test; spf=pass smtp.mailfrom={mailfrom}") + FROM_PROVIDER, sender) is aligned


# Through the real intake: `dippouch mail fetch FILE`, as the review took the messages in.

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("DIPPOUCH_MAIL_PROOF", raising=False)
    url = f"sqlite:///{tmp_path / 'g.db'}"
    now = "--now", T0.isoformat()
    run("new", "pub", "--variant", "standard", "--movement", "10d", "--db", url, *now)
    run("players", "assign", "pub", "England", "Alice", "--email", ALICE, "--db", url, *now)
    run("mail", "setup", "pub", "--trust-auth", "mx.trial.test", "--db", url, *now)
    return url


def fetch(tmp_path: Path, db: str, name: str, head: str) -> str:
    eml = tmp_path / f"{name}.eml"
    eml.write_bytes(message(head))
    return run("mail", "fetch", str(eml), "--db", db, "--now", (T0 + timedelta(hours=2)).isoformat())


def england_version(db: str) -> int | None:
    store = GameStore(db)
    try:
        st = store_status.status(store, "pub", now=T0 + timedelta(hours=2))
        return next(p for p in st.powers if p.power == "England").version
    finally:
        store.close()


@pytest.mark.parametrize("case", ["m07", "m09", "m14"])
def test_a_forged_pass_taken_in_from_a_file_is_held_not_recorded(tmp_path: Path, db: str, case: str) -> None:
    head = REVIEW[next(k for k in REVIEW if k.startswith(case))]
    out = fetch(tmp_path, db, case, head)
    assert "held" in out and "nothing proves that England's player sent it" in out, out
    assert england_version(db) is None


def test_our_servers_pass_taken_in_from_a_file_is_recorded(tmp_path: Path, db: str) -> None:
    out = fetch(tmp_path, db, "genuine", LMTP + PASS + FROM_PROVIDER + AT_PROVIDER)
    assert "accepted" in out, out
    assert england_version(db) == 1
