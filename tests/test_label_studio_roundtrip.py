"""benchmarks/label_studio_roundtrip.py: skips cleanly without Label Studio; with it (slow: the server's first start
migrates its database for minutes) the whole round trip must pass."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def roundtrip(monkeypatch):
    # The benchmark scripts import each other as siblings (as when run as `python benchmarks/x.py`).
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import label_studio_roundtrip

    return label_studio_roundtrip


def test_without_label_studio_it_says_so_and_writes_nothing(roundtrip, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("FANSCAN_LABEL_STUDIO", raising=False)
    status = roundtrip.main(["--label-studio", str(tmp_path / "absent"), "--json", str(tmp_path / "r.json")])
    assert status == 0 and capsys.readouterr().out.startswith("skipped: no label-studio executable")
    assert not (tmp_path / "r.json").exists()


@pytest.mark.slow
def test_round_trip_through_a_real_label_studio(roundtrip, tmp_path):
    executable = roundtrip.find_label_studio(os.environ.get("FANSCAN_LABEL_STUDIO"))
    if executable is None:
        pytest.skip("no label-studio executable ($FANSCAN_LABEL_STUDIO or PATH)")
    assert roundtrip.main(["--label-studio", executable, "--json", str(tmp_path / "r.json")]) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    by_path = result["import_found_photos_by_local_files_path"]
    assert result["ok"] and by_path["boxes_matched"] == by_path["boxes_expected"] == result["regions_sent"]
    assert by_path["max_coordinate_difference_px"] <= 0.5
