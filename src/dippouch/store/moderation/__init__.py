"""Fair play between people, as stored: blocks, the devices and networks people sign in from (only keyed hashes),
the signals that two accounts may be one person, bans, merges, reports and the moderators' log (:mod:`.stored`),
and their tables (:mod:`.models`, migration 0025).

A domain beside the games core: it reads people, seats and press to say who shares a device or a game, and the
core never names it. Nothing here is shown to anyone but the installation's coordinator (the doors check:
:mod:`dippouch.play.moderation`).
"""
