"""Mail as stored: messages taken in and what became of them (:mod:`.inbox`), the outbound queue
(:mod:`.outbox`, read by :mod:`.queues`), players' mail tokens (:mod:`.tokens`), the games as mail reads them
(:mod:`.games`), photographed orders (:mod:`.photos`), phases held for the coordinator's review
(:mod:`.review`), the mail record in a game file (:mod:`.record`), the reader of reasons stored before they were
messages (:mod:`.legacy`, migration 0033), what became of a message as a value (:mod:`.finish`), and the tables
(:mod:`.models`).

The games core maps none of these tables at start-up: a command that only submits orders never loads them. The
core never names this package: the mail registers its part in the core's work in :mod:`.hooks` (a held phase is
not due, photographs sent count as taking part, a submission made of a message records the message's end in its
transaction, a game file carries the mail record), each hook importing its room when first called.
"""
