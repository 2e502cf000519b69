"""Notifications as stored: each person's choices, push subscriptions, webhooks and the one queue
(:mod:`.stored`), the game's event log as the dispatcher reads it (:mod:`.events`), and the tables
(:mod:`.models`).

A domain beside the games core: it reads the games' events and phases, and the core never names it (an event
is logged by the core and found here by the dispatcher's mark).
"""
