"""The words of a press message's copy by mail, and finding the reply token in a reply (pure: no I/O).

A copy's subject carries the recipient's reply token (``[press pr-...]``): a mail program keeps the subject
when its user answers, so the reply brings the token back, and the token says which channel and which power
the reply is for. The token is the recipient's alone (it went to their address only), so it is the proof.
"""

from __future__ import annotations

import re
import secrets

__all__ = ["copy_body", "copy_subject", "find_token", "press_token_text", "reply_text"]

_TOKEN_RE = re.compile(r"\bpr-[a-z0-9]{12}\b", re.IGNORECASE)
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def press_token_text() -> str:
    """60 bits of secret in letters that cannot be misread (no 0/o, 1/l/i)."""
    return "pr-" + "".join(secrets.choice(_ALPHABET) for _ in range(12))


def copy_subject(game_title: str, sender: str, kind: str, token: str) -> str:
    where = {"private": "private", "group": "group", "public": "to all", "announcement": "announcement"}[kind]
    return f"{game_title}: press from {sender} ({where}) [press {token}]"


def copy_body(sender: str, members: list[str], text: str, kind: str) -> str:
    to = "all powers" if kind in ("public", "announcement") else ", ".join(members)
    return (
        f"From: {sender}\nTo: {to}\n\n{text}\n\n"
        "-- \nReply to this message (keep the subject as it is) and your reply goes to the same powers, "
        "under the game's press rules. The code in the subject is yours alone: do not forward it."
    )


def find_token(*texts: str) -> str | None:
    for t in texts:
        m = _TOKEN_RE.search(t)
        if m:
            return m.group(0).lower()
    return None


def reply_text(body: str) -> str:
    """The new text of a reply: the quoted copy (``>`` lines, the "On ... wrote:" line, our signature and what
    follows it) left out."""
    out: list[str] = []
    for line in body.replace("\r\n", "\n").split("\n"):
        if line.rstrip() == "--" or line.startswith("-- "):
            break
        if line.lstrip().startswith(">"):
            continue
        if re.match(r"^\s*On .{0,200}wrote:\s*$", line):
            continue
        out.append(line)
    return "\n".join(out).strip()
