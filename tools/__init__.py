"""What kept can do. Each module defines its tools; ``all_tools()`` gathers them."""

from __future__ import annotations

import importlib

TOOL_MODULES = ("tools.calendar", "tools.messages", "tools.tasks", "tools.memory_search")


def all_tools() -> list:
    found = []
    for name in TOOL_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that tool set is not built yet
                continue
            raise
        found.extend(module.TOOLS)
    return found
