"""`benchmarks/batch_memory.py` measures `fanscan batch` in a process of its own, and `compare_commits.py` carries
its memory figures side by side with their times."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_memory_benchmark_runs_the_batch_on_every_copied_photo(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import batch_memory

    out = tmp_path / "memory.json"
    assert batch_memory.main(["--copies", "1", "--runs", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    samples = len(list((ROOT / "datasets" / "samples" / "images").glob("*.jpg")))
    assert result["photos"] == samples and result["runs"][0]["rows"] == samples
    # The child's own peak, not this process's: the models alone take tens of MB, a bare interpreter under 20.
    assert result["median_peak_mb"] == result["runs"][0]["peak_mb"] > 40


def test_side_by_side_figures_include_memory(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import compare_commits

    found = compare_commits.measured_leaves({"median_peak_mb": 135.0, "runs": [{"wall_s": 1.5, "rows": 60}],
                                             "note": "x", "flag": True})
    assert found == {"median_peak_mb": 135.0, "runs[0].wall_s": 1.5}
