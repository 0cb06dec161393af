"""llama.cpp threads on this machine, idle and beside a busy program.

    python -m evals.bench.threads [--repeats 3]

For each condition (idle; one other process spinning on a core) it times a
380-token prompt and 64 generated tokens with one thread, a thread per core,
and kept's choice (agent/models/cores.py), all in this process on the
embedded model, and prints tokens per second. The busy program is a Python
loop started here and stopped at the end.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

PROMPT = (
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
    + "Tell me about the history of the calendar. " * 40
    + "<|im_end|>\n<|im_start|>assistant\n"
)


def _time(llm, n: int) -> tuple[float, float]:
    """(prompt tok/s, generation tok/s) with ``n`` threads, from a cold cache."""
    llm._ctx.set_n_threads(n, n)
    llm.reset()
    tokens = llm.tokenize(PROMPT.encode(), special=True)
    started = time.perf_counter()
    llm.eval(tokens)
    prompt = len(tokens) / (time.perf_counter() - started)
    started = time.perf_counter()
    made = 0
    for _token in llm.generate(tokens, temp=0.0, reset=False):
        made += 1
        if made == 64:
            break
    return prompt, made / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench.threads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="Timings per setting (the median is shown).")
    args = parser.parse_args(argv)

    from agent.models import cores, local

    llm = local.load()
    n_cores = cores.cores()
    chooser = cores.Threads()
    print(f"{n_cores} cores; 380-token prompt, 64 generated tokens; median of {args.repeats}")
    print(f"{'condition':<22}{'threads':<16}{'prompt tok/s':>14}{'gen tok/s':>12}")
    for condition in ("idle", "one busy process"):
        spinner = None
        if condition != "idle":
            spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(1.0)
        try:
            chooser.others_busy()  # start the look at this condition
            for label in ("1", str(n_cores), "kept's choice"):
                runs = []
                for _ in range(args.repeats):
                    n = chooser.next() if label == "kept's choice" else int(label)
                    runs.append((n, *_time(llm, n)))
                used = ",".join(sorted({str(r[0]) for r in runs}))
                shown = label if label != "kept's choice" else f"kept ({used})"
                print(
                    f"{condition:<22}{shown:<16}{statistics.median(r[1] for r in runs):>14.0f}"
                    f"{statistics.median(r[2] for r in runs):>12.1f}",
                    flush=True,
                )
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
                time.sleep(1.0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
