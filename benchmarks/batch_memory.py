"""Peak memory of `fanscan batch` as a user runs it: the bundled samples copied `--copies` times into one folder, the
command run `--runs` times in a process of its own (a fresh table each time), and each run's peak resident memory
taken from the kernel's accounting of that child (`os.wait4`: ru_maxrss), with its wall time. With `--workers N`
the batch starts a local Dask cluster; the processes it starts (the workers and their fork server) are then
sampled while they run, and each one's own peak (VmHWM in /proc) is reported as `worker_peaks_mb`.

    python benchmarks/batch_memory.py                          # the 20 samples x 3 = 60 photos, 5 runs
    python benchmarks/batch_memory.py --workers 2 --copies 13  # the memory of each Dask worker
    python benchmarks/compare_commits.py --against 34acc50 --rounds 3 -- batch_memory --runs 3

The in-process batch takes its threads from the cores it may use (one a core, up to 4), so the figure is this
machine's; the JSON records the core count. Writes benchmarks/results/batch_memory.json (with --workers,
batch_memory_workers.json).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from batch_throughput import SAMPLES, make_folder
from results_file import ROOT, write_json

OUT = ROOT / "benchmarks" / "results" / "batch_memory.json"
OUT_WORKERS = ROOT / "benchmarks" / "results" / "batch_memory_workers.json"


SAMPLE_S = 0.05  # how often the batch's own processes are looked at (--workers)


def descendants(pid: int) -> list[int]:
    """The processes started, directly or not, by `pid` (from /proc: each process's parent)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name (field 2) is in parentheses and may hold spaces: the parent is the 2nd field after.
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def own_peak_mb(pid: int) -> float | None:
    """A live process's peak resident memory (VmHWM), None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def one_run(folder: Path, table: Path, workers: int | None = None) -> dict:
    """One `fanscan batch` command: its peak resident memory (MB), wall time and table rows; with `workers`, each
    process it started, by its own peak."""
    command = [sys.executable, "-m", "fanscan", "batch", str(folder), "--out", str(table),
               *(["--workers", str(workers)] if workers else [])]
    errors_file = table.with_suffix(".stderr")
    started = time.perf_counter()
    # stderr to a file, not a pipe: nothing reads a pipe until the batch ends, and a full one would stall it.
    with errors_file.open("wb") as errors_out:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors_out)
    peaks: dict[int, float] = {}
    # Poll without reaping (WNOWAIT), so that `os.wait4` below still gets the child's own accounting.
    while workers and os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        for pid in descendants(child.pid):
            peak = own_peak_mb(pid)
            if peak is not None:
                peaks[pid] = max(peak, peaks.get(pid, 0.0))
        time.sleep(SAMPLE_S)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    exit_code = os.waitstatus_to_exitcode(status)
    if exit_code not in (0, 1):
        errors = errors_file.read_text(encoding="utf-8", errors="replace")
        raise SystemExit(f"{' '.join(command)} failed ({exit_code}): {errors[-1000:]}")
    rows = sum(1 for _ in table.open(encoding="utf-8"))
    # ru_maxrss is in kilobytes on Linux; with workers it is the largest of the batch and the processes it waited for.
    result = {"peak_mb": round(usage.ru_maxrss / 1024, 1), "wall_s": round(wall, 2), "rows": rows}
    if workers:
        result["worker_peaks_mb"] = sorted(round(peak, 1) for peak in peaks.values())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=3, help="copies of the 20 samples (default 3)")
    parser.add_argument("--runs", type=int, default=5, help="batch commands run, one after another (default 5)")
    parser.add_argument("--workers", type=int, help="start a local Dask cluster of this many workers (Linux)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.copies < 1 or args.runs < 1 or (args.workers is not None and args.workers < 1):
        parser.error("--copies, --runs and --workers must be at least 1")
    if args.workers and not Path("/proc/self/status").is_file():
        parser.error("--workers samples the workers in /proc: Linux only")
    with tempfile.TemporaryDirectory(prefix="fanscan-batch-memory-") as tmp:
        folder = Path(tmp) / "photos"
        folder.mkdir()
        photos = make_folder(SAMPLES, args.copies, folder)
        runs = [one_run(folder, Path(tmp) / f"table_{n}.jsonl", args.workers) for n in range(args.runs)]
    result = {"command": "python benchmarks/batch_memory.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              # The cores the batch may use, counted here: compare_commits.py runs this on trees without
              # fanscan.batch.local.cores.
              "photos": photos, "cpu_count": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
              else os.cpu_count(), "median_peak_mb": statistics.median(r["peak_mb"] for r in runs),
              "median_wall_s": statistics.median(r["wall_s"] for r in runs), "workers": args.workers, "runs": runs}
    if args.workers:
        # The largest process a run started (a worker; the fork server is smaller), median over the runs.
        result["median_largest_worker_mb"] = statistics.median(max(r["worker_peaks_mb"], default=0.0) for r in runs)
    write_json(args.json or (OUT_WORKERS if args.workers else OUT), result)
    workers = f", largest worker {result['median_largest_worker_mb']} MB" if args.workers else ""
    print(f"{photos} photos, {args.runs} runs: median peak {result['median_peak_mb']} MB{workers}, "
          f"median wall {result['median_wall_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
