"""Taking a person's push subscription or chat webhook: every field checked before it is kept, with a
refusal that says what is wrong (an address inside the network, a key that is not a P-256 point...)."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.notify.safety import check_url
from dippouch.store.notify import stored
from dippouch.store.repository import GameStore

__all__ = ["WEBHOOK_KINDS", "add_push", "add_webhook", "remove_target"]

I18N_DOMAIN = "rules"
"""The catalogue of the notification targets' refusals, said in the reader's language where they are shown
(dippouch.saying)."""

WEBHOOK_KINDS = {"discord": "Discord", "slack": "Slack", "matrix": "Matrix"}
MAX_LABEL = 100
MAX_TOKEN = 500


def _unb64url(text: object, what: str) -> bytes:
    if not isinstance(text, str) or len(text) > 200:
        raise GameError(msg("the subscription's %(what)s key is missing or too long", what=what))
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise GameError(msg("the subscription's %(what)s key is not base64url", what=what)) from None


def add_push(db: GameStore, person_id: int, subscription: dict[str, Any], *, now: datetime, label: str = "") -> int:
    """Keep a browser's push subscription (``PushSubscription.toJSON()``: endpoint, keys p256dh and auth);
    the same endpoint again replaces its keys."""
    from cryptography.hazmat.primitives.asymmetric import ec

    endpoint = check_url(str(subscription.get("endpoint") or ""), msg("push endpoint"))
    keys = subscription.get("keys")
    if not isinstance(keys, dict):
        raise GameError(msg("the subscription has no keys (p256dh and auth)"))
    p256dh = _unb64url(keys.get("p256dh"), "p256dh")
    auth = _unb64url(keys.get("auth"), "auth")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p256dh)
    except ValueError:
        raise GameError(msg("the subscription's p256dh key is not a P-256 public key")) from None
    if len(auth) != 16:
        raise GameError(msg("the subscription's auth secret is %(size)d bytes; a browser's is 16", size=len(auth)))
    config = {"endpoint": endpoint, "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]}}
    label = (label or f"browser ({urlsplit(endpoint).hostname})")[:MAX_LABEL]
    return stored.add_target(
        db, person_id, channel="push", kind="push", config=config, label=label, now=now, same="endpoint"
    )


def add_webhook(
    db: GameStore,
    person_id: int,
    kind: str,
    *,
    url: str,
    now: datetime,
    room: str = "",
    token: str = "",
    label: str = "",
) -> int:
    """Keep a chat webhook: Discord's or Slack's incoming-webhook address, or for Matrix the homeserver's
    address, a room id (``!abc:example.org``) and an access token of the account that posts."""
    if kind not in WEBHOOK_KINDS:
        raise GameError(
            msg("no webhook kind %(kind)s; choose %(kinds)s", kind=repr(kind), kinds=", ".join(WEBHOOK_KINDS))
        )
    what = (
        msg("Matrix homeserver address")
        if kind == "matrix"
        else msg("%(kind)s webhook address", kind=WEBHOOK_KINDS[kind])
    )
    url = check_url(url, what)
    config: dict[str, Any] = {"url": url}
    if kind == "matrix":
        room, token = room.strip(), token.strip()
        if not (room.startswith("!") and ":" in room and len(room) <= 255 and " " not in room):
            raise GameError(msg("a Matrix room id looks like !abc123:example.org (got %(room)s)", room=repr(room[:60])))
        if not token or len(token) > MAX_TOKEN or any(c.isspace() for c in token):
            raise GameError(msg("a Matrix access token is 1 to %(most)d characters without spaces", most=MAX_TOKEN))
        config = {"homeserver": url, "room": room, "token": token}
    label = " ".join(str(label).split())[:MAX_LABEL] or f"{WEBHOOK_KINDS[kind]} ({urlsplit(url).hostname})"
    return stored.add_target(db, person_id, channel="webhook", kind=kind, config=config, label=label, now=now)


def remove_target(db: GameStore, person_id: int, target_id: int) -> None:
    stored.remove_target(db, person_id, target_id)
