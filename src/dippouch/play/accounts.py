"""A person's way in and own settings: a sign-in link mailed, used or (while the site sends no mail) unsealed by
the coordinator, passkeys added, used and removed, the calendar feed's secret address made or revoked, the
person's language and time zone.

The passkey ceremonies (WebAuthn, checked by py_webauthn) are decided here, not in the page that runs them: the
challenge is the installation's and used once, the answer is checked against the site's own name and origin
(given by the caller from the configured public address, never from a request's ``Host``), and a refusal is a
message value the door says in its reader's language. A door adds only what is its own: rate limits, cookies,
where the browser goes next."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.store.db import Database
from dippouch.store.people import accounts as store_accounts
from dippouch.store.people import persons as people

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals."""

__all__ = [
    "PasskeyMalformed",
    "PasskeyRefused",
    "ask_signin_link",
    "passkey_register_options",
    "passkey_signin_options",
    "register_passkey",
    "remove_passkey",
    "renew_calendar",
    "revoke_calendar",
    "set_language",
    "set_time_zone",
    "show_signin_mail",
    "sign_in_by_link",
    "sign_in_with_passkey",
]


class PasskeyRefused(DippouchError):
    """A passkey's answer that does not sign anyone in or add a key: malformed, not registered here, or not
    passing the checks. A door counts it among failed sign-ins."""


class PasskeyMalformed(PasskeyRefused):
    """An answer not in the shape WebAuthn gives (no client data, not base64url): bad input, not a try at a
    key."""


def ask_signin_link(
    db: Database,
    address: str,
    *,
    now: datetime,
    name: str = "",
    compose: Callable[[str, str | None, bool], tuple[str, str]],
) -> None:
    """A sign-in link mailed to ``address`` (a sign-up link for a new one), composed by the door in its
    reader's language; whether the address is known is never told (:func:`dippouch.store.people.accounts.create_signin_link`)."""
    store_accounts.create_signin_link(db, address, now=now, name=name, compose=compose)


def sign_in_by_link(db: Database, token: str, *, now: datetime, name: str | None = None) -> int:
    """The person a mailed link signs in (made with ``name`` when the link was a sign-up), the link used up."""
    return store_accounts.use_link(db, token, now=now, name=name)


def renew_calendar(db: Database, person_id: int, *, now: datetime) -> str:
    """A new secret token for the person's calendar feed (the old address stops working)."""
    return store_accounts.new_calendar_token(db, person_id, now=now)


def revoke_calendar(db: Database, person_id: int, *, now: datetime) -> None:
    """The person's calendar feed address stops working."""
    store_accounts.revoke_calendar(db, person_id, now=now)


def set_language(db: Database, person_id: int, language: str | None) -> None:
    """The person's language, for every browser of theirs and their mail (``None``: each browser's own)."""
    people.set_language(db, person_id, language)


def set_time_zone(db: Database, person_id: int, zone: str | None) -> None:
    """The zone the person's dates and times are shown in (``None``: the game's, else UTC)."""
    people.set_time_zone(db, person_id, zone)


def show_signin_mail(db: Database, mail_id: int, *, now: datetime) -> str | None:
    """A sign-in link's mail unsealed by the installation's coordinator (while the site sends no mail, the way a
    link reaches its owner), the reading recorded where the owner sees it; None if there is no such mail."""
    return store_accounts.show_signin_mail(db, mail_id, now=now)


def remove_passkey(db: Database, person_id: int, passkey_id: int) -> None:
    """One of the person's own passkeys removed (another's is refused as one they do not have)."""
    store_accounts.remove_passkey(db, person_id, passkey_id)


def passkey_register_options(db: Database, person_id: int, *, rp_id: str, now: datetime) -> dict[str, Any]:
    """The options a browser's ``navigator.credentials.create`` takes for the person to add a passkey: a fresh
    challenge, their keys excluded (a device does not register twice)."""
    from webauthn import generate_registration_options, options_to_json
    from webauthn.helpers import base64url_to_bytes
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        PublicKeyCredentialDescriptor,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    p = people.person(db, person_id)
    if p is None:
        raise PasskeyRefused(msg("this account was deleted: it can have no passkey"))
    challenge = store_accounts.new_challenge(db, "register", now=now, person_id=person_id)
    opts = generate_registration_options(
        rp_id=rp_id,
        rp_name="dippouch",
        user_id=f"dippouch-person-{person_id}".encode(),
        user_name=p.email or p.name,
        user_display_name=p.name,
        challenge=challenge,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.credential_id))
            for k in store_accounts.passkeys_of(db, person_id)
        ],
    )
    options: dict[str, Any] = json.loads(options_to_json(opts))
    return options


def register_passkey(
    db: Database, person_id: int, credential: dict[str, Any], *, rp_id: str, origin: str, now: datetime
) -> None:
    """The browser's new credential kept for the person, once its challenge (ours, unused, theirs), origin
    and relying party are checked."""
    from webauthn import verify_registration_response
    from webauthn.helpers import bytes_to_base64url
    from webauthn.helpers.exceptions import InvalidRegistrationResponse

    challenge = _client_challenge(credential)
    store_accounts.take_challenge(db, challenge, "register", now=now, person_id=person_id)
    try:
        v = verify_registration_response(
            credential=credential, expected_challenge=_b64d(challenge), expected_rp_id=rp_id, expected_origin=origin
        )
    except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as e:
        raise PasskeyRefused(msg("the passkey could not be checked: %(reason)s", reason=str(e))) from None
    label = str(credential.get("label") or "passkey")[:200]
    store_accounts.add_passkey(
        db, person_id, bytes_to_base64url(v.credential_id), v.credential_public_key, v.sign_count, label=label, now=now
    )


def passkey_signin_options(db: Database, *, rp_id: str, now: datetime) -> dict[str, Any]:
    """The options for ``navigator.credentials.get``: a fresh challenge and no credential named (the browser
    offers the passkeys it has for this site: nobody learns whose they are)."""
    from webauthn import generate_authentication_options, options_to_json
    from webauthn.helpers.structs import UserVerificationRequirement

    challenge = store_accounts.new_challenge(db, "signin", now=now)
    opts = generate_authentication_options(
        rp_id=rp_id, challenge=challenge, user_verification=UserVerificationRequirement.PREFERRED
    )
    options: dict[str, Any] = json.loads(options_to_json(opts))
    return options


def sign_in_with_passkey(db: Database, credential: dict[str, Any], *, rp_id: str, origin: str, now: datetime) -> int:
    """The person a passkey's answer signs in: its challenge ours and unused, its signature by a key registered
    here (whose count of uses is kept, so a cloned key shows)."""
    from webauthn import verify_authentication_response
    from webauthn.helpers.exceptions import InvalidAuthenticationResponse

    challenge = _client_challenge(credential)
    key = store_accounts.passkey(db, str(credential.get("id") or credential.get("rawId") or ""))
    if key is None:
        raise PasskeyRefused(msg("this passkey is not registered here (or its account was deleted)"))
    store_accounts.take_challenge(db, challenge, "signin", now=now)
    try:
        v = verify_authentication_response(
            credential=credential,
            expected_challenge=_b64d(challenge),
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=key.public_key,
            credential_current_sign_count=key.sign_count,
        )
    except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError) as e:
        raise PasskeyRefused(msg("the passkey's answer could not be checked: %(why)s", why=str(e))) from None
    store_accounts.touch_passkey(db, key.id, v.new_sign_count, now=now)
    return key.person_id


def _b64d(text: str) -> bytes:
    from webauthn.helpers import base64url_to_bytes

    try:
        return base64url_to_bytes(text)
    except (ValueError, TypeError):
        raise PasskeyMalformed(msg("the passkey's answer is not in the expected shape")) from None


def _client_challenge(credential: dict[str, Any]) -> str:
    """The challenge the browser signed, read from its clientDataJSON (checked again by the library)."""
    try:
        client = json.loads(_b64d(str(credential["response"]["clientDataJSON"])))
        return str(client["challenge"])
    except (KeyError, TypeError, ValueError):
        raise PasskeyMalformed(msg("the passkey's answer is not in the expected shape (no clientDataJSON)")) from None
