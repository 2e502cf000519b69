"""The words of a press copy by mail and the reading of a reply: the code is found, quoted text is left out."""

from __future__ import annotations

import pytest

from dippouch.press.mailtext import copy_body, copy_subject, find_token, press_token_text, reply_text
from dippouch.saying import say


def test_a_copys_subject_carries_the_recipients_code_and_a_reply_brings_it_back() -> None:
    token = press_token_text()
    subject = str(copy_subject("demo", "England", "private", token))
    assert find_token("Re: Fwd: " + subject) == token
    assert find_token("Re: demo: press from England") is None
    assert press_token_text() != token


def test_a_reply_keeps_only_the_new_text() -> None:
    body = (
        "Yes, Holland is mine.\nAnd Belgium yours.\n\nOn Mon, 6 Jan 2025, press@x wrote:\n"
        "> From: England\n> Shall we?\n-- \nBea\n"
    )
    assert reply_text(body) == "Yes, Holland is mine.\nAnd Belgium yours."
    assert reply_text("> only quoted\n") == ""


@pytest.mark.parametrize(
    ("lang", "head", "signed"),
    [
        ("de", "Am Mo., 6. Jan. 2025 um 10:00 schrieb press@x:", "Antworten Sie auf diese Nachricht"),
        ("fr", "Le lun. 6 janv. 2025 à 10:00, press@x a écrit :", "Répondez à ce message"),
    ],
)
def test_a_copy_is_written_in_the_games_language_and_its_reply_read_back(lang: str, head: str, signed: str) -> None:
    token = press_token_text()
    subject = say(copy_subject("demo", "England", "public", token), lang)
    body = say(copy_body("England", [], "Shall we?", "public"), lang)
    assert find_token("AW: " + subject) == token and "press from" not in subject
    assert body.startswith(("Von: England", "De : England")) and signed in body and "Shall we?" in body
    assert "\n-- \n" in body  # the signature line a reply's reading stops at
    quoted = "\n".join("> " + line for line in body.splitlines())
    assert reply_text(f"Ja.\n\n{head}\n{quoted}\n") == "Ja."
