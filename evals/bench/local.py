"""`kept bench local`: how fast the embedded model answers, and what the saved prefix buys.

In one run: the model load; the fixed persona-and-tools prefix evaluated
cold (no saved state) and restored from disk; then time to first token and
tokens per second for a question and for a booking, cold, and in a second
process that starts from the prefix the first one saved. The target: the
second process's time to first token for the question is at most a quarter of
the cold one. The saved states go to a fresh temporary folder, so "cold" is
cold whatever an earlier chat saved.

Time to first token counts from the call to the first generated token: the
prefix (evaluated or restored), then the rest of the prompt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

QUESTION = "What did I tell you about the Atlas launch?"
BOOKING = "Book a meeting with Marco Rossi tomorrow at 2pm about the Atlas launch plan."
MAX_TOKENS = 48
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=ZoneInfo("Europe/Berlin"))


def _prompt(root: Path, text: str):
    """kept's real prompt for ``text`` over a scratch store: (system, messages, tools)."""
    from agent import context
    from agent.models.base import ToolSpec
    from agent.session import open_store
    from memory import messages as store
    from tools import all_tools

    db = open_store(str(root / "bench.db"))
    chat = store.get_chat(db, "me")
    ctx = context.build(db, chat, text, NOW, "Europe/Berlin")
    db.conn.close()
    return ctx.system, ctx.messages, [ToolSpec(t.name, t.description, t.parameters) for t in all_tools()]


def _turn(model, root: Path, text: str) -> dict:
    system, messages, tools = _prompt(root, text)
    started = time.perf_counter()
    model.complete(messages, system=system, tools=tools, max_tokens=MAX_TOKENS)
    t = model.last_timing
    return {
        "prefix_source": t.get("prefix_source", ""),
        "prefix_seconds": t.get("prefix_seconds", 0.0),
        "first_token_seconds": t.get("prefix_seconds", 0.0) + t["prompt_seconds"],
        "prompt_tokens": t["prompt_tokens"],
        "tokens_per_second": t["output_tokens"] / t["output_seconds"] if t["output_seconds"] > 0 else 0.0,
        "output_tokens": t["output_tokens"],
        "call_seconds": time.perf_counter() - started,
    }


def _model():
    from agent.models.local import LocalModel, load

    started = time.perf_counter()
    llm = load()
    return LocalModel(guard=False), llm, time.perf_counter() - started  # one generation per turn: its timing


def child(root: Path) -> dict:
    """The second process: load, then a question and a booking from the saved prefixes."""
    model, _llm, load_seconds = _model()
    return {
        "load_seconds": load_seconds,
        "question": _turn(model, root, QUESTION),
        "booking": _turn(model, root, BOOKING),
    }


def run() -> dict:
    from agent.models import prefix_cache

    with tempfile.TemporaryDirectory(prefix="kept-bench-local-") as tmp:
        root = Path(tmp)
        os.environ[prefix_cache.ENV_DIR] = str(root / "prefix")
        model, llm, load_seconds = _model()
        # Cold: nothing saved, nothing in the KV cache.
        os.environ[prefix_cache.ENV_OFF] = "0"
        llm.reset()
        cold_question = _turn(model, root, QUESTION)
        llm.reset()
        cold_booking = _turn(model, root, BOOKING)
        # This process saves both prefixes (as any chat does), then restores one from disk.
        os.environ[prefix_cache.ENV_OFF] = "1"
        for text in (QUESTION, BOOKING):
            llm.reset()
            _turn(model, root, text)
        llm.reset()
        restored = _turn(model, root, QUESTION)
        env = {**os.environ, prefix_cache.ENV_DIR: str(root / "prefix"), prefix_cache.ENV_OFF: "1"}
        proc = subprocess.run(
            [sys.executable, "-m", "evals.bench.local", "--child", str(root)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"the second process failed: {proc.stderr.strip()[-400:]}")
        second = json.loads(proc.stdout.strip().splitlines()[-1])
    ratio = second["question"]["first_token_seconds"] / max(cold_question["first_token_seconds"], 1e-9)
    return {
        "load_seconds": load_seconds,
        "cold_prefix_seconds": cold_question["prefix_seconds"],
        "restored_prefix_seconds": restored["prefix_seconds"] if restored["prefix_source"] == "disk" else None,
        "cold": {"question": cold_question, "booking": cold_booking},
        "second_process": second,
        "ratio_question_first_token": ratio,
        "target_met": ratio <= 0.25,
    }


def render(r: dict) -> str:
    def row(label: str, t: dict) -> str:
        return (
            f"  {label:<28} first token {t['first_token_seconds']:6.2f}s  ({t['prompt_tokens']} prompt tokens, "
            f"prefix {t['prefix_source'] or '-'} {t['prefix_seconds']:.2f}s)  {t['tokens_per_second']:5.1f} tok/s"
        )

    restored = r["restored_prefix_seconds"]
    lines = [
        f"model load                   {r['load_seconds']:.2f}s",
        f"prefix, cold (evaluated)     {r['cold_prefix_seconds']:.2f}s",
        f"prefix, restored from disk   {restored:.2f}s"
        if restored is not None
        else "prefix, restored from disk   (not restored)",
        "this process, cold:",
        row("question", r["cold"]["question"]),
        row("booking", r["cold"]["booking"]),
        f"second process (model load {r['second_process']['load_seconds']:.2f}s), from the saved prefix:",
        row("question", r["second_process"]["question"]),
        row("booking", r["second_process"]["booking"]),
        f"second process / cold, question first token: {r['ratio_question_first_token']:.3f} "
        f"(target <= 0.25: {'met' if r['target_met'] else 'NOT met'})",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child(Path(sys.argv[2]))))
    else:
        print(render(run()))
