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


def test_the_processes_a_batch_starts_are_found_with_their_own_peaks(monkeypatch):
    import subprocess
    import sys
    import time

    import pytest

    if not Path("/proc/self/status").is_file():
        pytest.skip("reads /proc (Linux)")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import batch_memory

    # A parent that starts a child holding 50 MB: the child is a descendant, with its own peak over 50 MB.
    holder = "import time; block = bytearray(50 * 2**20); time.sleep(3)"
    parent = subprocess.Popen([sys.executable, "-c",
                               f"import subprocess, sys; subprocess.run([sys.executable, '-c', {holder!r}])"])
    try:
        deadline, peaks = time.monotonic() + 10, []
        while time.monotonic() < deadline and not any(p > 50 for p in peaks):
            peaks = [batch_memory.own_peak_mb(pid) or 0.0 for pid in batch_memory.descendants(parent.pid)]
            time.sleep(0.1)
        assert len(peaks) == 1 and peaks[0] > 50
        assert batch_memory.own_peak_mb(parent.pid) < 50  # the parent holds no block of its own
    finally:
        parent.kill()
        parent.wait()
    assert batch_memory.own_peak_mb(parent.pid) is None  # gone


def test_the_memory_benchmark_refuses_zero_workers(monkeypatch):
    import pytest

    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import batch_memory

    with pytest.raises(SystemExit):
        batch_memory.main(["--workers", "0"])
