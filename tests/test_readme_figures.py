"""The figures of the README, the documentation site and the model cards are the measured ones: every marked block
equals what `benchmarks/readme_figures.py` writes from benchmarks/results/*.json, and the check notices a figure
edited by hand."""

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
DOCS = ROOT / "docs"
DETECTOR_CARD, CLASSIFIER_CARD = ROOT / "models" / "tile_detector.md", ROOT / "models" / "tile_classifier.md"
# Where each measured figure lives now (the README is short and links into the site).
BLOCKS = {
    DOCS / "getting-started.md": ("samples",),
    DOCS / "models" / "index.md": ("recognition", "vision-speed"),
    DOCS / "photos" / "how-it-reads.md": ("hand-apart", "rules-margin", "sideways-turned", "large-tiles"),
    DOCS / "phone.md": ("web-speed",),
    DOCS / "batch.md": ("batch-throughput", "million-photos"),
    DOCS / "own-tiles" / "calibrate.md": ("calibration-curve", "calibration-speed"),
    DOCS / "own-tiles" / "label-studio.md": ("label-studio",),
    DOCS / "own-tiles" / "train.md": ("train-small",),
    DOCS / "scoring" / "mcr.md": ("scoring-mcr", "scoring-hk", "differential"),
    DETECTOR_CARD: ("detector-test", "detector-calibration", "detector-misses", "vision-speed", "sideways-detector",
                    "backs-test"),
    CLASSIFIER_CARD: ("classifier-rebuild", "classifier-test", "classifier-test-detail", "classifier-per-class",
                      "classifier-speed"),
}
FILES = list(BLOCKS)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_readme_and_cards_match_the_json():
    checked = run("--check")
    assert checked.returncode == 0, checked.stderr


def test_every_file_has_its_blocks():
    for path, names in BLOCKS.items():
        text = path.read_text(encoding="utf-8")
        for name in names:
            assert f"<!-- figures:{name} -->" in text, f"{path.name} lacks the {name} block"


def result(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))


def page(*parts: str) -> str:
    return DOCS.joinpath(*parts).read_text(encoding="utf-8")


def test_the_site_states_the_measured_speeds_and_the_derived_estimate():
    # Each expectation is worked out here from the JSON, not through the script.
    web = result("web_speed")["photo_12mp"]
    assert f"| {web['page_ms_median']:.0f} ms | {web['server_ms_median']:.0f} ms " in page("phone.md")
    batch = result("batch_throughput")
    assert f"| {batch['workers_2']['median_photos_per_s']:.2f} | {batch['ratio_to_in_process']['workers_2']:.2f} |" \
        in page("batch.md")
    ms_per_photo = result("vision_speed")["photo_640"]["photo_to_proposal_ms"]
    minutes = 1_000_000 * ms_per_photo / 1000 / (50 * 8) / 60  # 400 single-core workers, one million photos
    assert f"1 million in ~{minutes:.1f} minutes of scoring" in page("batch.md")
    differential = result("differential")
    assert f"{differential['same']:,} identical" in page("scoring", "mcr.md")
    assert f"median {result('scoring')['wall']['median_us']:.0f} µs" in page("scoring", "mcr.md")


def test_the_scoring_speed_is_stated_once():
    # The issue found the scoring speed printed twice: one block of each in the whole site and README.
    texts = [path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *DOCS.rglob("*.md")]]
    for name in ("scoring-mcr", "scoring-hk"):
        assert sum(text.count(f"<!-- figures:{name} -->") for text in texts) == 1, name


def test_the_site_states_the_measured_recall_and_whole_hands():
    # Read straight from the JSON here, not through the script.
    test = json.loads((RESULTS / "evaluation_test.json").read_text(encoding="utf-8"))["all"]
    samples = json.loads((RESULTS / "hands_samples.json").read_text(encoding="utf-8"))
    models = page("models", "index.md")
    assert f"| {test['recall']:.3f} |" in models
    assert f"({test['hands_exact']}/{test['hand_photos']})" in models
    assert f"{samples['exact']} of {samples['photos']} with the shipped models" in page("getting-started.md")


def test_a_new_page_with_a_block_is_checked_without_being_listed(tmp_path):
    # Every docs/**/*.md is covered by the default run, so a page added later cannot drift unnoticed.
    added = DOCS / "zz-figures-probe.md"
    added.write_text("Measured: <!-- figures:scoring-mcr -->0 hands<!-- /figures -->\n", encoding="utf-8")
    try:
        checked = run("--check")
    finally:
        added.unlink()
    assert checked.returncode == 1 and "zz-figures-probe.md" in checked.stderr


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
    readme = page("getting-started.md")
    body = re.search(r"<!-- figures:samples -->(.*?)<!-- /figures -->", readme, re.DOTALL).group(1)
    edited = tmp_path / "getting-started.md"
    edited.write_text(readme.replace(body, body.replace(" of ", " of 1", 1)), encoding="utf-8")
    checked = run("--check", str(edited))
    assert checked.returncode == 1 and "out of date" in checked.stderr
    assert run(str(edited)).returncode == 0  # rewriting puts the measured figure back
    assert edited.read_text(encoding="utf-8") == readme


def test_the_samples_sentence_says_what_its_override_count_counts():
    # The sentence once gave `hands_with_override` (proposals the rules overruled, 0) as the photos complete only by a
    # rule override, which the batch's needs-review rows contradicted (issue 20, item 12): it must give the photos
    # that need review, counted from the per-photo records, not the overrule count.
    samples = result("hands_samples")
    needing_review = sum(bool(p.get("needs_review")) for p in samples["per_photo"])
    assert samples["hands_needing_review"] == needing_review
    text = page("getting-started.md")
    block = re.search(r"<!-- figures:samples -->(.*?)<!-- /figures -->", text, re.DOTALL).group(1)
    assert f"; {needing_review} of them are complete only by a rule override" in block


def test_calibration_text_names_run_3_only_for_the_profiles_file():
    """The calibration curve's text says which classifier the profiles were built on from the file the JSON names:
    the profiles' file (run 3) trained on the development photos, the shipped reader held them out."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import figures_models
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    profiles, shipped = "models/tile_classifier_profiles.onnx", "models/tile_classifier.onnx"
    words = figures_models.profiles_classifier_words
    assert "run 3" in words(profiles)[0]
    assert "run 3" not in words(shipped)[0]
    assert "run 3" not in words("runs/candidate/model.onnx")[0]
    assert "has seen those sessions" in words(profiles)[1]
    assert words(shipped)[1] == ""
    assert "not recorded" in words("runs/candidate/model.onnx")[1]
