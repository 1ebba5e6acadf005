"""Photos per second of `fanscan batch` as a user runs it: in-process, with `--workers 2` (a local Dask cluster of two
processes), and with `--scheduler` on a scheduler and two workers started as separate commands (`dask scheduler`,
`dask worker --nthreads 1 --nworkers 1`, twice) on 127.0.0.1; the same folder for all three, in one run.

    python benchmarks/batch_throughput.py                    # the 20 samples x 13 = 260 photos
    python benchmarks/batch_throughput.py --folder ../shared/data/chinese-mahjong-v4/test/images --copies 2

Each batch is the `fanscan batch FOLDER --out T.jsonl` command in its own process, timed from start to exit, so the
figure includes what a user waits for: start-up, loading the models, for `--workers` starting the local cluster (the
external cluster is started, with both workers connected, before its clock starts). `steady_photos_per_s` counts
only from the first row to the last (`--json-progress` events), leaving start-up out. Ratios are of the end-to-end
photos/s to the in-process one. `--repeats` rounds (default 5) run the three kinds in rotating order, and medians
are reported. The machine's load average (1 min) is recorded before each batch: on a shared machine it says how far
the figures can be trusted. In-process uses the default threads (the detector takes
min(2, cores) onnxruntime threads, the classifier one); each Dask worker process one thread, one per model.
Writes benchmarks/results/batch_throughput.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from results_file import ROOT, write_json

try:
    from fanscan.batch.cluster import auto_chunk
except ImportError:  # a checkout before the batch package (compare_commits.py runs this script on earlier commits)
    from fanscan.batch_cluster import auto_chunk  # type: ignore[no-redef]

SAMPLES = ROOT / "datasets" / "samples" / "images"
OUT = ROOT / "benchmarks" / "results" / "batch_throughput.json"
KINDS = ("in_process", "workers_2", "scheduler_2_workers")


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def make_folder(source: Path, copies: int, into: Path) -> int:
    photos = sorted(p for p in source.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp"))
    for copy in range(copies):
        for photo in photos:
            shutil.copyfile(photo, into / f"{copy:03d}_{photo.name}")
    return len(photos) * copies


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def timed_batch(folder: Path, table: Path, extra: list[str]) -> dict:
    """Run one batch command; its wall time, row count and the steady rate from its progress events."""
    command = [sys.executable, "-m", "fanscan.cli", "batch", str(folder), "--out", str(table), "--json-progress",
               *extra]
    load = load_average()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-1000:]}")
    events = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    rows = [e for e in events if e["event"] == "row"]
    first, last = rows[0]["elapsed_s"], rows[-1]["elapsed_s"]
    table_rows = sum(1 for _ in table.open(encoding="utf-8"))
    return {"command": " ".join(["fanscan", *command[3:]]), "load_average_before": load, "rows": table_rows,
            "wall_s": round(wall, 2), "photos_per_s": round(len(rows) / wall, 2),
            "first_row_after_s": first,
            "steady_photos_per_s": round((len(rows) - 1) / (last - first), 2) if last > first else None}


def start_cluster(stack: ExitStack, workers: int) -> str:
    """`dask scheduler` and `dask worker` processes on 127.0.0.1; the scheduler address once all workers joined."""
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}

    def started(command: list[str]) -> None:
        process = subprocess.Popen(command, **quiet)
        stack.callback(lambda: (process.terminate(), process.wait(30)))

    started([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", "127.0.0.1:0"])
    for _ in range(workers):
        started([*dask, "worker", address, "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1",
                 "--dashboard-address", "127.0.0.1:0"])
    with Client(address, timeout=60) as client:
        client.wait_for_workers(workers, timeout=120)
    return address


def empty_task(n: int) -> int:
    return n


def scheduler_tasks_per_s(address: str, tasks: int = 2000) -> float:
    """How many empty tasks per second the scheduler and a client (the batch's loop: submit, as_completed) get
    through: the ceiling of one-photo tasks, whatever the number of workers."""
    from distributed import Client, as_completed

    with Client(address) as client:
        client.submit(empty_task, -1, pure=False).result()
        started = time.perf_counter()
        for future in as_completed(client.map(empty_task, range(tasks), pure=False)):
            future.release()
        return round(tasks / (time.perf_counter() - started), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=SAMPLES, help="photos to copy into the batch folder")
    parser.add_argument("--copies", type=int, default=13, help="how many times the folder is repeated (default 13)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="batches of each kind, in rotating order (default 5; medians reported)")
    parser.add_argument("--chunk", type=int,
                        help="photos per Dask task for the two cluster batches (default: the batch's own choice)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS),
                        help="which batches to run (default all three); ratios are to in_process when it runs")
    parser.add_argument("--json", type=Path, default=OUT, help=f"result file (default {OUT.relative_to(ROOT)})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary, ExitStack() as stack:
        folder = Path(temporary) / "photos"
        folder.mkdir()
        photos = make_folder(args.folder, args.copies, folder)
        chunk = ["--chunk", str(args.chunk)] if args.chunk else []
        kinds: dict[str, list[str]] = {"in_process": [], "workers_2": ["--workers", "2", *chunk]}
        empty_tasks_per_s = None
        if "scheduler_2_workers" in args.kinds:
            address = start_cluster(stack, 2)
            kinds["scheduler_2_workers"] = ["--scheduler", address, *chunk]
            empty_tasks_per_s = scheduler_tasks_per_s(address)
        kinds = {kind: kinds[kind] for kind in KINDS if kind in args.kinds}
        runs: dict[str, list[dict]] = {kind: [] for kind in kinds}
        for repeat in range(args.repeats):
            order = list(kinds)[repeat % len(kinds):] + list(kinds)[:repeat % len(kinds)]  # no kind always first
            for kind in order:
                extra = kinds[kind]
                table = Path(temporary) / f"{kind}_{repeat}.jsonl"
                runs[kind].append(timed_batch(folder, table, extra))
                print(kind, runs[kind][-1], file=sys.stderr)
    summary = {kind: {"median_photos_per_s": statistics.median(r["photos_per_s"] for r in rs),
                      "median_steady_photos_per_s": statistics.median(r["steady_photos_per_s"] or 0 for r in rs),
                      "runs": rs} for kind, rs in runs.items()}
    base_kind = "in_process" if "in_process" in summary else next(iter(summary))
    base = summary[base_kind]["median_photos_per_s"]
    base_steady = summary[base_kind]["median_steady_photos_per_s"]
    result = {
        "photos": photos, "source_folder": str(args.folder), "copies": args.copies, "repeats": args.repeats,
        "chunk": args.chunk or {"photos_per_task": auto_chunk(photos, 2), "threads": 2},
        "cpu_count": os.cpu_count(), "python": platform.python_version(),
        "threads": {"in_process": "one thread a core (up to 4) sharing one pipeline, 1 onnxruntime thread per model "
                                  "(fanscan.batch.local; before it: one photo at a time, detector min(2, cores) "
                                  "onnxruntime threads, classifier 1)",
                    "dask_worker": "1 process, 1 thread, 1 onnxruntime thread per model, cv2 1 thread"},
        "load_average_after": load_average(),
        "scheduler_empty_tasks_per_s": empty_tasks_per_s,
        **summary,
        "ratio_to_in_process": {kind: round(summary[kind]["median_photos_per_s"] / base, 2) for kind in kinds},
        "steady_ratio_to_in_process": {kind: round(summary[kind]["median_steady_photos_per_s"] / base_steady, 2)
                                       for kind in kinds},
    }
    write_json(args.json, result)
    print(json.dumps({k: result[k] for k in ("photos", "ratio_to_in_process", "steady_ratio_to_in_process")}))


if __name__ == "__main__":
    main()
