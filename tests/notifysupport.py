"""Receivers of notifications, started by the tests on this machine: a Web Push service that checks each
push as a real one does (the VAPID JWT's signature, audience and expiry, RFC 8292) and then does what the
browser does (decrypts the aes128gcm payload with the subscription's private key, RFC 8291), and a chat
receiver that takes Discord, Slack and Matrix posts in each service's format.

Written from the RFCs, not with the library dippouch sends with (pywebpush, http_ece), so a mistake in
that library's use shows here."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any = None
    text: str | None = None
    """What a push decrypted to."""


@dataclass
class Receiver:
    """A local HTTP server recording what it is sent. ``fail`` statuses are answered first, one per request."""

    port: int = 0
    received: list[Received] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    """Requests that broke the service's rules (a bad signature, a body the service would refuse), and why."""
    fail: list[int] = field(default_factory=list)
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def handle(self, r: Received) -> tuple[int, bytes]:
        raise NotImplementedError

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _serve(receiver: Receiver) -> Receiver:
    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            n = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(n) if n else b""
            r = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            if receiver.delay:
                time.sleep(receiver.delay)
            with receiver.lock:
                status = receiver.fail.pop(0) if receiver.fail else 0
            if status:
                out = b'{"error": "down for a moment"}'
            else:
                try:
                    status, out = receiver.handle(r)
                except Exception as e:  # a rule broken: 400 with why, recorded for the test to see
                    with receiver.lock:
                        receiver.refused.append(f"{type(e).__name__}: {e}")
                    status, out = 400, str(e).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_POST = _any
        do_PUT = _any

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.server = server
    receiver.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver


# --------------------------------------------------------------------------------------------------
# Chat webhooks


class ChatReceiver(Receiver):
    """Discord (``/discord/...``: ``{"content"}`` of at most 2,000 characters, 204), Slack (``/slack/...``:
    ``{"text"}``, 200 ``ok``) and Matrix (``PUT /_matrix/client/v3/rooms/ROOM/send/m.room.message/TXN`` with
    a bearer token, ``{"msgtype": "m.text", "body"}``; a transaction id seen before is answered with its
    event and not recorded again, as a homeserver does)."""

    token = "matrix-secret-token"

    def __init__(self) -> None:
        super().__init__()
        self.txns: dict[str, str] = {}

    def handle(self, r: Received) -> tuple[int, bytes]:
        data = json.loads(r.body)
        r.json = data
        if r.path.startswith("/discord/"):
            assert r.method == "POST" and set(data) == {"content"}, data
            assert isinstance(data["content"], str) and 0 < len(data["content"]) <= 2000
            self._keep(r)
            return 204, b""
        if r.path.startswith("/slack/"):
            assert r.method == "POST" and set(data) == {"text"}, data
            assert isinstance(data["text"], str) and data["text"]
            self._keep(r)
            return 200, b"ok"
        if r.path.startswith("/_matrix/client/v3/rooms/"):
            assert r.method == "PUT"
            assert r.headers.get("authorization") == f"Bearer {self.token}", r.headers.get("authorization")
            head, _, txn = r.path.rpartition("/")
            assert head.endswith("/send/m.room.message") and txn
            assert set(data) == {"msgtype", "body"} and data["msgtype"] == "m.text"
            with self.lock:
                if txn in self.txns:
                    return 200, json.dumps({"event_id": self.txns[txn]}).encode()
                self.txns[txn] = f"$ev{len(self.txns)}"
            self._keep(r)
            return 200, json.dumps({"event_id": self.txns[txn]}).encode()
        return 404, b"no such hook"

    def _keep(self, r: Received) -> None:
        with self.lock:
            self.received.append(r)


def start_chat() -> ChatReceiver:
    r = _serve(ChatReceiver())
    assert isinstance(r, ChatReceiver)
    return r


# --------------------------------------------------------------------------------------------------
# Web Push


@dataclass
class Subscription:
    """A browser's side of a push subscription: its key pair and auth secret, made here."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes

    @property
    def public(self) -> bytes:
        return self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )

    def as_browser_sends_it(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64url(self.public), "auth": b64url(self.auth)}}


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def decrypt_aes128gcm(body: bytes, sub: Subscription) -> bytes:
    """RFC 8291 section 3 and RFC 8188: what the browser does with a push's body."""
    salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    sender_public = body[21 : 21 + idlen]
    ciphertext = body[21 + idlen :]
    assert idlen == 65 and len(ciphertext) <= rs, (idlen, rs, len(ciphertext))
    sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_public)
    shared = sub.key.exchange(ec.ECDH(), sender)
    ikm = _hkdf(sub.auth, shared, b"WebPush: info\x00" + sub.public + sender_public, 32)
    cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    plain = AESGCM(cek).decrypt(nonce, ciphertext, None)
    plain = plain.rstrip(b"\x00")
    assert plain.endswith(b"\x02"), "the last record must end with the delimiter 2"
    return plain[:-1]


class PushService(Receiver):
    """A push service at ``/push/ID``: checks the VAPID authorisation as RFC 8292 asks (a JWT signed ES256
    by the key in ``k``, audience this service's origin, expiry within 24 hours, a subject) and the
    encoding, then decrypts the payload for the subscription ``ID``. ``keys``: the VAPID public keys it
    accepts (the installation's, once known); empty: any that signs correctly."""

    def __init__(self) -> None:
        super().__init__()
        self.subscriptions: dict[str, Subscription] = {}
        self.gone: set[str] = set()
        self.keys: set[str] = set()

    def subscribe(self) -> Subscription:
        sid = b64url(os.urandom(9))
        sub = Subscription(f"{self.base}/push/{sid}", ec.generate_private_key(ec.SECP256R1()), os.urandom(16))
        self.subscriptions[sid] = sub
        return sub

    def handle(self, r: Received) -> tuple[int, bytes]:
        assert r.method == "POST" and r.path.startswith("/push/"), r.path
        sid = r.path.removeprefix("/push/")
        if sid in self.gone:
            return 410, b"subscription expired"
        sub = self.subscriptions[sid]
        auth = r.headers.get("authorization", "")
        assert auth.startswith("vapid "), f"no VAPID authorisation: {auth!r}"
        params = dict(p.strip().split("=", 1) for p in auth[6:].split(","))
        token, k = params["t"], params["k"]
        if self.keys:
            assert k in self.keys, "signed by a key that is not the installation's"
        head, claims_b64, sig = token.split(".")
        header = json.loads(unb64url(head))
        assert header == {"typ": "JWT", "alg": "ES256"}, header
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(k))
        raw = unb64url(sig)
        assert len(raw) == 64
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public.verify(der, f"{head}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
        claims = json.loads(unb64url(claims_b64))
        assert claims["aud"] == self.base, claims
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600 + 60, claims
        assert str(claims["sub"]).startswith(("mailto:", "https:")), claims
        assert r.headers.get("content-encoding") == "aes128gcm"
        assert int(r.headers.get("ttl", "-1")) >= 0
        assert len(r.body) <= 4096, "push services refuse payloads over 4,096 bytes"
        r.text = decrypt_aes128gcm(r.body, sub).decode("utf-8")
        r.json = json.loads(r.text)
        with self.lock:
            self.received.append(r)
        return 201, b""


def start_push() -> PushService:
    r = _serve(PushService())
    assert isinstance(r, PushService)
    return r


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def served(receiver: Receiver) -> Iterator[Receiver]:
    try:
        yield receiver
    finally:
        receiver.stop()
