"""People's pure logic: what follows from a person's record and wishes, with no I/O (the store reads and writes)."""
