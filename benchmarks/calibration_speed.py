"""How long `fanscan calibrate` takes: wall clock and CPU time of the whole command, median of three runs.

    python benchmarks/calibration_speed.py --json benchmarks/results/calibration_speed.json

Calibrates on `datasets/samples` (a YOLO-layout folder: 20 photos, 277 labelled tiles; the cross-validation deals
the photos into 5 folds and fits 6 penalties on each), with and without the cross-validation (`--no-loo`), in this
process (models loaded once before timing, as a second run of the command would find them in the page cache
anyway). One onnxruntime and one OpenBLAS thread.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the fanscan CLI does (see fanscan/cli.py); before numpy loads

from fanscan.vision.profile import load_profile
from results_file import ROOT, write_json

from fanscan.cli import main as fanscan_main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "datasets" / "samples")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "calibration_speed.json")
    args = parser.parse_args(argv)
    result = {"data": str(args.data.relative_to(ROOT) if args.data.is_relative_to(ROOT) else args.data),
              "runs": args.runs, "onnxruntime_threads": 1, "openblas_threads": os.environ["OPENBLAS_NUM_THREADS"],
              "cpu_count": os.cpu_count(), "load_average_at_start": [round(v, 2) for v in os.getloadavg()]}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "p.npz"
        fanscan_main(["calibrate", str(args.data), "--out", str(out), "--no-loo", "--views", "1"])  # warm up
        for name, extra in (("with_leave_one_out", []), ("without_leave_one_out", ["--no-loo"])):
            walls, cpus = [], []
            for _ in range(args.runs):
                wall, cpu = time.perf_counter(), time.process_time()
                fanscan_main(["calibrate", str(args.data), "--out", str(out), *extra])
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            details = load_profile(out).details
            result[name] = {"median_wall_seconds": round(statistics.median(walls), 1),
                            "median_cpu_seconds": round(statistics.median(cpus), 1),
                            "wall_seconds": [round(w, 1) for w in walls], "tiles": details["tiles"],
                            "photos": details["photos"], "crops_embedded": details["crops_embedded"],
                            "cross_validation_folds": (details["leave_one_out"] or {}).get("folds"),
                            "penalties_tried": len(details["settings"]["penalties"]),
                            "penalty": details.get("penalty")}
            print(f"{name}: median {result[name]['median_wall_seconds']} s wall, "
                  f"{result[name]['median_cpu_seconds']} s CPU", flush=True)
    write_json(args.json, result)
    print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
