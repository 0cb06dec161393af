"""Owned by its issue; schema arrives with it."""

MIGRATIONS: list = []
