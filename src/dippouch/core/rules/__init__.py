"""Variant rule hooks. Each module registers the hooks it provides when imported."""
