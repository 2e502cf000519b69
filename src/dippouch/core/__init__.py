"""The pure core: maps, positions, orders, notation, adjudication and rules. No I/O, no clocks."""
