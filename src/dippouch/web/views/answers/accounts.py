"""The JSON API's answers: a signed-in person's account (dippouch.web.routes.accounts)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dippouch.web.views.answers.base import Answer

__all__ = [
    "KeySeat",
    "MeView",
    "MyLeftSeat",
    "MyPasskey",
    "MySeat",
    "MySignup",
    "MyStart",
    "PasskeyOptions",
    "SignedIn",
]


# Accounts (web/routes/accounts.py)


class MySeat(Answer):
    """A seat the signed-in person plays, and whether their orders for the open phase are in."""

    game: str
    variant: str
    power: str
    state: str
    phase: str | None
    deadline: str | None
    orders: str
    """``in``, ``missing``, ``not needed``, or ``none`` (no open phase)."""
    url: str
    leaving: bool | None = Field(None, description="They resigned it; it waits in the pool for a new player.")
    resignable: bool | None = Field(
        None, description="They may leave it (a game opened for players, not finished): its page's Leave form."
    )


class KeySeat(Answer):
    """A seat the browser holds by its player key only: it may be added to the account."""

    key_id: int
    game: str | None
    power: str | None


class MyPasskey(Answer):
    id: int
    label: str
    created_at: str | None
    last_used_at: str | None


class MySignup(Answer):
    """A sign-up of the person's waiting for a power."""

    game: str
    variant: str
    wishes: list[str] = Field(description="The powers they asked for, best first.")
    signed_at: str | None
    waiting_list: bool = Field(description="Beyond the empty powers: they get one as one comes free.")
    empty: int = Field(description="Powers of the game nobody plays yet.")
    url: str = Field(description="The game's opening page.")


class MyStart(Answer):
    """A game of theirs that just filled and starts."""

    game: str
    power: str
    at: str | None = Field(description="When it started.")
    url: str


class MyLeftSeat(Answer):
    """A seat they left, and whether someone took it."""

    game: str
    power: str
    why: str = Field(description="resigned, freed (by the coordinator) or disorder.")
    at: str | None
    taken_at: str | None = Field(description="When another player took it (null: it still waits).")


class MeView(Answer):
    """The signed-in person's own page: never another's."""

    person_id: int | None = Field(None, description="Their person page, /people/ID: their public record.")
    name: str
    email: str | None
    seats: list[MySeat]
    coordinates: list[str]
    """Games they coordinate by key (``""``: the whole installation)."""
    keys_to_add: list[KeySeat]
    calendar_since: str | None
    passkeys: list[MyPasskey]
    signups: list[MySignup] = Field(default_factory=list, description="Sign-ups waiting for a power.")
    starting: list[MyStart] = Field(default_factory=list, description="Games of theirs that just filled and start.")
    left: list[MyLeftSeat] = Field(default_factory=list, description="Seats they left (the last 20).")
    links_read: list[str] = Field(
        default_factory=list,
        description="When the installation's coordinator read a sign-in link to their address on the outbox "
        "(while the site could not send mail), newest first: whoever reads one can sign in as them.",
    )


class PasskeyOptions(Answer):
    """WebAuthn options for the browser (``PublicKeyCredentialCreationOptionsJSON`` or ``...RequestOptionsJSON``)."""

    options: dict[str, Any]


class SignedIn(Answer):
    ok: bool
    url: str
