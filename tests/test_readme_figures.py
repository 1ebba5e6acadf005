"""The README's and the model cards' figures are the measured ones: every marked block equals what
`benchmarks/readme_figures.py` writes from benchmarks/results/*.json, and the check notices a figure edited by hand."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "readme_figures.py"
RESULTS = ROOT / "benchmarks" / "results"
FILES = [ROOT / "README.md", ROOT / "models" / "tile_detector.md", ROOT / "models" / "tile_classifier.md"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_readme_and_cards_match_the_json():
    checked = run("--check")
    assert checked.returncode == 0, checked.stderr


def test_every_file_has_its_blocks():
    readme = FILES[0].read_text(encoding="utf-8")
    for name in ("recognition", "samples", "vision-speed", "hand-apart"):
        assert f"<!-- figures:{name} -->" in readme


def test_the_readme_states_the_measured_recall_and_whole_hands():
    # Read straight from the JSON here, not through the script.
    test = json.loads((RESULTS / "evaluation_test.json").read_text(encoding="utf-8"))["all"]
    samples = json.loads((RESULTS / "hands_samples.json").read_text(encoding="utf-8"))
    readme = FILES[0].read_text(encoding="utf-8")
    assert f"| {test['recall']:.3f} |" in readme
    assert f"({test['hands_exact']}/{test['hand_photos']})" in readme
    assert f"{samples['exact']} of {samples['photos']} with the shipped models" in readme


def test_a_figure_edited_by_hand_fails_the_check(tmp_path):
    readme = FILES[0].read_text(encoding="utf-8")
    body = re.search(r"<!-- figures:samples -->(.*?)<!-- /figures -->", readme, re.DOTALL).group(1)
    edited = tmp_path / "README.md"
    edited.write_text(readme.replace(body, body.replace(" of ", " of 1", 1)), encoding="utf-8")
    checked = run("--check", str(edited))
    assert checked.returncode == 1 and "out of date" in checked.stderr
    assert run(str(edited)).returncode == 0  # rewriting puts the measured figure back
    assert edited.read_text(encoding="utf-8") == readme
