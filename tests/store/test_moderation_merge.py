"""Merging two accounts (store.moderation.merge) carries over what the merged account kept for itself: its
holidays, postal addresses and notification settings (choices, deadline lead, targets), its language and time
zone; kept once where both hold the same, the surviving account's own value winning where both differ. On
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, date, datetime

from dippouch.store import GameStore
from dippouch.store.moderation.stored import merge
from dippouch.store.notify.stored import add_target, set_preferences, stored_preferences, targets
from dippouch.store.people.absences import absences_of, record_absence
from dippouch.store.people.addresses import add_address, addresses_of
from dippouch.store.people.persons import create_person, person, preferences, set_language, set_time_zone

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_a_merge_carries_holidays_addresses_and_notification_settings_over(store: GameStore) -> None:
    keep = create_person(store, "Kept", now=NOW, email="kept@example.org")
    gone = create_person(store, "Second", now=NOW, email="second@example.org")
    # Holidays: one the same days as the survivor's (kept once), one of its own.
    record_absence(store, keep, date(2026, 4, 1), date(2026, 4, 7), now=NOW, reason="spring")
    record_absence(store, gone, date(2026, 4, 1), date(2026, 4, 7), now=NOW, reason="the same trip")
    record_absence(store, gone, date(2026, 8, 1), date(2026, 8, 14), now=NOW, reason="summer")
    # Addresses: both have a primary (the survivor's wins); an alternate of the merged one's own.
    add_address(store, keep, "1 Kept Street", now=NOW)
    add_address(store, gone, "2 Second Road", now=NOW)
    add_address(store, gone, "3 Summer Lane", now=NOW, first_day=date(2026, 8, 1), last_day=date(2026, 8, 14))
    # Notification choices: one pair both chose (the survivor's wins), one only the merged account chose.
    set_preferences(store, keep, {("press", "email"): False})
    set_preferences(store, gone, {("press", "email"): True, ("deadline", "push"): True}, deadline_hours=6)
    hook = {"url": "https://chat.example.org/hook/1"}
    add_target(store, keep, channel="webhook", kind="slack", config=hook, label="mine", now=NOW)
    add_target(store, gone, channel="webhook", kind="slack", config=hook, label="same hook", now=NOW)
    add_target(
        store, gone, channel="webhook", kind="discord", config={"url": "https://d.example.org/2"}, label="d", now=NOW
    )
    set_language(store, gone, "de")
    set_time_zone(store, gone, "Europe/Berlin")
    set_time_zone(store, keep, "Europe/Paris")

    merge(store, gone, keep, now=NOW, by="the installation's coordinator")

    assert sorted((a.first_day, a.last_day) for a in absences_of(store, keep)) == [
        (date(2026, 4, 1), date(2026, 4, 7)),
        (date(2026, 8, 1), date(2026, 8, 14)),
    ]
    assert [a.reason for a in absences_of(store, keep) if a.first_day == date(2026, 4, 1)] == ["spring"]
    assert [(a.text, a.first_day) for a in addresses_of(store, keep)] == [
        ("1 Kept Street", None),
        ("3 Summer Lane", date(2026, 8, 1)),
    ]
    choices, lead = stored_preferences(store, keep)
    assert choices == {("press", "email"): False, ("deadline", "push"): True}
    assert lead == 6  # the survivor had none of its own
    assert sorted((t.kind, t.label) for t in targets(store, keep)) == [("discord", "d"), ("slack", "mine")]
    kept = preferences(store, keep)
    assert (kept.language, kept.time_zone) == ("de", "Europe/Paris")
    # Nothing is left behind on the merged account (it is banned from signing in, not deleted).
    assert absences_of(store, gone) == [] and addresses_of(store, gone) == [] and targets(store, gone) == []
    assert stored_preferences(store, gone) == ({}, None)
    assert person(store, gone) is not None
