"""Where notifications may go, judged by what an address is rather than how it is written (IPv6 forms that
carry an IPv4 address, translation prefixes, multicast), when a target is added and again when it is
delivered to; and a delivery connects to the very address that was checked, never to a second lookup's.

Addresses are IP literals, so nothing here needs DNS; the names in the pinning tests are answered by a
resolver the tests control (:class:`Resolver`), the only way to re-point a name between check and connection."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from dbsupport import migrated_sqlite
from dippouch import notify
from dippouch.game import GameError
from dippouch.notify.events import save_preferences
from dippouch.notify.safety import check_url, resolve_url
from dippouch.notify.targets import add_push, add_webhook
from dippouch.notify.transports import Failure, push_session, send_webhook
from dippouch.store import GameStore
from dippouch.store.notify import stored
from dippouch.store.notify.stored import Delivery, Target, deliveries, targets
from dippouch.store.people.persons import create_person
from notifysupport import ChatReceiver, PushService, _serve, start_chat
from websupport import Site

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

# The review's table: each IPv6 form of a private, loopback or metadata IPv4 address, the prefixes whose
# inner address cannot be read, and multicast; with the words the refusal must give.
REFUSED = [
    ("64:ff9b::a00:1", "private, local or reserved address (10.0.0.1) written as IPv6"),
    ("64:ff9b::a9fe:a9fe", "private, local or reserved address (169.254.169.254) written as IPv6"),
    ("64:ff9b::7f00:1", "private, local or reserved address (127.0.0.1) written as IPv6"),
    ("64:ff9b:1::a00:1", "translation or tunnel prefix whose destination cannot be checked"),
    ("2002:7f00:1::", "private, local or reserved address (127.0.0.1) written as IPv6"),
    ("2002:a9fe:a9fe::", "private, local or reserved address (169.254.169.254) written as IPv6"),
    ("::ffff:0:127.0.0.1", "private, local or reserved address (127.0.0.1) written as IPv6"),
    ("::127.0.0.1", "private, local or reserved address (127.0.0.1) written as IPv6"),
    ("::ffff:127.0.0.1", "private, local or reserved address (127.0.0.1) written as IPv6"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "translation or tunnel prefix whose destination cannot be checked"),
    ("64:ff9b::e000:1", "multicast address (224.0.0.1) written as IPv6"),
    ("224.0.0.1", "a multicast address"),
    ("239.255.255.250", "a multicast address"),
    ("ff02::1", "a multicast address"),
    ("ff0e::1", "a multicast address"),
    ("fec0::1", "private, local or reserved address"),
]

# Public addresses, plain and in the forms above when what they carry is public (an IPv6-only host behind
# NAT64 reaches every IPv4 service this way).
PASSED = ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "64:ff9b::808:808", "2002:808:808::1", "::ffff:0:8.8.8.8"]


def literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_an_address_is_refused_for_what_it_reaches(address: str, why: str) -> None:
    with pytest.raises(GameError, match=rf"points at .*{re.escape(why)}.*only to public addresses"):
        check_url(f"https://{literal(address)}/hook", "webhook address", private=False)


@pytest.mark.parametrize("address", PASSED)
def test_a_public_address_passes_however_it_is_written(address: str) -> None:
    url = f"https://{literal(address)}:8443/hook"
    assert check_url(url, "webhook address", private=False) == url
    assert resolve_url(url, "webhook address", private=False).addresses == (ipaddress.ip_address(address),)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.delenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", raising=False)
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_adding_a_webhook_matrix_server_or_push_endpoint_refuses_each_and_keeps_the_public_ones(site: Site) -> None:
    pid = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set("dp_session", token)
    c.get("/")
    keys = {
        "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "auth": "BTBZMqHH6r4Tts7J_aSIgg",
    }
    for address, why in REFUSED:
        url = f"https://{literal(address)}/hook"
        r = site.api(c, "/api/notify/webhooks", {"kind": "discord", "url": url})
        assert r.status_code == 400 and why in r.json()["error"], (address, r.text)
        r = site.api(c, "/api/notify/webhooks", {"kind": "matrix", "url": url, "room": "!r:example.org", "token": "t"})
        assert r.status_code == 400 and why in r.json()["error"], (address, r.text)
        r = site.api(c, "/api/notify/push", {"endpoint": f"https://{literal(address)}/push/1", "keys": keys})
        assert r.status_code == 400 and why in r.json()["error"], (address, r.text)
    assert targets(site.web.store, pid) == []
    for address in PASSED[:4]:
        r = site.api(c, "/api/notify/webhooks", {"kind": "slack", "url": f"https://{literal(address)}/hook"})
        assert r.status_code == 200, (address, r.text)
    r = site.api(c, "/api/notify/push", {"endpoint": "https://[64:ff9b::808:808]/push/1", "keys": keys})
    assert r.status_code == 200, r.text
    assert len(targets(site.web.store, pid)) == 5


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    monkeypatch.delenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", raising=False)
    s = GameStore(migrated_sqlite(tmp_path / "notify.db"))
    yield s
    s.close()


def only(store: GameStore, pid: int, channel: str) -> None:
    save_preferences(store, pid, {(e, c): c == channel for e in notify.EVENTS for c in notify.CHANNELS}, None)


def test_a_target_written_straight_into_the_database_is_refused_before_any_connection(store: GameStore) -> None:
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    only(store, pid, "webhook")
    for address in ("64:ff9b::7f00:1", "2002:a9fe:a9fe::", "::127.0.0.1", "224.0.0.1"):
        config = {"url": f"https://{literal(address)}/hook"}
        stored.add_target(store, pid, channel="webhook", kind="discord", config=config, label=address, now=T0)
    assert notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts={"game": "demo"}) == 4
    report = notify.deliver_due(store, T0)
    assert len(report.failed) == 4 and not report.sent and not report.retry  # refused for good, not "unreachable"
    errors = sorted(d.last_error or "" for d in deliveries(store))
    assert all("notifications go only to public addresses" in e for e in errors), errors


# --------------------------------------------------------------------------------------------------
# The delivery connects to the checked address


@dataclass
class Resolver:
    """Names ending ``.test`` answered from ``answers`` (one list per lookup, the last repeated), every
    other name by the system; ``asked`` counts the lookups of each ``.test`` name. A name re-pointed
    between the check and the connection (DNS rebinding) is a second answer here."""

    answers: dict[str, list[str]] = field(default_factory=dict)
    asked: dict[str, int] = field(default_factory=dict)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = socket.getaddrinfo

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else str(host)
            if not name.endswith(".test"):
                return real(host, port, *args, **kwargs)
            n = self.asked.get(name, 0)
            self.asked[name] = n + 1
            got = self.answers[name]
            return real(got[min(n, len(got) - 1)], port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    r = Resolver()
    r.install(monkeypatch)
    return r


@pytest.fixture
def chat() -> Iterator[ChatReceiver]:
    r = start_chat()
    yield r
    r.stop()


def test_a_webhook_is_posted_to_the_address_checked_not_to_a_second_lookup(
    store: GameStore, chat: ChatReceiver, resolver: Resolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")  # the receiver is on this machine
    # The receiver listens on 127.0.0.1 only: after the check the name is re-pointed to 127.0.0.2, where
    # nothing listens, as a rebinding name would be re-pointed inside the network.
    resolver.answers["hooks.rebind.test"] = ["127.0.0.1", "127.0.0.2"]
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    only(store, pid, "webhook")
    add_webhook(store, pid, "discord", url=f"http://hooks.rebind.test:{chat.port}/discord/1/x", now=T0)
    resolver.answers["hooks.rebind.test"] = ["127.0.0.1", "127.0.0.2"]
    resolver.asked.clear()
    notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts={"game": "demo"})
    report = notify.deliver_due(store, T0)
    assert len(report.sent) == 1, report
    assert resolver.asked == {"hooks.rebind.test": 1}  # the check's lookup only
    (got,) = chat.received
    assert got.headers["host"] == f"hooks.rebind.test:{chat.port}"  # the name, though the address was connected to


def test_a_webhook_tries_the_next_checked_address_when_the_first_cannot_be_reached(
    store: GameStore, chat: ChatReceiver, resolver: Resolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    only(store, pid, "webhook")
    resolver.answers["two.rebind.test"] = ["127.0.0.1"]
    add_webhook(store, pid, "slack", url=f"http://two.rebind.test:{chat.port}/slack/T/B/x", now=T0)
    real = socket.getaddrinfo

    def both(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "two.rebind.test":  # nothing listens on 127.0.0.2; the receiver is on 127.0.0.1
            return real("127.0.0.2", port, *args, **kwargs) + real("127.0.0.1", port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", both)
    notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts={"game": "demo"})
    assert len(notify.deliver_due(store, T0).sent) == 1 and len(chat.received) == 1


class NamedPush(PushService):
    """The push service under a name (the audience of its VAPID claims is the name it is reached by)."""

    @property
    def base(self) -> str:
        return f"http://push.rebind.test:{self.port}"


def test_a_push_is_sent_to_the_address_checked_not_to_a_second_lookup(
    store: GameStore, resolver: Resolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    push = _serve(NamedPush())
    assert isinstance(push, NamedPush)
    try:
        resolver.answers["push.rebind.test"] = ["127.0.0.1"]
        pid = create_person(store, "Ann", now=T0, email="ann@example.org")
        only(store, pid, "push")
        sub = push.subscribe()
        add_push(store, pid, sub.as_browser_sends_it(), now=T0)
        resolver.answers["push.rebind.test"] = ["127.0.0.1", "127.0.0.2"]
        resolver.asked.clear()
        notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts={"game": "demo"})
        report = notify.deliver_due(store, T0)
        assert len(report.sent) == 1 and push.refused == [], (report, push.refused)
        assert resolver.asked == {"push.rebind.test": 1}
        (got,) = push.received
        assert got.headers["host"] == f"push.rebind.test:{push.port}"
    finally:
        push.stop()


# --------------------------------------------------------------------------------------------------
# Over TLS the certificate is checked for the name, though the connection goes to the checked address


@dataclass
class TlsReceiver:
    """An HTTPS server on 127.0.0.1 with a certificate for ``name`` from a certificate authority made here
    (``ca``: its PEM file, for the client to trust)."""

    name: str
    ca: Path
    port: int = 0
    hosts: list[str] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _cert(
    subject: str, key: ec.EllipticCurvePrivateKey, issuer: str, signer: ec.EllipticCurvePrivateKey, ca: bool
) -> x509.Certificate:
    now = dt.datetime.now(UTC)
    b = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        b = b.add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        ).add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    else:
        b = (
            b.add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()), critical=False)
        )
    return b.sign(signer, hashes.SHA256())


def start_tls(name: str, folder: Path) -> TlsReceiver:
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = _cert("test CA", ca_key, "test CA", ca_key, True)
    leaf = _cert(name, key, "test CA", ca_key, False)
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "leaf.pem").write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    (folder / "leaf.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    receiver = TlsReceiver(name, folder / "ca.pem")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            receiver.hosts.append(str(self.headers.get("host")))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "leaf.pem", folder / "leaf.key")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    receiver.server, receiver.port = server, server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[TlsReceiver]:
    r = start_tls("hooks.tls.test", tmp_path)
    yield r
    r.stop()


def _delivery(url: str) -> Delivery:
    target = Target(1, 1, "webhook", "slack", "room", {"url": url}, T0)
    return Delivery(
        1, "k", 1, "seat_offered", "webhook", "Title", "Body", "", 0, "sending", target, None, T0, None, None
    )


def test_a_webhook_over_tls_checks_the_certificate_for_the_name_at_the_checked_address(
    tls: TlsReceiver, resolver: Resolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    resolver.answers["hooks.tls.test"] = ["127.0.0.1", "127.0.0.2"]
    resolver.answers["other.tls.test"] = ["127.0.0.1"]
    with httpx.Client(verify=ssl.create_default_context(cafile=tls.ca), trust_env=False) as client:
        send_webhook(_delivery(f"https://hooks.tls.test:{tls.port}/slack/x"), client)
        assert tls.hosts == [f"hooks.tls.test:{tls.port}"] and resolver.asked["hooks.tls.test"] == 1
        # The same address under a name the certificate is not for: refused by TLS, not posted to.
        with pytest.raises(Failure, match="could not be reached: ConnectError"):
            send_webhook(_delivery(f"https://other.tls.test:{tls.port}/slack/x"), client)
    assert len(tls.hosts) == 1


def test_a_push_over_tls_checks_the_certificate_for_the_name_at_the_checked_address(
    tls: TlsReceiver, resolver: Resolver
) -> None:
    import requests

    resolver.answers["hooks.tls.test"] = ["127.0.0.1", "127.0.0.2"]
    resolver.answers["other.tls.test"] = ["127.0.0.1"]
    checked = resolve_url(f"https://hooks.tls.test:{tls.port}/push/1", "push endpoint", private=True)
    with push_session(checked) as session:
        session.verify = str(tls.ca)
        assert session.post(checked.url, data=b"x", timeout=10).status_code == 201
    assert tls.hosts == [f"hooks.tls.test:{tls.port}"] and resolver.asked["hooks.tls.test"] == 1
    other = resolve_url(f"https://other.tls.test:{tls.port}/push/1", "push endpoint", private=True)
    with push_session(other) as session, pytest.raises(requests.exceptions.SSLError):
        session.verify = str(tls.ca)
        session.post(other.url, data=b"x", timeout=10)
    assert len(tls.hosts) == 1
