"""The README's and the model cards' figures, written from benchmarks/results/*.json: one source for every figure.

    python benchmarks/readme_figures.py            # rewrite every marked block from the JSON
    python benchmarks/readme_figures.py --check    # exit 1 when a block differs from what the JSON says (CI)

A block is marked `<!-- figures:NAME -->` … `<!-- /figures -->` (the markers stay, the text between them is
generated). Each figure says the split and the command that produced its JSON. To change a figure, run the
benchmark again (it writes the JSON), then this script; never edit a block by hand.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from results_file import ROOT

RESULTS = ROOT / "benchmarks" / "results"
FILES = (ROOT / "README.md", ROOT / "models" / "tile_detector.md", ROOT / "models" / "tile_classifier.md")
DATA = "../shared/data/chinese-mahjong-v4"
# The command behind each result file (the README shows them; rerunning one refreshes its JSON).
COMMANDS = {
    "evaluation_dev": f"python benchmarks/evaluate.py --data {DATA}/train --split dev --turned-copies "
                      "--json benchmarks/results/evaluation_dev.json",
    "evaluation_test": f"python benchmarks/evaluate.py --data {DATA}/test "
                       "--json benchmarks/results/evaluation_test.json",
    "detection_test": f"python benchmarks/eval_detection.py --data {DATA}/test "
                      "--json benchmarks/results/detection_test.json",
    "classifier_dev": f"python benchmarks/eval_classifier.py --data {DATA}/train --split dev "
                      "--json benchmarks/results/classifier_dev.json",
    "classifier_test": f"python benchmarks/eval_classifier.py --data {DATA}/test "
                       "--json benchmarks/results/classifier_test.json",
    "hands_samples": "python benchmarks/eval_hands.py --json benchmarks/results/hands_samples.json",
    "vision_speed": "python benchmarks/vision_speed.py --threads 1 --repeat 40 "
                    "--json benchmarks/results/vision_speed.json",
    "dev_split": "python benchmarks/dev_split.py --json benchmarks/results/dev_split.json",
    "evaluation_dev_squeezed_before": "the squeezed evaluation before the search (vision/aspect.py)",
    "evaluation_dev_squeezed": f"python benchmarks/evaluate.py --data {DATA}/train --split dev --squeeze "
                               "--turned-copies --json benchmarks/results/evaluation_dev_squeezed.json",
    "backs_sideways_test": f"python benchmarks/eval_backs_sideways.py --data {DATA}/test "
                           "--json benchmarks/results/backs_sideways_test.json",
    "hand_apart": f"python benchmarks/eval_hand_apart.py --data {DATA}/train",
}
BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /figures -->)", re.DOTALL)


def load(name: str) -> dict:
    path = RESULTS / f"{name}.json"
    if not path.exists():
        raise SystemExit(f"error: {path.relative_to(ROOT)} is missing: run `{COMMANDS[name]}`")
    return json.loads(path.read_text(encoding="utf-8"))


def share(count: int, total: int) -> str:
    return f"{count / total:.2f} ({count}/{total})" if total else "—"


def figure(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def overrides(measures: dict) -> str:
    return (f"{measures['hands_with_override']} of {measures['hand_photos']}: {measures['overrides_made_exact']} / "
            f"{measures['overrides_made_wrong']}")


def recognition() -> str:
    """The README's table of recognition figures: dev and test side by side, each with its command."""
    dev, test = load("evaluation_dev"), load("evaluation_test")
    c_dev, c_test = load("classifier_dev"), load("classifier_test")
    samples, split = load("hands_samples"), load("dev_split")
    squeezed, squeezed_before = load("evaluation_dev_squeezed")["all"], load("evaluation_dev_squeezed_before")["all"]
    d, t = dev["all"], test["all"]
    rows = [
        ("detection recall, IoU ≥ 0.5", figure(d["recall"]), figure(t["recall"]), "0.99"),
        ("detection precision (every detection kept, face-down ones too)", figure(d["precision"]),
         figure(t["precision"]), "0.99"),
        ("end-to-end tile accuracy (found and read right / all labelled)", figure(d["end_to_end_accuracy"]),
         figure(t["end_to_end_accuracy"]), "0.985"),
        ("classifier top-1 on labelled boxes (lowest class)",
         f"{c_dev['top1']:.3f} ({c_dev['min_class_top1']:.3f})",
         f"{c_test['top1']:.4f} ({c_test['min_class_top1']:.3f})", "0.99"),
        ("whole hand exact as proposed, photos of 13–18 tiles", share(d["hands_exact"], d["hand_photos"]),
         share(t["hands_exact"], t["hand_photos"]), "0.90"),
        ("whole hand exact by the classifier alone (no rule override)",
         share(d["hands_exact_classifier"], d["hand_photos"]), share(t["hands_exact_classifier"], t["hand_photos"]),
         ""),
        ("hands the rules overrode (need review): of them made exact / made wrong by the override",
         overrides(d), overrides(t), ""),
        ("whole hand exact, the 20 bundled samples (`hand_*` test photos)", "—",
         share(samples["exact"], samples["photos"]), ""),
        (f"squeezed photos: the {squeezed['photos']} dev photos with tight labels squeezed 3–8x along one axis — "
         "recall / end-to-end (before the squeezed-photo search)",
         f"{figure(squeezed['recall'])} / {figure(squeezed['end_to_end_accuracy'])} "
         f"({figure(squeezed_before['recall'])} / {figure(squeezed_before['end_to_end_accuracy'])})", "—",
         "0.90 / 0.85"),
    ]
    lines = [f"| measure | dev: {d['photos']} photos of the train folder | test: {t['photos']} photos | target |",
             "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {e} |" for a, b, c, e in rows]
    lines += ["", "Per group of photos (test / dev; groups from the labelled boxes, `benchmarks/evaluate.py`):", "",
              "| group | photos | recall | precision | end-to-end | whole hand exact |", "|---|---|---|---|---|---|"]
    for group, tg in test["groups"].items():
        dg = dev["groups"][group]
        lines.append(
            f"| {group} | {tg['photos']} / {dg['photos']} | {figure(tg['recall'])} / {figure(dg['recall'])} | "
            f"{figure(tg['precision'])} / {figure(dg['precision'])} | {figure(tg['end_to_end_accuracy'])} / "
            f"{figure(dg['end_to_end_accuracy'])} | {share(tg['hands_exact'], tg['hand_photos'])} / "
            f"{share(dg['hands_exact'], dg['hand_photos'])} |")
    lines += [
        "",
        f"- **dev** — the development split (`fanscan.vision.splits`: {len(split['dev_sessions'])} photo "
        f"sessions, {split['dev_photos']} photos, held out by a hash of the session). The shipped models predate it: "
        f"the classifier trained on {split['dev_photos_trained_on_by_classifier']} and the detector on "
        f"{split['dev_photos_trained_on_by_detector']} of these photos, and no dev source was held out by both "
        f"(`{COMMANDS['dev_split']}`), so these are not figures on unseen photos. "
        f"{d['photos_with_repaired_labels']} of them are copies the dataset export turned and sheared: their box "
        f"measures use labels repaired as the detector's training repairs them (imperfect), and "
        f"{d['photos_without_box_measures']} could not be repaired (whole hand only). "
        f"Commands: `{COMMANDS['evaluation_dev']}`; `{COMMANDS['classifier_dev']}`; squeezed: "
        f"`{COMMANDS['evaluation_dev_squeezed']}` (before: the same with the pipeline of commit 52d65ce, "
        "`benchmarks/results/evaluation_dev_squeezed_before.json`).",
        f"- **test** — `{DATA}/test`, run once for this release (`benchmarks/TEST-LOG.md`, which also lists how test "
        f"was used for choices before). Commands: `{COMMANDS['evaluation_test']}` (the same figures under their "
        f"historic keys: `{COMMANDS['detection_test']}`); `{COMMANDS['classifier_test']}`; samples: "
        f"`{COMMANDS['hands_samples']}`.",
    ]
    return "\n".join(lines)


def samples_sentence() -> str:
    samples = load("hands_samples")
    wrong = [p["image"].removesuffix(".jpg") for p in samples["per_photo"] if not p["exact"]]
    return (f"{samples['exact']} of {samples['photos']} with the shipped models"
            + (f" (wrong: {', '.join(wrong)})" if wrong else "")
            + f"; {samples['hands_with_override']} of them are complete only by a rule override, so `--yes` asks "
              "for review")


def vision_speed() -> str:
    speed = load("vision_speed")
    small, large = speed["photo_640"], speed["photo_12mp"]
    return (f"{small['photo_to_proposal_ms']:.0f} ms / {large['photo_to_proposal_ms']:.0f} ms "
            f"({large['proposal_ratio_to_decode_only']:.2f}× its decode), {speed['onnxruntime_threads']} thread, "
            f"{speed['cpu_count']} cores at load average {speed['load_average']:.1f}, of which "
            f"{small['aspect_search_ms']:.2f} ms for the squeezed-photo check: `{COMMANDS['vision_speed']}`")


def detector_test() -> str:
    """The detector card's release figures on test."""
    result, rows = load("detection_test"), load("backs_sideways_test")
    return "\n".join([
        "| measure | shipped | command |", "|---|---|---|",
        f"| recall | **{result['recall']:.4f}** ({result['labelled_tiles']:,} labelled tiles) | "
        f"`{COMMANDS['detection_test']}` |",
        f"| precision, every detection the product keeps (face-down ones too) | **{result['precision']:.4f}** | same |",
        f"| precision, every detection (`none` too) | {result['precision_raw']:.4f} ({result['detections']:,} "
        "detections) | same |",
        f"| end-to-end tile accuracy (found and read right / all labelled) | **{result['end_to_end_accuracy']:.4f}** "
        "| same |",
        f"| whole hand exact, photos of 13–18 tiles | {share(result['hands_exact'], result['hand_photos'])} | same |",
        f"| re-laid test rows ({rows['photos']} photos): rendered backs / sideways tiles / other tiles found | "
        f"{rows['backs_recall']:.3f} / {rows['sideways_recall']:.2f} / {rows['other_recall']:.3f} | "
        f"`{COMMANDS['backs_sideways_test']}` |",
    ])


def classifier_test() -> str:
    result, dev = load("classifier_test"), load("classifier_dev")
    return (f"test top-1 **{result['top1']:.4f}** on {result['crops']:,} labelled boxes, lowest class "
            f"{result['min_class_top1']:.4f} (`{COMMANDS['classifier_test']}`); on the development split "
            f"{dev['top1']:.4f} on {dev['crops']:,} boxes, lowest class {dev['min_class_top1']:.4f} — photos it was "
            f"mostly trained on (`{COMMANDS['classifier_dev']}`)")


def hand_apart() -> str:
    """The hand told apart from the discards: composed table scenes (report half) and real dev photos."""
    result = load("hand_apart")
    box, pipe = result["report"]["box_level"], result["report"]["pipeline"]
    real = result["real_dev_photos"]

    def counts(level: dict, variant: str) -> str:
        c = level[variant]
        return (f"{c['hand_exact']}/{c['scenes']} hands exact, {c['discards_pulled_in']}/{c['discards']} discards "
                f"pulled in, {c['hand_tiles_set_aside']}/{c['hand_tiles']} hand tiles set aside")

    return (f"On {box['after']['scenes']} composed table scenes (report half; thresholds chosen on the other half), "
            f"given the true boxes: {counts(box, 'after')} (before: {counts(box, 'before')}); through the whole "
            f"pipeline, where the detector finds only {pipe['after']['detection_recall']:.2f} of these pasted tiles: "
            f"{counts(pipe, 'after')} (before: {counts(pipe, 'before')}). On the "
            f"{real['after']['photos']} real dev photos that label one hand: "
            f"{real['after']['labelled_tiles_set_aside']}/{real['after']['labelled_tiles']} labelled tiles set "
            f"aside, unlabelled detections kept in the hand {real['after']['unmatched_detections_in_hand']}/"
            f"{real['after']['unmatched_detections']} (before: {real['before']['unmatched_detections_in_hand']}), "
            f"hands exactly the labelled tiles {real['after']['photos_hand_exactly_the_labelled_tiles']} (before: "
            f"{real['before']['photos_hand_exactly_the_labelled_tiles']}): "
            f"`{COMMANDS['hand_apart']}`")


RENDERERS: dict[str, Callable[[], str]] = {
    "recognition": recognition,
    "samples": samples_sentence,
    "vision-speed": vision_speed,
    "detector-test": detector_test,
    "classifier-test": classifier_test,
    "hand-apart": hand_apart,
}


def render(text: str, where: str) -> str:
    """`text` with every marked block regenerated. A block's body starts and ends with a newline when the
    generated text has several lines (a table), and sits inline otherwise (a sentence)."""

    def fill(found: re.Match) -> str:
        name = found.group("name")
        if name not in RENDERERS:
            raise SystemExit(f"error: {where}: unknown figures block {name!r} (known: {', '.join(RENDERERS)})")
        body = RENDERERS[name]()
        body = f"\n{body}\n" if "\n" in body else body
        return f"{found.group(1)}{body}{found.group(4)}"

    return BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 when a block is out of date")
    parser.add_argument("files", nargs="*", type=Path, help="markdown files (default: README and model cards)")
    args = parser.parse_args(argv)
    stale = []
    for path in args.files or FILES:
        text = path.read_text(encoding="utf-8")
        updated = render(text, str(path))
        if updated == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(updated, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(str(p) for p in stale)
        print(f"figures out of date with benchmarks/results in: {names}; run python benchmarks/readme_figures.py",
              file=sys.stderr)
        return 1
    for path in stale:
        print(f"rewrote the figures of {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
