"""The desk's mail page against a real SMTP server (aiosmtpd): the installation's coordinator sets the server up,
a test mail goes through it, the sign-in page stops saying mail is off, and the outbox sends through it; a wrong
port is refused in plain words with what was typed kept and the saved server untouched; the saved password is
never shown; the environment wins over the page; nobody else may see or change it (issue 40: on the embedded
default a coordinator had no way to make mail leave)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import pytest

from dippouch import settings
from dippouch.mail.settings import load_settings, stored_smtp, use_store
from dippouch.worker.service import mail_task
from mailservers import SmtpServer, free_port, start_smtp
from websupport import Site

PAGE = "/coordinate/mail"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    for name in (
        "DIPPOUCH_SMTP_HOST",
        "DIPPOUCH_SMTP_PORT",
        "DIPPOUCH_SMTP_USER",
        "DIPPOUCH_SMTP_PASSWORD",
        "DIPPOUCH_SMTP_SECURITY",
        "DIPPOUCH_SMTP_CA_FILE",
        "DIPPOUCH_MAIL_FROM",
        "DIPPOUCH_MAIL_CONFIG",
    ):
        monkeypatch.delenv(name, raising=False)
    settings.reread()
    yield Site(f"sqlite:///{tmp_path / 'web.db'}")
    use_store(None)  # the next test's mail settings are not this database's


@pytest.fixture
def smtp_login(tmp_path: Path) -> Iterator[SmtpServer]:
    server = start_smtp(tls_dir=tmp_path, user="games", password="s3cret-pass")
    yield server
    server.controller.stop()


def _text(r: object) -> str:
    return " ".join(html.unescape(str(getattr(r, "text", ""))).split())


def _plain(smtp: SmtpServer, **over: str) -> dict[str, str]:
    return {"host": "127.0.0.1", "port": str(smtp.port), "security": "none", "from": "games@example.org", **over}


def test_the_coordinator_sets_mail_up_and_mail_leaves(site: Site, smtp: SmtpServer) -> None:
    newcomer = site.browser()
    assert 'id="mail-off"' in newcomer.get("/signin").text
    page = site.coordinator.get(PAGE)
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert 'id="mail-off"' in page.text and 'name="host"' in page.text
    assert f'href="{PAGE}"' in site.coordinator.get("/coordinate").text

    r = site.post_form(site.coordinator, PAGE, {**_plain(smtp), "to": "coord@example.org", "action": "test"})
    assert r.status_code == 303 and r.headers["location"] == PAGE
    [test] = smtp.messages
    assert test["To"] == "coord@example.org" and test["From"] == "games@example.org"
    assert test["Subject"] == "dippouch: a test mail"
    shown = _text(site.coordinator.get(PAGE))
    assert "The test mail to coord@example.org was taken by smtp://127.0.0.1" in shown
    assert f"The site sends through smtp://127.0.0.1:{smtp.port}, from games@example.org" in shown

    # The sign-in page no longer says mail is off, and the link a newcomer asks for is mailed.
    assert 'id="mail-off"' not in newcomer.get("/signin").text
    r = site.post_form(newcomer, "/signin/mail", {"email": "ann@example.org", "name": "Ann"})
    assert "Sent to ann@example.org" in _text(r)
    mail_task(site.web.store, site.clock())
    [link] = smtp.to("ann@example.org")
    assert "/signin/link/" in link.get_content() and link["From"] == "games@example.org"


def test_a_wrong_port_is_refused_plainly_and_the_saved_server_stays(
    site: Site, smtp_login: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The certificate the test server uses is the machine's trust, not the page's: given without a host, the
    # environment lends it to the page's server.
    assert smtp_login.ca_file is not None
    monkeypatch.setenv("DIPPOUCH_SMTP_CA_FILE", str(smtp_login.ca_file))
    settings.reread()
    good = {
        "host": "127.0.0.1",
        "port": str(smtp_login.port),
        "security": "starttls",
        "user": "games",
        "password": "s3cret-pass",
        "from": "games@example.org",
        "to": "coord@example.org",
    }
    r = site.post_form(site.coordinator, PAGE, {**good, "action": "test"})
    assert r.status_code == 303, _text(r)
    assert len(smtp_login.messages) == 1

    # The saved password is never shown back; the field says a blank keeps it.
    page = site.coordinator.get(PAGE).text
    assert "s3cret-pass" not in page and "leave blank to keep" in page

    wrong = free_port()
    # Another port is another server: the password is typed again (a blank would send none; see below).
    typed = {**good, "port": str(wrong), "password": "s3cret-pass", "user": "games", "from": "other@example.org"}
    r = site.post_form(site.coordinator, PAGE, {**typed, "action": "test"})
    shown = _text(r)
    assert r.status_code == 200
    assert f"The test mail was not sent: cannot reach the SMTP server smtp://games@127.0.0.1:{wrong}" in shown
    assert f"nothing answers at 127.0.0.1 port {wrong} (connection refused): check the host and the port" in shown
    assert "Nothing was saved." in shown
    # What was typed stays in the form (the password excepted); the saved server is as it was.
    assert f'name="port" value="{wrong}"' in r.text and 'value="other@example.org"' in r.text
    assert "s3cret-pass" not in r.text
    saved = stored_smtp(site.web.store)
    assert saved is not None and saved.port == smtp_login.port and saved.sender == "games@example.org"
    assert saved.stored_password == "s3cret-pass"
    assert len(smtp_login.messages) == 1

    # Saved again with the password left blank: the kept one still logs in.
    r = site.post_form(site.coordinator, PAGE, {**good, "password": "", "action": "test"})
    assert r.status_code == 303, _text(r)
    assert len(smtp_login.messages) == 2


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("port", "58x7", "port '58x7' is not a port number (1-65535); usually 587 for STARTTLS"),
        ("port", "70000", "port '70000' is not a port number (1-65535)"),
        ("port", "٥٨٧", "port '٥٨٧' is not a port number (1-65535)"),  # Arabic-Indic digits: int() read them as 587
        ("host", "smtp://mail.example.org", "give the server's name only, without a scheme or port"),
        ("host", "", "host: the SMTP server's name is missing; e.g. smtp.example.org"),
        ("from", "games", "sender address 'games': give the address the site's mail comes from; e.g. games@localhost"),
        ("from", "games@mail", "sender address 'games@mail': give the address the site's mail comes from"),
        ("security", "ssl", "security 'ssl': choose one of tls, starttls, none"),
        ("user", "games", "password: the server's password for games is missing"),
    ],
)
def test_a_field_to_fix_is_named_and_the_form_kept(
    site: Site, smtp: SmtpServer, field: str, value: str, said: str
) -> None:
    typed = {**_plain(smtp), field: value}
    r = site.post_form(site.coordinator, PAGE, {**typed, "action": "save"})
    assert r.status_code == 400 and said in _text(r)
    assert 'value="games@example.org"' in r.text or field == "from"
    assert stored_smtp(site.web.store) is None


def test_plain_text_to_another_machine_with_a_password_is_refused(site: Site) -> None:
    typed = {"host": "mail.example.org", "security": "none", "user": "games", "password": "pw", "from": "g@example.org"}
    r = site.post_form(site.coordinator, PAGE, {**typed, "action": "save"})
    assert r.status_code == 400 and "would send the password in clear to mail.example.org" in _text(r)
    assert stored_smtp(site.web.store) is None


def test_the_environment_wins_and_the_page_says_so(
    site: Site, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = site.post_form(site.coordinator, PAGE, {**_plain(smtp), "action": "save"})
    assert r.status_code == 303
    assert load_settings("smtp").port == smtp.port  # the page's server, while the environment names none
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "smtp.operator.example")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@operator.example")
    settings.reread()
    page = _text(site.coordinator.get(PAGE))
    assert "The server's own settings are in force" in page
    assert (
        "<code>DIPPOUCH_SMTP_HOST</code> = smtp.operator.example" in page
        and "<code>DIPPOUCH_MAIL_FROM</code> = judge@operator.example" in page
    )
    s = load_settings("smtp")
    assert s.host == "smtp.operator.example" and s.sender == "judge@operator.example" and s.port is None


def test_only_the_installations_coordinator_sees_or_changes_it(site: Site, smtp: SmtpServer) -> None:
    site.new_game("g")
    _, game_key = site.web.access.create_key("coordinator", game="g", label="g's", now=site.clock())
    player = site.player("g", "France", "Fay")
    for who, c in (("visitor", site.browser()), ("player", player), ("game coordinator", site.browser(game_key))):
        r = c.get(PAGE)
        assert r.status_code == 403 and 'name="host"' not in r.text, who
        r = site.post_form(c, PAGE, {**_plain(smtp), "to": "x@example.org", "action": "test"})
        assert r.status_code == 403, who
    assert stored_smtp(site.web.store) is None and smtp.messages == []


def test_the_saved_server_is_replaced_whole_and_a_dropped_user_drops_the_password(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dippouch.mail.settings import ServerSettings, save_smtp
    from dippouch.store import GameStore

    for name in ("DIPPOUCH_SMTP_HOST", "DIPPOUCH_MAIL_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    settings.reread()

    store = GameStore(db_url)
    try:
        assert stored_smtp(store) is None
        first = ServerSettings(
            "smtp", host="mail.example.org", port=587, security="starttls", user="games", sender="g@example.org",
            stored_password="pw 1",
        )  # fmt: skip
        save_smtp(store, first)
        got = stored_smtp(store)
        assert got is not None and (got.host, got.port, got.user, got.stored_password) == (
            "mail.example.org", 587, "games", "pw 1"
        )  # fmt: skip
        assert load_settings("smtp", store=store).password() == "pw 1"
        save_smtp(store, ServerSettings("smtp", host="127.0.0.1", security="none", sender="g@example.org"))
        got = stored_smtp(store)
        assert got is not None and (got.host, got.port, got.user, got.stored_password) == (
            "127.0.0.1",
            None,
            None,
            None,
        )
    finally:
        store.close()


def test_mail_send_and_a_separate_worker_use_the_saved_server(
    site: Site, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server saved on the desk is the database's: `dippouch mail send` and a worker in another process (a
    fresh store, no web app naming it) send through it and take its sender for the notifications' Message-IDs."""
    from typer.testing import CliRunner

    import dippouch.cli.mail  # noqa: F401  (registers the mail commands)
    from dippouch.cli import app as cli
    from dippouch.store import GameStore
    from dippouch.store.mail.outbox import outbox_entries
    from dippouch.worker.service import Worker, mail_sender

    r = site.post_form(site.coordinator, PAGE, {**_plain(smtp), "to": "coord@example.org", "action": "test"})
    assert r.status_code == 303
    smtp.messages.clear()
    site.post_form(site.browser(), "/signin/mail", {"email": "ann@example.org", "name": "Ann"})
    url = site.web.store.engine.url.render_as_string(hide_password=False)
    use_store(None)  # as in another process: nothing named
    got = CliRunner().invoke(cli, ["mail", "send", "--db", url, "--now", site.clock().isoformat()])
    assert got.exit_code == 0, got.output
    assert "Sent 1;" in got.output
    assert [m["To"] for m in smtp.messages] == ["ann@example.org"]

    use_store(None)
    assert mail_sender() is None  # nobody named the database yet
    other = GameStore(url)
    try:
        Worker(other, fetch=None)
        assert mail_sender() == "games@example.org"
    finally:
        other.close()
    assert outbox_entries(site.web.store, include_sent=True)


@pytest.fixture
def listener() -> Iterator[list[tuple[str, str]]]:
    """Someone's own SMTP server on this machine that offers AUTH without TLS and keeps every login it is sent."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    logins: list[tuple[str, str]] = []

    def auth(_server: object, _session: object, _envelope: object, _mechanism: str, data: object) -> AuthResult:
        if isinstance(data, LoginPassword):
            logins.append((data.login.decode(), data.password.decode()))
        return AuthResult(success=True)

    server = SmtpServer("127.0.0.1", free_port())
    server.controller = Controller(
        _Recorder(), hostname=server.host, port=server.port, authenticator=auth, auth_require_tls=False
    )
    server.controller.start()
    logins.append(("port", str(server.port)))
    yield logins
    server.controller.stop()


class _Recorder:
    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        return "250 Message accepted for delivery"


def test_the_saved_password_goes_only_to_the_server_it_was_saved_with(
    site: Site, listener: list[tuple[str, str]]
) -> None:
    """Security review of issue 52, finding 9: saved for one host, the password left blank, and the host changed to
    one of the attacker's with action=test: the listener received ``\\0games\\0hunter2``. Anyone holding the
    coordinator's session could read the saved password that way, though the page never shows it."""
    port = listener.pop(0)[1]
    saved = {"host": "127.0.0.1", "port": "2525", "security": "none", "user": "games", "password": "hunter2"}
    r = site.post_form(site.coordinator, PAGE, {**saved, "from": "games@example.org", "action": "save"})
    assert r.status_code == 303, _text(r)

    for changed in ({"host": "localhost", "port": port}, {"port": port}, {"user": "other", "port": port}):
        typed = {**saved, "password": "", **changed, "from": "games@example.org", "to": "coord@example.org"}
        r = site.post_form(site.coordinator, PAGE, {**typed, "action": "test"})
        shown = _text(r)
        assert listener == [], changed  # not one login reached the other server
        assert r.status_code == 400, (changed, shown)
        assert "the saved password is kept only for the server it was saved with (smtp://games@127.0.0.1:2525)" in shown
        assert f"type the password for {typed['user']} at {typed['host']} again" in shown
    kept = stored_smtp(site.web.store)
    assert kept is not None and (kept.host, kept.port, kept.stored_password) == ("127.0.0.1", 2525, "hunter2")
    page = _text(site.coordinator.get(PAGE))
    assert "A password is saved for smtp://games@127.0.0.1:2525" in page
    assert "for another host, port, security or user, type the password again" in page

    # Typed again, it goes where it is typed for; and the same server keeps taking the blank.
    typed = {**saved, "host": "localhost", "port": port, "password": "other-pass", "from": "games@example.org"}
    r = site.post_form(site.coordinator, PAGE, {**typed, "to": "coord@example.org", "action": "test"})
    assert r.status_code == 303, _text(r)
    assert listener == [("games", "other-pass")]
    again = {**typed, "password": ""}
    r = site.post_form(site.coordinator, PAGE, {**again, "to": "coord@example.org", "action": "test"})
    assert r.status_code == 303, _text(r)
    assert listener == [("games", "other-pass")] * 2


def test_a_local_sender_is_taken(site: Site, smtp: SmtpServer) -> None:
    """games@localhost, the address a mail server on this machine delivers (the README's local set-up), is a
    sender (the players' trial: refused, with the example "games@0.1" made of the server's address)."""
    r = site.post_form(site.coordinator, PAGE, {**_plain(smtp), "from": "games@localhost", "action": "save"})
    assert r.status_code == 303, _text(r)
    saved = stored_smtp(site.web.store)
    assert saved is not None and saved.sender == "games@localhost"
