"""Whether a message proves that the power's player sent it (the trust model is in docs/mail.md).

A ``From:`` header is written by the sender's own program: anyone can put a player's address in it. So a
message from the registered address counts only with one of:

- the player's **token** (a secret dippouch teaches them in every receipt): anywhere in the subject, the
  body, or the address the message was sent to (``orders+TOKEN@...``, the player's own reply address);
- **DKIM, SPF or DMARC passed** for the ``From:`` domain, as recorded by *our* receiving server in an
  ``Authentication-Results`` header whose server name (authserv-id) the coordinator trusts
  (``mail setup --trust-auth NAME``).

Which headers are our server's (RFC 8601 section 5): everything under the ``Received:`` line with which our
server took the message in from outside came with the message, and the sender may have written it, authserv-id
and all. Milters (OpenDKIM, OpenDMARC, rspamd under Postfix) put their verdict above that line, and whatever our
side does afterwards adds its own ``Received:`` lines on top: Dovecot's LMTP delivery, a content filter
(amavis, spampd) handing the message back over the loopback. So the headers read are those above the first
``Received:`` line that is not such a hand-off (one ``with LMTP``, or one whose ``from`` part names only
loopback addresses); that first line is the arrival, and the attacker controls nothing above it. Things the
sender can write in a ``Received:`` line of ours (the HELO name, a quoted recipient) cannot make it look like a
hand-off: comments, quoted strings and ``<addresses>`` are blanked before the words are read, and any address
that is not loopback makes it the arrival. A message without such a line (no ``Received:`` at all, or only
hand-offs) proves nothing by these headers: nothing shows which of them are our server's. The rule assumes
that our server's arrival line names the connecting client's address, as Postfix, Exim and Sendmail write it;
a server that takes internet mail through a proxy on the same machine, so that its arrival reads as loopback,
must not be trusted (docs/mail.md says so).

Among the headers read, for each method (dkim, spf, dmarc) the topmost one with a trusted authserv-id that
reports the method is the server's verdict; a lower one cannot turn its ``fail`` (or ``none``, ``neutral``,
``temperror``) into a pass. Methods are taken separately because OpenDKIM and OpenDMARC each add a header of
their own under the same name. A DMARC ``fail`` is final for the whole message: the From domain's owner says
it is not theirs.

Alignment is DMARC's relaxed one (RFC 7489 section 3.2): the domain that passed and the ``From:`` domain must
share an organisational domain, which the Public Suffix List decides (``publicsuffixlist``, shipped with its
copy of the list: no network at fetch time). So ``header.d=mail.example.org`` proves ``alice@example.org``,
while ``header.d=org`` proves nobody and ``evil.co.uk`` does not prove ``example.co.uk``. DMARC's own pass
counts only for the very ``From:`` domain (``header.from``). A pass proves a domain, not a mailbox: anyone
who can send from the player's domain with the player's ``From:`` passes too (docs/mail.md says so).

Anything else is held for the player's own confirmation (:func:`confirmation_code` in a notice to the
registered address; a reply that carries the code applies it) or for the coordinator's word; never applied.

Reading ``Authentication-Results``: the ``authres`` package (RFC 8601 parsing, comments and quoting). The
checks themselves (DKIM signatures, SPF records) are the receiving server's: dkimpy/authheaders would
redo them here, which needs DNS at fetch time and fails for mail fetched after a key was rotated.
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import re
import secrets
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import TYPE_CHECKING, Any

from dippouch.core.messages import Msg, msg

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList

I18N_DOMAIN = "mail"
"""The catalogue of what proved a sender, said in a receipt's language."""

__all__ = [
    "I18N_DOMAIN",
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
    detail: Msg
    """What proved it, said where shown (a receipt, the mail log)."""


def confirmation_code() -> str:
    """A held message's code, sent only to the registered address: a reply carrying it confirms the message."""
    return secrets.token_hex(4)


def _headers(raw: bytes) -> list[tuple[str, str]]:
    msg = BytesHeaderParser(policy=compat32).parsebytes(raw)
    return [(k, str(v)) for k, v in msg.items()]


def _domain(address: str) -> str:
    return address.rpartition("@")[2].strip().strip(">").lower()


@functools.cache
def _public_suffixes() -> PublicSuffixList:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


def _organisational(domain: str) -> str | None:
    """The domain's organisational domain (the public suffix and one label more); ``None`` for a public
    suffix itself or nothing, which no organisation holds."""
    domain = domain.strip().strip(".").lower()
    return _public_suffixes().privatesuffix(domain) if domain else None


def _aligned(domain: str, from_domain: str) -> bool:
    """DMARC's relaxed alignment: both domains belong to the same organisational domain."""
    org = _organisational(domain)
    return org is not None and org == _organisational(from_domain)


def _blank_comments(text: str) -> str:
    """``text`` with comments, quoted strings and ``<addresses>`` blanked to spaces (positions kept): the words
    left are the ones the receiving server wrote, not ones the sender chose (a quoted recipient, a comment).
    Anything left open runs to the end and is blanked, so a stray quote hides words rather than adds them."""
    out: list[str] = []
    depth = 0
    quoted = angle = escaped = False
    for ch in text:
        keep = False
        if escaped:
            escaped = False
        elif quoted:
            if ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif depth:
            if ch == "\\":
                escaped = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
        elif angle:
            if ch == '"':
                quoted = True
            elif ch == ">":
                angle = False
        elif ch == "(":
            depth = 1
        elif ch == '"':
            quoted = True
        elif ch == "<":
            angle = True
        else:
            keep = True
        out.append(ch if keep else " ")
    return "".join(out)


_LOCAL_DELIVERY = {"lmtp", "lmtps", "lmtpa", "lmtpsa"}  # RFC 3848's names; LMTP never crosses the internet
_BRACKETED_RE = re.compile(r"\[([^\]]*)\]")
_BARE_IP_RE = re.compile(r"(?<![\w.:])(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*:[0-9a-f:.]*)(?![\w.:])", re.I)


def _loopback(literal: str) -> bool:
    try:
        return ipaddress.ip_address(re.sub(r"(?i)^ipv6:", "", literal.strip())).is_loopback
    except ValueError:
        return False


def _hand_off(received: str) -> bool:
    """Whether a ``Received:`` line records a step inside the receiving side rather than the message's arrival
    from outside: delivery by LMTP (Dovecot's), or a connection whose ``from`` part names only loopback
    addresses (a content filter handing the message back). Anything unclear is an arrival: treating a hand-off
    as one only costs a held message, the other way round would let the sender's own headers count."""
    text = " ".join(received.split())
    blanked = _blank_comments(text)
    words = blanked.split(";", 1)[0].split()
    if any(w.lower() == "with" and n.lower() in _LOCAL_DELIVERY for w, n in itertools.pairwise(words)):
        return True
    by = re.search(r"(?i)(?<!\S)by(?!\S)", blanked)
    if not words or words[0].lower() != "from" or by is None:
        return False
    origin = text[: by.start()]
    literals = _BRACKETED_RE.findall(origin)
    bare = _BARE_IP_RE.findall(_BRACKETED_RE.sub(" ", origin))
    return bool(literals) and all(_loopback(x) for x in literals) and all(_loopback(x) for x in bare)


def _server_verdict(raw: bytes, wanted: set[str]) -> dict[str, tuple[str, list[Any]]]:
    """Our server's results by method (``dkim``, ``spf``, ``dmarc``): each from the topmost trusted header
    above the message's arrival that reports it, with that header's authserv-id. Empty when the message has
    no arrival line to stand above."""
    import authres

    verdict: dict[str, tuple[str, list[Any]]] = {}
    for name, value in _headers(raw):
        lname = name.lower()
        if lname == "received":
            if _hand_off(value):
                continue
            return verdict  # the arrival: everything below came with the message
        if lname != "authentication-results":
            continue
        try:
            parsed = authres.AuthenticationResultsHeader.parse_value(" ".join(value.split()))
        except Exception:  # authres raises its own and stdlib errors for malformed headers; a bad header proves nothing
            continue
        server = str(parsed.authserv_id)
        if server.lower() not in wanted:
            continue
        here: dict[str, list[Any]] = {}
        for r in parsed.results:
            here.setdefault(str(r.method).lower(), []).append(r)
        for method, results in here.items():
            verdict.setdefault(method, (server, results))
    return {}


def _props(result: Any) -> dict[tuple[str, str], str]:
    return {(str(p.type).lower(), str(p.name).lower()): str(p.value) for p in result.properties}


def _passed(results: list[Any]) -> list[dict[tuple[str, str], str]]:
    return [_props(r) for r in results if str(r.result).lower() == "pass"]


def auth_results_pass(raw: bytes, sender: str, trusted: list[str]) -> Msg | None:
    """What in our receiving server's ``Authentication-Results`` proves ``sender``'s domain, or ``None``.

    Which headers are the server's, and why, is in the module's docstring; DKIM must pass for a domain aligned
    with the From domain (``header.d``), or SPF (``smtp.mailfrom``), or DMARC for the From domain itself
    (``header.from``)."""
    wanted = {t.strip().lower() for t in trusted if t.strip()}
    if not wanted:
        return None
    from_domain = _domain(sender)
    verdict = _server_verdict(raw, wanted)
    server, dmarc = verdict.get("dmarc", ("", []))
    if any(str(r.result).lower() == "fail" for r in dmarc):
        return None
    for props in _passed(dmarc):
        if props.get(("header", "from"), "").strip().strip(".").lower() == from_domain:
            return msg("DMARC passed for %(domain)s (%(server)s)", domain=props[("header", "from")], server=server)
    server, dkim = verdict.get("dkim", ("", []))
    for props in _passed(dkim):
        if _aligned(props.get(("header", "d"), ""), from_domain):
            return msg("DKIM passed for %(domain)s (%(server)s)", domain=props[("header", "d")], server=server)
    server, spf = verdict.get("spf", ("", []))
    for props in _passed(spf):
        mailfrom = props.get(("smtp", "mailfrom"), "")
        if _aligned(_domain(mailfrom) if "@" in mailfrom else mailfrom, from_domain):
            return msg("SPF passed for %(domain)s (%(server)s)", domain=mailfrom, server=server)
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
            return Proof("token", msg("the player's token in the subject"))
        if t in body.lower():
            return Proof("token", msg("the player's token in the text"))
        if t in _addresses(raw).lower():
            return Proof("token", msg("sent to the player's own orders address"))
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
