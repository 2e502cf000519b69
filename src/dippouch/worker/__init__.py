"""Deadline workers: processing due phases from any number of processes and machines."""
