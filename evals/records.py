"""A run folder's records: one JSON line per item, design and repeat (records.jsonl).

Both the runner (evals/run.py), which appends them, and the report
(evals/report.py), which reads them, use this module, so neither imports the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "records.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run is redone on resume
    return out
