"""Peak memory of `fanscan batch` in process, as a user runs it: the bundled samples copied `--copies` times into one
folder, the command run `--runs` times in a process of its own (a fresh table each time), and each run's peak
resident memory taken from the kernel's accounting of that child (`os.wait4`: ru_maxrss), with its wall time.

    python benchmarks/batch_memory.py                          # the 20 samples x 3 = 60 photos, 5 runs
    python benchmarks/compare_commits.py --against 34acc50 --rounds 3 -- batch_memory --runs 3

The batch takes its threads from the cores it may use (one a core, up to 4), so the figure is this machine's; the
JSON records the core count. Writes benchmarks/results/batch_memory.json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import ROOT, write_json

SAMPLES = ROOT / "datasets" / "samples" / "images"
OUT = ROOT / "benchmarks" / "results" / "batch_memory.json"


def copied_samples(into: Path, copies: int) -> int:
    """The bundled samples copied `copies` times into `into`; how many photos."""
    into.mkdir(parents=True, exist_ok=True)
    for copy in range(copies):
        for photo in sorted(SAMPLES.glob("*.jpg")):
            shutil.copyfile(photo, into / f"{copy}_{photo.name}")
    return len(list(into.glob("*.jpg")))


def one_run(folder: Path, table: Path) -> dict:
    """One `fanscan batch` command: its peak resident memory (MB), wall time and table rows."""
    command = [sys.executable, "-m", "fanscan", "batch", str(folder), "--out", str(table)]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    errors = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}): {errors[-1000:]}")
    rows = sum(1 for _ in table.open(encoding="utf-8"))
    # ru_maxrss is in kilobytes on Linux.
    return {"peak_mb": round(usage.ru_maxrss / 1024, 1), "wall_s": round(wall, 2), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=3, help="copies of the 20 samples (default 3)")
    parser.add_argument("--runs", type=int, default=5, help="batch commands run, one after another (default 5)")
    parser.add_argument("--json", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.copies < 1 or args.runs < 1:
        parser.error("--copies and --runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="fanscan-batch-memory-") as tmp:
        folder = Path(tmp) / "photos"
        photos = copied_samples(folder, args.copies)
        runs = [one_run(folder, Path(tmp) / f"table_{n}.jsonl") for n in range(args.runs)]
    result = {"command": "python benchmarks/batch_memory.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              "photos": photos, "cpu_count": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
              else os.cpu_count(), "median_peak_mb": statistics.median(r["peak_mb"] for r in runs),
              "median_wall_s": statistics.median(r["wall_s"] for r in runs), "runs": runs}
    write_json(args.json, result)
    print(f"{photos} photos, {args.runs} runs: median peak {result['median_peak_mb']} MB, "
          f"median wall {result['median_wall_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
