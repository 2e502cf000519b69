"""The words of a press copy by mail and the reading of a reply: the code is found, quoted text is left out."""

from __future__ import annotations

from dippouch.press.mailtext import copy_subject, find_token, press_token_text, reply_text


def test_a_copys_subject_carries_the_recipients_code_and_a_reply_brings_it_back() -> None:
    token = press_token_text()
    subject = copy_subject("demo", "England", "private", token)
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
