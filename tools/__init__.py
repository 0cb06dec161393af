"""What kept can do. Each module defines its tools; ``all_tools()`` gathers them."""

from __future__ import annotations

import importlib

TOOL_MODULES = ("tools.calendar", "tools.messages", "tools.tasks", "tools.memory_search")


def all_tools() -> list:
    return [tool for name in TOOL_MODULES for tool in importlib.import_module(name).TOOLS]
