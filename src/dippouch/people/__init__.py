"""Players as people: pure rules about persons (no I/O, no clock, no storage); the store keeps what they decide on."""
