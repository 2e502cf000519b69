"""People as stored: a person, the seats they play and finding them by address (:mod:`.persons`), their
accounts (sign-in links, passkeys, the calendar feed's secret: :mod:`.accounts`), their postal addresses and the
rulebook's player list (:mod:`.addresses`), their holidays and each game's policy for a player away
(:mod:`.absences`), their reliability read from the seats they held (:mod:`.reliability`), the registry that
downloads or deletes everything kept about a person (:mod:`.data`), and the tables of all but the person
(:mod:`.models`).

The person's own row (``people``) stays with the game tables in :mod:`dippouch.store.models`, beside the seats
whose foreign key points to it, so every command that maps a seat maps its person too. The games core never
names this package: the absence policy at a deadline and a stand-in's seats are registered with it in
:mod:`.hooks`.
"""
