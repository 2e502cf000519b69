"""People's pure logic: what follows from a person's record, addresses and wishes, with no I/O, no clock, no storage (the store reads and writes)."""
