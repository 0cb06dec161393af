"""The write pass. (Issue 3 fills this in.)"""

from __future__ import annotations
