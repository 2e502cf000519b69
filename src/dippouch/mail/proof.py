"""Whether a message proves that the power's player sent it (the trust model is in docs/mail.md).

A ``From:`` header is written by the sender's own program: anyone can put a player's address in it. So a
message from the registered address counts only with one of:

- the player's **token** (a secret dippouch teaches them in every receipt): anywhere in the subject, the
  body, or the address the message was sent to (``orders+TOKEN@...``, the player's own reply address);
- **DKIM or SPF passed** for the ``From:`` domain, as recorded by *our* receiving server in an
  ``Authentication-Results`` header whose server name (authserv-id) the coordinator trusts
  (``mail setup --trust-auth NAME``). Only the headers our server added count: those above the second
  ``Received:`` line (everything lower came with the message from outside and may be forged).

Anything else is held for the player's own confirmation (:func:`confirmation_code` in a notice to the
registered address; a reply that carries the code applies it) or for the coordinator's word; never applied.

Reading ``Authentication-Results``: the ``authres`` package (RFC 8601 parsing, comments and quoting). The
checks themselves (DKIM signatures, SPF records) are the receiving server's: dkimpy/authheaders would
redo them here, which needs DNS at fetch time and fails for mail fetched after a key was rotated.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32

__all__ = [
    "Proof",
    "auth_results_pass",
    "confirmation_code",
    "find_confirmation",
    "proof_of_sender",
    "strip_token",
]

_TOKEN_RE = re.compile(r"\bdp-[a-z0-9]{10}\b", re.IGNORECASE)
_CONFIRM_RE = re.compile(r"\bconfirm[:\s]+(?:code\s+)?([a-z0-9]{8})\b", re.IGNORECASE)
_ADDRESS_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To")


@dataclass(frozen=True)
class Proof:
    how: str
    """``token`` or ``auth`` (what proved the sender)."""
    detail: str


def confirmation_code() -> str:
    """A held message's code, sent only to the registered address: a reply carrying it confirms the message."""
    return secrets.token_hex(4)


def _headers(raw: bytes) -> list[tuple[str, str]]:
    msg = BytesHeaderParser(policy=compat32).parsebytes(raw)
    return [(k, str(v)) for k, v in msg.items()]


def _domain(address: str) -> str:
    return address.rpartition("@")[2].strip().strip(">").lower()


def _aligned(domain: str, from_domain: str) -> bool:
    """DMARC's relaxed alignment: the authenticated domain is the From domain or a parent of it."""
    domain = domain.lower().strip(".")
    return bool(domain) and (from_domain == domain or from_domain.endswith("." + domain))


def auth_results_pass(raw: bytes, sender: str, trusted: list[str]) -> str | None:
    """What in our receiving server's ``Authentication-Results`` proves ``sender``'s domain, or ``None``.

    Only headers above the second ``Received:`` line count (our server's own), with an authserv-id the
    coordinator trusts; DKIM must pass for the From domain (``header.d``), or SPF for it (``smtp.mailfrom``),
    or DMARC (``header.from``)."""
    if not trusted:
        return None
    import authres

    wanted = {t.strip().lower() for t in trusted if t.strip()}
    from_domain = _domain(sender)
    received = 0
    for name, value in _headers(raw):
        lname = name.lower()
        if lname == "received":
            received += 1
            if received >= 2:
                break
            continue
        if lname != "authentication-results":
            continue
        try:
            parsed = authres.AuthenticationResultsHeader.parse_value(" ".join(value.split()))
        except Exception:  # authres raises its own and stdlib errors for malformed headers; a bad header proves nothing
            continue
        if str(parsed.authserv_id).lower() not in wanted:
            continue
        for r in parsed.results:
            if str(r.result).lower() != "pass":
                continue
            props = {(str(p.type).lower(), str(p.name).lower()): str(p.value) for p in r.properties}
            method = str(r.method).lower()
            if method == "dkim" and _aligned(props.get(("header", "d"), ""), from_domain):
                return f"DKIM passed for {props[('header', 'd')]} ({parsed.authserv_id})"
            if method == "spf":
                mailfrom = props.get(("smtp", "mailfrom"), "")
                if _aligned(_domain(mailfrom) if "@" in mailfrom else mailfrom, from_domain):
                    return f"SPF passed for {mailfrom} ({parsed.authserv_id})"
            if method == "dmarc" and _aligned(props.get(("header", "from"), ""), from_domain):
                return f"DMARC passed for {props[('header', 'from')]} ({parsed.authserv_id})"
    return None


def _addresses(raw: bytes) -> str:
    return " ".join(
        v for k, v in _headers(raw) if k in _ADDRESS_HEADERS or k.lower() in {h.lower() for h in _ADDRESS_HEADERS}
    )


def proof_of_sender(
    raw: bytes, *, sender: str, subject: str, body: str, token: str | None, trusted: list[str]
) -> Proof | None:
    """How the message proves that the player sent it, or ``None`` (it is then held, never applied)."""
    if token:
        t = token.lower()
        if t in subject.lower():
            return Proof("token", "the player's token in the subject")
        if t in body.lower():
            return Proof("token", "the player's token in the text")
        if t in _addresses(raw).lower():
            return Proof("token", "sent to the player's own orders address")
    passed = auth_results_pass(raw, sender, trusted)
    if passed:
        return Proof("auth", passed)
    return None


def strip_token(text: str) -> str:
    """The text without tokens (a line holding only a token, e.g. ``Token: dp-...``, goes whole): a token is
    proof, not an order, and must not become a rejected line."""
    out = []
    for line in text.split("\n"):
        if _TOKEN_RE.search(line):
            rest = re.sub(r"\[\s*\]|\(\s*\)", "", _TOKEN_RE.sub("", line))
            rest = re.sub(r"(?i)\b(token|code|key)\b\s*[:=]?", "", rest).strip(" \t[]()<>:-,;")
            out.append(rest)
            continue
        out.append(line)
    return "\n".join(out)


def find_confirmation(subject: str, body: str) -> str | None:
    """The confirmation code a reply carries (``confirm 1a2b3c4d`` in its subject or text), or ``None``."""
    for text in (subject, body):
        m = _CONFIRM_RE.search(text)
        if m:
            return m.group(1).lower()
    return None
