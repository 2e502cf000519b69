"""The three ways out: e-mail (into the mail outbox, which has the guarantees of its own), browser push
(Web Push, RFC 8030, signed with the installation's VAPID key, RFC 8292, payload encrypted aes128gcm for
the browser, RFC 8291) and chat webhooks in each service's own format.

Webhooks and pushes connect only to the addresses :func:`dippouch.notify.safety.resolve_url` checked just
before (the name is not looked up a second time, so it cannot be re-pointed between check and connection);
the request still names its host (``Host``, TLS server name), so the certificate is checked for the name.

Each transport either returns (delivered: the receiver said yes) or raises :class:`Failure`, which says
whether trying again later can help (a timeout, a 5xx, a 429) or not (the subscription is gone, 404/410;
the webhook refuses, other 4xx). Nothing is retried here: the queue decides when.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from dippouch.core.messages import Msg, as_msg, msg
from dippouch.game import GameError
from dippouch.notify.safety import IPAddress, Resolved, public_url, resolve_url, vapid_subject
from dippouch.notify.texts import cut
from dippouch.store.mail import outbox
from dippouch.store.mail.outbox import OutFile
from dippouch.store.notify import stored
from dippouch.store.notify.stored import Delivery
from dippouch.store.repository import GameStore

if TYPE_CHECKING:
    import httpx
    import requests

I18N_DOMAIN = "rules"
"""The catalogue of the notifications' refusals, said in the reader's language where they are shown
(dippouch.saying)."""

__all__ = [
    "Failure",
    "MailSender",
    "deliver",
    "make_vapid_key",
    "no_mail_sender",
    "push_session",
    "send_push",
    "send_webhook",
    "vapid_public_key",
]

log = logging.getLogger("dippouch.notify")

TIMEOUT = 10.0
PUSH_PAYLOAD = 3000
"""Bytes of the push payload before encryption (push services take 4,096 after it)."""
LIMITS = {"discord": 2000, "slack": 3000, "matrix": 4000}
"""Characters of a chat post: Discord refuses content over 2,000; the others are kept to a screen."""


class Failure(Exception):
    """A delivery not made: ``permanent`` when trying again cannot help. Its message is a value (:attr:`msg`,
    said in the reader's language where it is shown); ``str()`` is its English, as the delivery's record keeps
    it."""

    def __init__(self, message: Msg | str, *, permanent: bool) -> None:
        self.msg = as_msg(message)
        super().__init__(str(self.msg))
        self.permanent = permanent


def _link(url: str) -> str:
    return url if "://" in url or not public_url() else public_url() + url


def _text(d: Delivery) -> str:
    return f"{d.title}\n{d.body}" + (f"\n{_link(d.url)}" if d.url and (public_url() or "://" in d.url) else "")


def _http_failure(status: int, body: str, where: str) -> Failure:
    words = f"{where} answered {status}: {cut(body, 300)}"
    # A redirect is not followed (it could lead inside the network) and is not retried: it is an address to fix.
    return Failure(words, permanent=300 <= status < 500 and status not in (408, 425, 429))


# -- e-mail ------------------------------------------------------------------------------------------------


MailSender = Callable[[], str | None]
"""Asked for the address the installation's mail comes from (``DIPPOUCH_MAIL_FROM``, or ``from`` in the mail
settings), whose domain names the messages handed to the outbox. The mail settings belong to the mail side,
above this package: whoever runs the queue (the worker, ``dippouch notify``) passes this in."""


def no_mail_sender() -> str | None:
    """No address known (mail not set up, or not installed): messages are named under ``dippouch.invalid``."""
    return None


def send_email(db: GameStore, d: Delivery, now: datetime, sender: MailSender = no_mail_sender) -> None:
    """Hand the notification to the mail outbox (one message per delivery key: a second hand-over after a
    crash queues nothing). The outbox sends it, retrying while the mail server is away."""
    if not d.email:
        raise Failure("the person has no e-mail address", permanent=True)
    try:
        domain = (sender() or "").rpartition("@")[2] or "dippouch.invalid"
    except Exception:  # an unreadable mail config must not stop notifications; the outbox reports it
        domain = "dippouch.invalid"
    # The link after the news, before the last paragraph: why it came and how to get fewer (the queue's).
    news, _, why = d.body.rpartition("\n\n") if "\n\n" in d.body else (d.body, "", "")
    link = f"\n\n{_link(d.url)}" if d.url and public_url() else ""
    body = news.rstrip("\n") + link + (f"\n\n{why}" if why else "") + "\n"
    outbox.queue_mail(
        db,
        key=f"notify:{hashlib.sha256(d.key.encode()).hexdigest()[:40]}",
        to=d.email,
        subject=d.title,
        body=body,
        # One kind per event: the one-click link at its end stops this kind of mail, not every other.
        kind=f"notify:{d.event}",
        now=now,
        sender_domain=domain,
        game_id=d.game_id,
        files=board_of(db, d),
    )


BOARDS: dict[tuple[int, str], list[OutFile]] = {}
"""The board picture of a processed phase, drawn once for every player's mail of it (the last few kept)."""


def board_of(db: GameStore, d: Delivery) -> list[OutFile]:
    """The board after a processed phase, as a PNG to attach to the results mail (none for other events, or
    where it cannot be drawn: the text says everything without it)."""
    if d.event != "phase_processed" or d.phase_id is None or d.game_id is None:
        return []
    key = (d.game_id, str(d.phase_id))
    if key not in BOARDS:
        try:
            from dippouch.game import in_fog
            from dippouch.render.output import phase_map_file
            from dippouch.store.history import phase_record
            from dippouch.store.variant_copy import variant_of

            game = stored.game_name(db, d.game_id)
            rec = phase_record(db, game, phase_id=d.phase_id)
            if in_fog(rec):
                # A fog-of-war game's board shows each power only its sight: the pages draw it for each, the
                # mail shared by every player's delivery of the phase goes without it.
                BOARDS[key] = []
                return BOARDS[key]
            filename, content_type, data = phase_map_file(variant_of(db, game), rec, "png")
            BOARDS[key] = [OutFile(filename, content_type, data)]
        except Exception as e:  # no geometry for a user variant, no Cairo: the mail goes without the picture
            log.warning("results mail of phase %s goes without the board: %s: %s", d.phase_id, type(e).__name__, e)
            BOARDS[key] = []
        while len(BOARDS) > 8:
            BOARDS.pop(next(iter(BOARDS)))
    return BOARDS[key]


# -- browser push ------------------------------------------------------------------------------------------


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def make_vapid_key() -> tuple[str, str]:
    """A new VAPID key pair: (private key PEM, public key as browsers take it)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    raw = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return pem, _b64url(raw)


def vapid_public_key(db: GameStore, now: datetime) -> str:
    """The installation's public VAPID key (made and kept on first need), for the subscribe page."""
    return stored.vapid_key(db, make_vapid_key, now=now)[1]


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def push_session(checked: Resolved) -> requests.Session:
    """A requests session for one push: it connects only to ``checked``'s addresses (in order, the next when
    one cannot be connected to), checks the certificate for the endpoint's name, and follows no redirect."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

    class Pinned(HTTPAdapter):
        address: IPAddress = checked.addresses[0]

        def build_connection_pool_key_attributes(
            self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
        ) -> tuple[dict[str, Any], dict[str, Any]]:
            host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
            name = str(host_params["host"])
            host_params["host"] = str(self.address)
            if host_params["scheme"] == "https" and not _is_literal(name):
                # Part of urllib3's pool key too: a connection made for one name is never lent to another.
                pool_kwargs["server_hostname"] = name
                pool_kwargs["assert_hostname"] = name
            return host_params, pool_kwargs

        def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
            # urllib3 would name the address it connects to; the service must see the name it was given.
            request.headers["Host"] = urlsplit(str(request.url)).netloc
            for i, address in enumerate(checked.addresses):
                self.address = address
                try:
                    return super().send(request, *args, **kwargs)
                except requests.ConnectionError as e:
                    reason = getattr(e.args[0] if e.args else None, "reason", None)
                    if i + 1 == len(checked.addresses) or not isinstance(
                        reason, NewConnectionError | ConnectTimeoutError
                    ):
                        raise
            raise AssertionError("unreachable: a checked address list is never empty")

    session = requests.Session()
    session.max_redirects = 0  # a redirect could lead inside the network: refused, as for webhooks
    session.trust_env = False
    adapter = Pinned(max_retries=0)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def send_push(db: GameStore, d: Delivery, now: datetime) -> None:
    from py_vapid import Vapid
    from pywebpush import WebPushException, webpush

    target = d.target
    if target is None:
        raise Failure(msg("the push subscription was removed"), permanent=True)
    endpoint = str(target.config.get("endpoint", ""))
    try:
        checked = resolve_url(endpoint, msg("push endpoint"))
    except GameError as e:
        raise Failure(e.msg, permanent=True) from None
    pem, _ = stored.vapid_key(db, make_vapid_key, now=now)
    payload = json.dumps({"title": d.title, "body": d.body, "url": d.url}, ensure_ascii=False)
    if len(payload.encode()) > PUSH_PAYLOAD:
        body = d.body
        while len(payload.encode()) > PUSH_PAYLOAD and body:
            body = body[: len(body) * 3 // 4]
            payload = json.dumps({"title": d.title, "body": body + "…", "url": d.url}, ensure_ascii=False)
    info = {"endpoint": endpoint, "keys": dict(target.config.get("keys") or {})}
    import requests

    session = push_session(checked)
    try:
        webpush(
            info,
            payload,
            vapid_private_key=Vapid.from_pem(pem.encode("ascii")),
            vapid_claims={"sub": vapid_subject()},
            ttl=24 * 3600,
            timeout=TIMEOUT,
            requests_session=session,
        )
    except requests.TooManyRedirects:
        raise Failure(msg("the push service answered with a redirect, which is not followed"), permanent=True) from None
    except WebPushException as e:
        status = e.status_code or 0
        text = getattr(e.response, "text", "") if e.response is not None else e.message
        if status:
            raise _http_failure(status, str(text), "the push service") from None
        raise Failure(
            msg("the push service could not be reached: %(why)s", why=cut(e.message, 300)), permanent=False
        ) from None
    except Exception as e:  # requests' connection errors, a key the library cannot use
        raise Failure(
            msg("push failed: %(kind)s: %(why)s", kind=type(e).__name__, why=cut(str(e), 300)), permanent=False
        ) from None
    finally:
        session.close()


# -- chat webhooks -----------------------------------------------------------------------------------------


def webhook_request(d: Delivery) -> tuple[str, str, dict[str, Any], dict[str, str]]:
    """(method, url, JSON body, headers) of the post, in the target service's own format."""
    target = d.target
    assert target is not None
    text = _text(d)
    kind = target.kind
    cfg = target.config
    if kind == "discord":
        return "POST", str(cfg["url"]), {"content": cut(text, LIMITS["discord"])}, {}
    if kind == "slack":
        return "POST", str(cfg["url"]), {"text": cut(text, LIMITS["slack"])}, {}
    if kind == "matrix":
        # The client-server API's send: the transaction id is the delivery's own, so a second send of the
        # same delivery (after a crash between the server's yes and our record of it) is dropped by Matrix.
        txn = hashlib.sha256(d.key.encode()).hexdigest()[:32]
        url = (
            f"{str(cfg['homeserver']).rstrip('/')}/_matrix/client/v3/rooms/{quote(str(cfg['room']), safe='')}"
            f"/send/m.room.message/{txn}"
        )
        body = {"msgtype": "m.text", "body": cut(text, LIMITS["matrix"])}
        return "PUT", url, body, {"Authorization": f"Bearer {cfg['token']}"}
    raise Failure(msg("no webhook kind %(kind)s", kind=repr(kind)), permanent=True)


def send_webhook(d: Delivery, client: httpx.Client) -> None:
    import httpx  # only where a webhook is sent: importing it brings rich too (50-80 ms of every process's start)

    if d.target is None:
        raise Failure(msg("the webhook was removed"), permanent=True)
    method, url, body, headers = webhook_request(d)
    try:
        checked = resolve_url(url, msg("webhook address"))
    except GameError as e:
        raise Failure(e.msg, permanent=True) from None
    named = httpx.URL(url)
    headers = {**headers, "Host": named.netloc.decode("ascii")}
    extensions: dict[str, Any] = {}
    if not _is_literal(checked.host):
        if named.scheme == "https":
            extensions["sni_hostname"] = named.raw_host.decode("ascii")  # the certificate is checked for the name
        # The client's pool knows connections by address: one opened (and its certificate checked) for this
        # name must not be lent to another name that resolves to the same address.
        headers["Connection"] = "close"
    for i, address in enumerate(checked.addresses):
        try:
            r = client.request(
                method,
                named.copy_with(host=str(address)),
                json=body,
                headers=headers,
                timeout=TIMEOUT,
                follow_redirects=False,
                extensions=extensions,
            )
            break
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            if i + 1 < len(checked.addresses):
                continue  # nothing was sent: the next address the check approved
            why = type(e).__name__
        except httpx.HTTPError as e:
            why = type(e).__name__
        raise Failure(
            msg("the %(kind)s webhook could not be reached: %(why)s", kind=d.target.kind, why=why), permanent=False
        ) from None
    if not 200 <= r.status_code < 300:
        raise _http_failure(r.status_code, r.text, f"the {d.target.kind} webhook")


def deliver(
    db: GameStore, d: Delivery, now: datetime, client: httpx.Client, sender: MailSender = no_mail_sender
) -> None:
    """Deliver ``d`` by its channel, or raise :class:`Failure`."""
    if d.channel == "email":
        send_email(db, d, now, sender)
    elif d.channel == "push":
        send_push(db, d, now)
    elif d.channel == "webhook":
        send_webhook(d, client)
    else:
        raise Failure(msg("no channel %(channel)s", channel=repr(d.channel)), permanent=True)
