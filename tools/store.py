"""Tool tables. (Built with the tools.)"""

MIGRATIONS: list = []
