"""dippouch: run games of Diplomacy variants, from adjudication to the coordinator's desk."""

__version__ = "0.1.0"
