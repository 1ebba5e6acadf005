"""The README's and the model cards' figures are the measured ones: every marked block equals what
`benchmarks/readme_figures.py` writes from benchmarks/results/*.json, and the check notices a figure edited by hand."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "readme_figures.py"
RESULTS = ROOT / "benchmarks" / "results"
FILES = [ROOT / "README.md", ROOT / "models" / "tile_detector.md", ROOT / "models" / "tile_classifier.md"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_readme_and_cards_match_the_json():
    checked = run("--check")
    assert checked.returncode == 0, checked.stderr


BLOCKS = {
    FILES[0]: ("recognition", "samples", "vision-speed", "hand-apart", "web-speed", "batch-throughput",
               "million-photos", "calibration-curve", "calibration-speed", "label-studio", "train-small",
               "scoring-mcr", "scoring-hk", "differential", "sideways-turned"),
    FILES[1]: ("detector-test", "detector-calibration", "detector-misses", "vision-speed", "sideways-detector",
               "backs-test"),
    FILES[2]: ("classifier-rebuild", "classifier-test", "classifier-test-detail", "classifier-per-class",
               "classifier-speed"),
}


def test_every_file_has_its_blocks():
    for path, names in BLOCKS.items():
        text = path.read_text(encoding="utf-8")
        for name in names:
            assert f"<!-- figures:{name} -->" in text, f"{path.name} lacks the {name} block"


def result(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))


def test_the_readme_states_the_measured_speeds_and_the_derived_estimate():
    # Each expectation is worked out here from the JSON, not through the script.
    readme = FILES[0].read_text(encoding="utf-8")
    web = result("web_speed")["photo_12mp"]
    assert f"| {web['page_ms_median']:.0f} ms | {web['server_ms_median']:.0f} ms " in readme
    batch = result("batch_throughput")
    assert f"| {batch['workers_2']['median_photos_per_s']:.2f} | {batch['ratio_to_in_process']['workers_2']:.2f} |" \
        in readme
    ms_per_photo = result("vision_speed")["photo_640"]["photo_to_proposal_ms"]
    minutes = 1_000_000 * ms_per_photo / 1000 / (50 * 8) / 60  # 400 single-core workers, one million photos
    assert f"1 million in ~{minutes:.1f} minutes of scoring" in readme
    differential = result("differential")
    assert f"{differential['same']:,} identical" in readme
    assert f"median {result('scoring')['wall']['median_us']:.0f} µs" in readme


def test_the_readme_states_the_measured_recall_and_whole_hands():
    # Read straight from the JSON here, not through the script.
    test = json.loads((RESULTS / "evaluation_test.json").read_text(encoding="utf-8"))["all"]
    samples = json.loads((RESULTS / "hands_samples.json").read_text(encoding="utf-8"))
    readme = FILES[0].read_text(encoding="utf-8")
    assert f"| {test['recall']:.3f} |" in readme
    assert f"({test['hands_exact']}/{test['hand_photos']})" in readme
    assert f"{samples['exact']} of {samples['photos']} with the shipped models" in readme


def every_block() -> list[tuple[Path, str]]:
    return [(path, found.group(1)) for path in FILES
            for found in re.finditer(r"<!-- figures:([\w-]+) -->", path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize(("path", "name"), every_block(), ids=lambda value: getattr(value, "name", value))
def test_any_block_edited_by_hand_fails_the_check(path, name, tmp_path):
    text = path.read_text(encoding="utf-8")
    found = re.search(rf"<!-- figures:{name} -->(.*?)<!-- /figures -->", text, re.DOTALL)
    body = found.group(1)
    digit = re.search(r"\d", body)
    assert digit, f"the {name} block of {path.name} shows no figure"
    changed = body[:digit.start()] + str((int(digit.group()) + 1) % 10) + body[digit.end():]
    edited = tmp_path / path.name
    edited.write_text(text[:found.start(1)] + changed + text[found.end(1):], encoding="utf-8")
    checked = run("--check", str(edited))
    assert checked.returncode == 1 and "out of date" in checked.stderr


def test_a_figure_edited_by_hand_fails_the_check(tmp_path):
    readme = FILES[0].read_text(encoding="utf-8")
    body = re.search(r"<!-- figures:samples -->(.*?)<!-- /figures -->", readme, re.DOTALL).group(1)
    edited = tmp_path / "README.md"
    edited.write_text(readme.replace(body, body.replace(" of ", " of 1", 1)), encoding="utf-8")
    checked = run("--check", str(edited))
    assert checked.returncode == 1 and "out of date" in checked.stderr
    assert run(str(edited)).returncode == 0  # rewriting puts the measured figure back
    assert edited.read_text(encoding="utf-8") == readme
