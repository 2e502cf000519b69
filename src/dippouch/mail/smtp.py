"""Talking to the SMTP server: one connection per batch, TLS or STARTTLS, and errors sorted into "try again
later" (the server is down, busy or greylisting: 4xx) and "refused for good" (5xx)."""

from __future__ import annotations

import contextlib
import smtplib
import socket
import ssl
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from types import TracebackType

from dippouch.core.messages import Msg, as_msg, msg, quantity
from dippouch.mail.settings import ServerSettings

__all__ = ["SendFailure", "SmtpConnection", "send_test_mail", "tls_context"]

I18N_DOMAIN = "rules"
"""The catalogue of the SMTP failures' words, said in the coordinator's language on the desk (dippouch.saying)."""


@dataclass
class SendFailure(Exception):
    """A message not sent. ``permanent``: the server refused it (5xx); otherwise try again later. ``text`` is a
    message value (said in the reader's language on the desk); ``str()`` its English, as the outbox keeps it."""

    text: Msg | str
    permanent: bool
    server_down: bool = False

    def __str__(self) -> str:
        return str(self.text)

    @property
    def msg(self) -> Msg:
        return as_msg(self.text)


def tls_context(s: ServerSettings) -> ssl.SSLContext:
    """Certificates are always verified; a server with its own CA (a test server) names it in ``ca_file``."""
    return ssl.create_default_context(cafile=s.ca_file) if s.ca_file else ssl.create_default_context()


class SmtpConnection:
    def __init__(self, settings: ServerSettings) -> None:
        self.s = settings.check()
        self.conn: smtplib.SMTP | None = None

    def __enter__(self) -> SmtpConnection:
        s = self.s
        port = s.port or s.default_port
        try:
            if s.security == "tls":
                self.conn = smtplib.SMTP_SSL(s.host or "", port, timeout=s.timeout, context=tls_context(s))
            else:
                self.conn = smtplib.SMTP(s.host or "", port, timeout=s.timeout)
                if s.security == "starttls":
                    self.conn.starttls(context=tls_context(s))
            if s.user:
                self.conn.login(s.user, s.password() or "")
        except smtplib.SMTPAuthenticationError as e:
            self._drop()
            raise SendFailure(
                msg(
                    "the SMTP server refused the login for %(user)s: %(code)s %(answer)s",
                    user=str(s.user),
                    code=e.smtp_code,
                    answer=_text(e.smtp_error),
                ),
                True,
                True,
            ) from None
        except smtplib.SMTPResponseException as e:
            self._drop()
            raise SendFailure(
                msg(
                    "SMTP server %(where)s: %(code)s %(answer)s",
                    where=s.where(),
                    code=e.smtp_code,
                    answer=_text(e.smtp_error),
                ),
                False,
                True,
            ) from None
        except (OSError, smtplib.SMTPException) as e:
            self._drop()
            raise SendFailure(
                msg("cannot reach the SMTP server %(where)s: %(why)s", where=s.where(), why=_why(e, s, port)),
                False,
                True,
            ) from None
        return self

    def _drop(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.close()
        self.conn = None

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                self.conn.quit()
        self._drop()

    def send(self, mail: EmailMessage, to: str) -> None:
        if self.conn is None:
            raise SendFailure(msg("no SMTP connection"), False, True)
        try:
            refused = self.conn.send_message(mail, from_addr=self.s.sender or None, to_addrs=[to])
        except smtplib.SMTPRecipientsRefused as e:
            code, text = next(iter(e.recipients.values()))
            raise SendFailure(_refused(to, code, text), code >= 500) from None
        except smtplib.SMTPResponseException as e:
            raise SendFailure(
                msg("%(code)s %(answer)s", code=e.smtp_code, answer=_text(e.smtp_error)), e.smtp_code >= 500
            ) from None
        except (OSError, smtplib.SMTPException) as e:
            raise SendFailure(msg("connection lost: %(why)s", why=str(e)), False, True) from None
        if refused:
            code, text = next(iter(refused.values()))
            raise SendFailure(_refused(to, code, text), code >= 500)


def _refused(to: str, code: int, text: bytes | str) -> Msg:
    return msg("%(to)s refused: %(code)s %(answer)s", to=to, code=code, answer=_text(text))


def _why(e: BaseException, s: ServerSettings, port: int) -> Msg | str:
    """A connection's failure in words a coordinator setting mail up can act on (the page shows them as they
    are): which of host, port or security to look at."""
    where = msg("%(host)s port %(port)d", host=str(s.host), port=port)
    if isinstance(e, ConnectionRefusedError):
        return msg("nothing answers at %(where)s (connection refused): check the host and the port", where=where)
    if isinstance(e, socket.gaierror):
        return msg("the host name %(host)s is not known: check its spelling", host=str(s.host))
    if isinstance(e, TimeoutError | socket.timeout):
        return msg(
            "%(where)s did not answer within %(seconds)s s: a firewall, or the wrong host or port",
            where=where,
            seconds=quantity(s.timeout),
        )
    if isinstance(e, ssl.SSLCertVerificationError):
        return msg("the certificate of %(where)s is not trusted (%(why)s)", where=where, why=str(e.verify_message))
    if isinstance(e, ssl.SSLError) or (isinstance(e, smtplib.SMTPServerDisconnected) and s.security == "tls"):
        return msg(
            "no TLS at %(where)s (%(why)s): with security TLS the port is usually 465; for a server that starts "
            "plain and then offers STARTTLS (usually port 587) choose STARTTLS",
            where=where,
            why=str(e),
        )
    if isinstance(e, smtplib.SMTPNotSupportedError):
        return msg(
            "%(where)s does not offer STARTTLS: choose TLS (port 465), or none on this machine only", where=where
        )
    return str(e) or type(e).__name__


def send_test_mail(s: ServerSettings, to: str, now: datetime) -> None:
    """Send one short message to ``to`` through ``s`` at once, not through the queue: the desk's mail page
    shows whether the server took it, or a :class:`SendFailure` saying why not."""
    mail = EmailMessage()
    mail["From"] = s.sender or ""
    mail["To"] = to
    mail["Subject"] = "dippouch: a test mail"
    mail["Date"] = format_datetime(now)
    mail["Message-ID"] = make_msgid(domain=(s.sender or "").rpartition("@")[2] or "dippouch.invalid")
    mail["Auto-Submitted"] = "auto-generated"
    mail.set_content(
        f"This is the test mail sent from dippouch's mail page through {s.where()}.\n\n"
        "It arrived, so the site's mail (sign-in links, results, reminders) can reach people now.\n"
    )
    with SmtpConnection(s) as conn:
        conn.send(mail, to)


def _text(b: bytes | str) -> str:
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)
