"""Reports of a run: tables in Markdown, paired differences with bootstrap
intervals, and PNG charts (written without plotting libraries)."""

from __future__ import annotations

import json
import random
import statistics
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from evals.items import KINDS
from evals.records import read_records

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

# An item's key in a paired comparison: sortable, so the bootstrap draws the same sample every run.
Key = TypeVar("Key", bound="SupportsRichComparison")

DESIGN_ORDER = ("none", "full", "summary", "raw", "kept", "oracle")


def _designs(records: list[dict[str, Any]]) -> list[str]:
    seen = {r["design"] for r in records}
    return [d for d in DESIGN_ORDER if d in seen] + sorted(seen - set(DESIGN_ORDER))


def _pct(values: list[bool]) -> str:
    return f"{100 * sum(values) / len(values):.0f}% ({sum(values)}/{len(values)})" if values else "–"


def _scored(records):
    return [r for r in records if r.get("passed") is not None and not r.get("infra")]


def context_table(records: list[dict[str, Any]]) -> str:
    """Each design by kind and by persona, with tokens per answer and memories injected on ordinary turns."""
    designs = _designs(records)
    scored = _scored(records)
    lines = ["| kind | " + " | ".join(designs) + " |", "|---|" + "---|" * len(designs)]
    for kind in KINDS:
        cells = [_pct([r["passed"] for r in scored if r["kind"] == kind and r["design"] == d]) for d in designs]
        if any(c != "–" for c in cells):
            lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines.append(
        "| **all scored** | "
        + " | ".join(_pct([r["passed"] for r in scored if r["design"] == d]) for d in designs)
        + " |"
    )
    memory_items = [r for r in scored if r.get("needs_memory")]
    lines.append(
        "| needs memory | "
        + " | ".join(_pct([r["passed"] for r in memory_items if r["design"] == d]) for d in designs)
        + " |"
    )
    lines.append(
        "| tasks | "
        + " | ".join(
            _pct([r["passed"] for r in memory_items if r["design"] == d and r.get("is_task")]) for d in designs
        )
        + " |"
    )
    lines.append(
        "| questions | "
        + " | ".join(
            _pct([r["passed"] for r in memory_items if r["design"] == d and not r.get("is_task")]) for d in designs
        )
        + " |"
    )
    tok = []
    for d in designs:
        vals = [r["context_tokens_est"] for r in records if r["design"] == d]
        tok.append(f"{statistics.mean(vals):,.0f}" if vals else "–")
    lines.append("| context tokens per answer (est.) | " + " | ".join(tok) + " |")
    inj = []
    for d in designs:
        vals = [r["injected"] for r in records if r["design"] == d and r["kind"] == "ordinary"]
        inj.append(f"{statistics.mean(vals):.1f}" if vals else "–")
    lines.append("| memories injected per ordinary turn | " + " | ".join(inj) + " |")
    out = ["### By kind (all personas)", "", *lines, "", "### By persona (items that need memory)", ""]
    personas = sorted({r["persona"] for r in records}, key=lambda p: [r["persona"] for r in records].index(p))
    out.append("| persona | " + " | ".join(designs) + " | tokens: " + " / ".join(designs) + " |")
    out.append("|---|" + "---|" * (len(designs) + 1))
    for p in personas:
        cells = [_pct([r["passed"] for r in memory_items if r["persona"] == p and r["design"] == d]) for d in designs]
        toks = []
        for d in designs:
            vals = [r["context_tokens_est"] for r in records if r["persona"] == p and r["design"] == d]
            toks.append(f"{statistics.mean(vals):,.0f}" if vals else "–")
        out.append(f"| {p} | " + " | ".join(cells) + " | " + " / ".join(toks) + " |")
    stale: defaultdict[str, int] = defaultdict(int)
    for r in records:
        if r.get("outcome") == "stale_only":
            stale[r["design"]] += 1
    if stale:
        out += ["", "Stale value only (current missing): " + ", ".join(f"{d} {stale[d]}" for d in designs if stale[d])]
    return "\n".join(out) + "\n"


def extraction_table(paths: list[Path]) -> list[str]:
    """The extraction stage per persona (see evals/extraction.py for every definition)."""
    rows = [(p.stem[len("extraction-") :], json.loads(p.read_text()).get("facts")) for p in paths]
    rows = [(name, f) for name, f in rows if f]
    if not rows:
        return []
    out = [
        "### Extraction: planted facts",
        "",
        "Current planted facts: an active fact holds the value, said on the right day / on another day / none. "
        "Changed facts: the latest value active and no earlier one (linked: recorded as an update of the old fact). "
        "Active facts: planted, stale (an earlier value of a changed fact), wrong (a value from the history bound "
        "to the wrong subject), invented (a value or name no message holds), unplanned (faithful, not planted).",
        "",
        "| persona | right value and date | wrong date | missing | changed: superseded (linked) | stale left active | "
        "active facts | planted | stale | wrong | invented | unplanned | SOUL wishes kept |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, f in rows:
        out.append(
            f"| {name} | {f['right']}/{f['current']} | {f['wrong_date']} | {f['missing']} | "
            f"{f['superseded']}/{f['changes']} ({f['linked']}) | {f['stale_left_active']} | {f['active_facts']} | "
            f"{f['facts_planted']} | {f['facts_stale']} | {f['facts_wrong']} | {f['facts_invented']} | "
            f"{f['facts_unplanned']} | {f['soul_kept']}/{f['soul_wishes']} |"
        )
    return out + [""]


def bootstrap_diff(
    a: dict[Key, bool], b: dict[Key, bool], n: int = 2000, seed: int = 7
) -> tuple[float, float, float, int]:
    """Mean paired difference (a - b) over items both have, with a 95% bootstrap interval."""
    keys = sorted(set(a) & set(b))
    if not keys:
        return (float("nan"),) * 3 + (0,)
    diffs = [float(a[k]) - float(b[k]) for k in keys]
    mean = sum(diffs) / len(diffs)
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(n))
    return mean, means[int(0.025 * n)], means[int(0.975 * n) - 1], len(keys)


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _secs(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def build_report(run_dir: Path, charts: bool = True) -> str:
    records = read_records(run_dir)
    if not records:
        raise ValueError(f"{run_dir} has no records")
    fp = json.loads((run_dir / "fingerprint.json").read_text())
    fair = json.loads((run_dir / "fairness.json").read_text()) if (run_dir / "fairness.json").exists() else None
    level = records[0]["level"]
    designs = _designs(records)
    scored = _scored(records)
    out = [
        f"# Eval run {run_dir.name}",
        "",
        f"Level: **{level}**; facts: {fp['settings'].get('facts')}; model: {fp['settings'].get('model') or '–'}; "
        f"commit `{fp['commit']}`; personas: "
        + ", ".join(f"{k} ({v['messages']} messages, {v['items']} items)" for k, v in fp["personas"].items()),
        "",
    ]
    if level == "context":
        out += [
            "## Context level",
            "",
            "Does the assembled context hold the current value? "
            "(tokens are estimates; ordinary turns are not scored, their injected memories are counted.)",
            "",
            context_table(records),
        ]
    else:
        out += ["## Accuracy by design and kind", ""]
        out.append("| kind | " + " | ".join(designs) + " |")
        out.append("|---|" + "---|" * len(designs))
        for kind in KINDS:
            cells = [_pct([r["passed"] for r in scored if r["kind"] == kind and r["design"] == d]) for d in designs]
            if any(c != "–" for c in cells):
                out.append(f"| {kind} | " + " | ".join(cells) + " |")
        for label, pick in (
            ("tasks", lambda r: r.get("is_task")),
            ("questions", lambda r: not r.get("is_task")),
            ("all", lambda r: True),
        ):
            out.append(
                f"| **{label}** | "
                + " | ".join(_pct([r["passed"] for r in scored if r["design"] == d and pick(r)]) for d in designs)
                + " |"
            )
        out += [
            "",
            "## Cost, tokens, time, infrastructure",
            "",
            "| design | input tokens / answer | output tokens / answer | cost / answer (USD) | median latency (s) | infra failures |",
            "|---|---|---|---|---|---|",
        ]
        for d in designs:
            rs = [r for r in records if r["design"] == d]
            ins = [r["input_tokens"] for r in rs if r.get("input_tokens") is not None]
            outs = [r["output_tokens"] for r in rs if r.get("output_tokens") is not None]
            costs = [r["cost_usd"] for r in rs if r.get("cost_usd") is not None]
            infra = [r for r in rs if r.get("infra")]
            out.append(
                f"| {d} | {statistics.mean(ins):,.0f} | {statistics.mean(outs):,.0f} | "
                f"{(statistics.mean(costs) if costs else float('nan')):.5f} | {_secs(_median([r.get('latency_s') for r in rs]))} | "
                f"{len(infra)}/{len(rs)} |"
                if ins and outs
                else f"| {d} | not reported | not reported | – | {_secs(_median([r.get('latency_s') for r in rs]))} | {len(infra)}/{len(rs)} |"
            )
        out += ["", "Memory writing is not part of answering; its model calls are logged in the run's write stats.", ""]
    written_by_kept = sorted(run_dir.glob("extraction-*.json"))
    if written_by_kept:
        out += [
            "## Memory writing (kept's write path)",
            "",
            "| persona | passes | model calls | input tokens | output tokens | cost (USD) | items covered by active facts | stale value still active |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for path in written_by_kept:
            data = json.loads(path.read_text())
            w, e = data["write"], data["extraction"]
            out.append(
                f"| {path.stem[len('extraction-') :]} | {w.get('passes')} | {w.get('model_calls')} | {w.get('input_tokens')} | "
                f"{w.get('output_tokens')} | {w.get('cost_usd')} | {e['covered']}/{e['items']} | {len(e['stale_active'])} |"
            )
        for path in written_by_kept:
            w = json.loads(path.read_text())["write"]
            if w.get("stopped"):
                out.append(
                    f"- {path.stem[len('extraction-') :]}: the write path stopped with {w.get('unread_messages')} "
                    f"messages unread: {w['stopped']}"
                )
        out.append("")
        out += extraction_table(written_by_kept)
    # Paired differences: kept against every other design, over the same items.
    if "kept" in designs:
        out += [
            "## Paired differences (kept minus other), 95% bootstrap intervals over items",
            "",
            "| other design | difference | 95% CI | items |",
            "|---|---|---|---|",
        ]
        by: defaultdict[str, dict[tuple[str, str, int], bool]] = defaultdict(dict)
        for r in scored:
            by[r["design"]][(r["persona"], r["item"], r.get("repeat", 0))] = bool(r["passed"])
        for d in designs:
            if d == "kept":
                continue
            mean, lo, hi, n = bootstrap_diff(by["kept"], by[d])
            out.append(f"| {d} | {mean:+.2f} | [{lo:+.2f}, {hi:+.2f}] | {n} |")
        out.append("")
    if fair:
        out += [
            "## Fairness checks",
            "",
            f"- `none`: {len(fair['none_passing'])} of {fair['none_checked']} memory items pass"
            + (": " + ", ".join(fair["none_passing"][:30]) if fair["none_passing"] else ""),
            f"- `oracle`: {len(fair['oracle_failing'])} of {fair['oracle_checked']} memory items fail"
            + (": " + ", ".join(fair["oracle_failing"][:30]) if fair["oracle_failing"] else ""),
            f"- verdict: {'ok' if fair['ok'] else 'NOT OK'}",
            "",
        ]
    if charts:
        written = write_charts(run_dir, records)
        if written:
            out += ["## Charts", ""] + [f"![{p.stem}]({p.name})" for p in written] + [""]
    text = "\n".join(out)
    (run_dir / "report.md").write_text(text, encoding="utf-8")
    return text


def write_charts(run_dir: Path, records: list[dict[str, Any]]) -> list[Path]:
    """Three PNGs: tasks against questions per design, accuracy by kind, accuracy against cost."""
    import matplotlib  # slow: loaded only when a report is written

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    designs = _designs(records)
    scored = _scored(records)

    def rate(rs):
        return 100 * sum(r["passed"] for r in rs) / len(rs) if rs else 0.0

    written = []
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(designs))
    mem = [r for r in scored if r.get("needs_memory")]
    ax.bar(
        [x - 0.2 for x in xs],
        [rate([r for r in mem if r["design"] == d and r.get("is_task")]) for d in designs],
        0.4,
        label="tasks",
    )
    ax.bar(
        [x + 0.2 for x in xs],
        [rate([r for r in mem if r["design"] == d and not r.get("is_task")]) for d in designs],
        0.4,
        label="questions",
    )
    ax.set_xticks(list(xs), designs)
    ax.set_ylabel("% passed")
    ax.set_ylim(0, 118)
    ax.legend(loc="upper left", ncol=2)
    ax.set_title("Tasks against questions (items that need memory)")
    fig.tight_layout()
    written.append(run_dir / "tasks_vs_questions.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    kinds = [k for k in KINDS if any(r["kind"] == k for r in scored)]
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / max(1, len(designs))
    for j, d in enumerate(designs):
        ax.bar(
            [i + j * width for i in range(len(kinds))],
            [rate([r for r in scored if r["kind"] == k and r["design"] == d]) for k in kinds],
            width,
            label=d,
        )
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(kinds))], kinds, rotation=30, ha="right")
    ax.set_ylabel("% passed")
    ax.set_ylim(0, 118)  # headroom so the legend never covers a full bar
    ax.legend(ncol=len(designs), fontsize=8, loc="upper left")
    ax.set_title("Accuracy by kind")
    fig.tight_layout()
    written.append(run_dir / "accuracy_by_kind.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    use_cost = any(r.get("cost_usd") for r in records)
    key = "cost_usd" if use_cost else "context_tokens_est"
    fig, ax = plt.subplots(figsize=(6, 4))
    for d in designs:
        vals = [r[key] for r in records if r["design"] == d and r.get(key) is not None]
        x = statistics.mean(vals) if vals else 0.0
        y = rate([r for r in scored if r["design"] == d])
        ax.scatter([x], [y])
        ax.annotate(d, (x, y), textcoords="offset points", xytext=(4, 4))
    ax.set_xscale("symlog")
    ax.set_xlabel("cost per answer (USD)" if use_cost else "context tokens per answer (estimated)")
    ax.set_ylabel("% passed")
    ax.set_title("Accuracy against cost")
    fig.tight_layout()
    written.append(run_dir / "accuracy_vs_cost.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)
    return written
