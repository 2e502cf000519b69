"""The words of a press message's copy by mail, and finding the reply token in a reply (pure: no I/O).

A copy's subject carries the recipient's reply token (``[press pr-...]``): a mail program keeps the subject
when its user answers, so the reply brings the token back, and the token says which channel and which power
the reply is for. The token is the recipient's alone (it went to their address only), so it is the proof.
"""

from __future__ import annotations

import re
import secrets

from dippouch.core.messages import Arg, Msg, msg

__all__ = ["I18N_DOMAIN", "copy_body", "copy_subject", "find_token", "press_token_text", "reply_text"]

I18N_DOMAIN = "mail"
"""The catalogue of a copy's words (said in the game's language where the mail is made)."""

_TOKEN_RE = re.compile(r"\bpr-[a-z0-9]{12}\b", re.IGNORECASE)
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
_QUOTE_HEAD = re.compile(r"^\s*(?:On .{0,200}wrote|Am .{0,200}schrieb .{0,200}|Le .{0,200}a écrit\s?)\s*:\s*$")
"""The line a mail program writes above the quoted copy, in the languages the site speaks ("On ... wrote:", "Am
... schrieb ...:", "Le ..., ... a écrit :")."""


def press_token_text() -> str:
    """60 bits of secret in letters that cannot be misread (no 0/o, 1/l/i)."""
    return "pr-" + "".join(secrets.choice(_ALPHABET) for _ in range(12))


def copy_subject(game_title: str, sender: str, kind: str, token: str) -> Msg:
    """The copy's subject, said in the game's language where the mail is made: its token stays as it is
    (``[press pr-...]``), which is what a reply is known by."""
    where = {
        "private": msg("private"),
        "group": msg("group"),
        "public": msg("to all"),
        "announcement": msg("announcement"),
    }[kind]
    return msg(
        "%(game)s: press from %(sender)s (%(where)s) [press %(token)s]",
        game=game_title,
        sender=sender,
        where=where,
        token=token,
    )


def copy_body(sender: str, members: list[str], text: str, kind: str) -> Msg:
    """The copy's text: who wrote to whom, the letter, and how to answer (after the ``-- `` signature line, which
    a reply's reading stops at)."""
    to: Arg = msg("all powers") if kind in ("public", "announcement") else ", ".join(members)
    return msg(
        "From: %(sender)s\nTo: %(to)s\n\n%(text)s\n\n-- \nReply to this message (keep the subject as it is) and your "
        "reply goes to the same powers, under the game's press rules. The code in the subject is yours alone: do "
        "not forward it.",
        sender=sender,
        to=to,
        text=text,
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
        if _QUOTE_HEAD.match(line):
            continue
        out.append(line)
    return "\n".join(out).strip()
