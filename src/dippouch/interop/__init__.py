"""Converters between dippouch games and other programs' file formats (MILA ``diplomacy`` saved games)."""
