"""Scoring speed: median and worst time per hand, parse + score, written as JSON.

    python benchmarks/scoring.py                      # 20 000 random hands (seed 0)
    python benchmarks/scoring.py --hands FILE         # one hand string per line
    python benchmarks/scoring.py --out benchmarks/results/scoring.json

Each hand is timed once around `scoring.score(string)` (parse + score + explanation), in one process, after a
short warm-up on other hands (imports, first allocations): wall clock (perf_counter_ns) and this thread's CPU
time (thread_time_ns) - on a shared machine the wall clock also counts time the process waited for a core, so
both are reported, with the load average. Pure Python; the acceptance figures are median <= 200 us and worst
<= 5 ms on the project machine (2 cores).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from fanscan.scoring.random_hands import random_hand_strings
from results_file import ROOT, write_json

from fanscan import scoring


def _stats(ns: list[int]) -> dict[str, float]:
    us = sorted(t / 1000 for t in ns)
    n = len(us)
    return {"median_us": round(statistics.median(us), 1), "mean_us": round(statistics.fmean(us), 1),
            "p90_us": round(us[int(0.9 * (n - 1))], 1), "p99_us": round(us[int(0.99 * (n - 1))], 1),
            "worst_us": round(us[-1], 1)}


def _passes(ns: list[int]) -> bool:
    return statistics.median(ns) <= 200_000 and max(ns) <= 5_000_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", help="file with one hand string per line (default: random hands)")
    ap.add_argument("-n", type=int, default=20000, help="number of random hands (default 20000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="mcr")
    ap.add_argument("--no-freeze", action="store_true",
                    help="do not gc.freeze() after the warm-up (the batch CLI does; shows Python's raw GC pauses)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "scoring.json"))
    args = ap.parse_args(argv)

    if args.hands:
        hands = [ln.strip() for ln in Path(args.hands).read_text(encoding="utf-8").splitlines()
                 if ln.strip() and not ln.startswith("#")]
        source = args.hands
    else:
        hands = random_hand_strings(args.n, args.seed)
        source = f"random_hand_strings({args.n}, seed={args.seed})"
    for h in random_hand_strings(200, seed=10_000 + args.seed):  # warm-up on other hands
        with contextlib.suppress(scoring.FanscanError):  # a shape this rule set does not know (HK: knitted hands)
            scoring.score(h, rules=args.rules)

    if not args.no_freeze:
        # As `fanscan score` does before a batch: move the interpreter's start-up objects (modules, functions,
        # the warm caches) out of the garbage collector's way, so a full collection only walks what is new.
        gc.collect()
        gc.freeze()
    wall: list[int] = []
    cpu: list[int] = []
    errors = 0
    worst_hand, worst = None, -1
    wall_clock, cpu_clock = time.perf_counter_ns, time.thread_time_ns
    load_before = os.getloadavg()
    # Full (generation 2) garbage collections pause whichever hand triggers them; they are Python's, not the
    # engine's, and their length grows with everything the process holds. Mark the hands they fall into.
    gc_events: list[int] = []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            gc_events.append(1)

    gc.callbacks.append(on_gc)
    with_gc: list[bool] = []
    for h in hands:
        before = len(gc_events)
        c0, t0 = cpu_clock(), wall_clock()
        try:
            scoring.score(h, rules=args.rules)
        except scoring.FanscanError:
            errors += 1
        dt, dc = wall_clock() - t0, cpu_clock() - c0
        if dt > worst:
            worst_hand, worst = h, dt
        wall.append(dt)
        cpu.append(dc)
        with_gc.append(len(gc_events) > before)
    gc.callbacks.remove(on_gc)
    cpu_no_gc = [c for c, g in zip(cpu, with_gc, strict=True) if not g]
    result = {
        "benchmark": "scoring",
        "rules": args.rules,
        "source": source,
        "hands": len(hands),
        "errors": errors,
        # wall clock: what a user waits; includes time the process was not scheduled (the machine is shared)
        "wall": _stats(wall),
        "worst_hand": worst_hand,
        # CPU time of this thread: the engine's own cost, independent of other processes on the machine
        "cpu": _stats(cpu),
        "gc_frozen_after_warmup": not args.no_freeze,
        "full_gc_pauses": sum(with_gc),
        "cpu_without_full_gc": _stats(cpu_no_gc),
        "hands_per_second": round(1e9 * len(hands) / sum(wall), 1),
        "acceptance": {"median_us_max": 200, "worst_us_max": 5000},
        "passes_wall": _passes(wall),
        "passes_cpu": _passes(cpu),
        "passes_cpu_without_full_gc": _passes(cpu_no_gc),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_json(args.out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
