"""The recognition models' figures: accuracy on dev and test, the hand told apart, sideways tiles and turned faces,
set profiles, small fine-tuning, and the model cards' own blocks. Each function returns one block's text."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from figure_sources import COMMANDS, DATA, figure, load, points, share

from fanscan import models


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
        f"sessions, {split['dev_photos']} photos, held out by a hash of the session). The shipped classifier "
        f"trained on {split['dev_photos_trained_on_by_classifier']} of these photos; the shipped detector predates "
        f"the split and trained on {split['dev_photos_trained_on_by_detector']} of them "
        f"(`{COMMANDS['dev_split']}`), so the detection figures are not figures on unseen photos. "
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
            + f"; {samples['hands_needing_review']} of them are complete only by a rule override (the rules overrule "
              "the classifier, or suggest a reading that would complete the hand), so `--yes` and `batch` ask for "
              "review")


def rules_margin() -> str:
    """The rules' override margin tried on the development split."""
    sweep = load("rules_margin_dev")
    rows = sweep["by_margin"]
    best = max(rows, key=lambda r: (r["hands_exact"], -r["margin"]))
    shipped = next(r for r in rows if r["margin"] == sweep["shipped_margin"])
    cells = "; ".join(f"{r['margin']:g}: {r['hands_exact']} ({r['hands_with_override']} overridden, "
                      f"{r['overrides_made_exact']} made exact, {r['overrides_made_wrong']} wrong)" for r in rows)
    return (f"Whole hands exact as proposed on the development split ({shipped['hand_photos']} hand photos) by "
            f"the margin the rules get over the classifier (`vision.group.RULES_MARGIN`, a probability ratio): "
            f"{cells} (`{COMMANDS['rules_margin_dev']}`, `benchmarks/results/rules_margin_dev.json`). Best on dev: "
            f"{best['margin']:g}; shipped: {sweep['shipped_margin']}")


def vision_speed() -> str:
    speed = load("vision_speed")
    small, large = speed["photo_640"], speed["photo_12mp"]
    return (f"{small['photo_to_proposal_ms']:.0f} ms / {large['photo_to_proposal_ms']:.0f} ms "
            f"({large['proposal_ratio_to_decode_only']:.2f}× its decode), {speed['onnxruntime_threads']} thread, "
            f"{speed['cpu_count']} cores at load average {speed['load_average']:.1f}, of which "
            f"{small['aspect_search_ms']:.2f} ms for the squeezed-photo check"
            + (f"; a 12-MP photo of small tiles (the 640-px photo in the middle of a 12-MP frame), which the coarse "
               f"first look sends to the working size: {tiny['photo_to_proposal_ms']:.0f} ms "
               f"({tiny['proposal_ratio_to_decode_only']:.1f}× its decode; "
               f"{tiny['photo_to_proposal_working_size_at_once_ms']:.0f} ms decoded at the working size at once)"
               if (tiny := speed.get("photo_12mp_small_tiles")) else "")
            + f": `{COMMANDS['vision_speed']}`")


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
            f"{dev['top1']:.4f} on {dev['crops']:,} boxes, lowest class {dev['min_class_top1']:.4f} — photo "
            f"sessions it never trained on (`{COMMANDS['classifier_dev']}`)")


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


def profiles_classifier_words(classifier: str) -> tuple[str, str]:
    """What the calibration curve's classifier file is (the JSON names the file it was run with), for the text: the
    words after its name, and the warning the development rows need when it may have trained on those sessions
    (empty for the shipped reader, which held them out)."""
    name = Path(classifier).name
    if name == models.CLASSIFIER:
        return " (the shipped reader, which held the development split out)", ""
    if name == models.PROFILE_CLASSIFIER:
        what = " (the file `fanscan calibrate` uses: run 3, which trained on 219 of the 234 development photos)"
        seen = "has seen those sessions: they no longer tell how a familiar set's new photos read. "
    else:
        what, seen = " (a classifier given with `--classifier`)", "may have seen those sessions (not recorded here). "
    return what, ("So the rows of development photos (the composited sessions and the sessions one at a time) show a "
                  f"profile built on a classifier that {seen}")


def calibration_curve() -> str:
    """A set profile's gain by calibration photos a tile: the table, the chosen strengths and cross-validation."""
    result = load("calibration_curve")
    plain, recoloured = result, result["recoloured"]
    artwork, artwork_recoloured = result["artwork_set"], result["artwork_set_recoloured"]
    counts = [point["photos_per_tile"] for point in plain["curve"]]

    riichi, hk = result["riichi_table_leomiura"], result["hk_crops_justinchan"]
    sessions = result["dev_sessions"]
    pooled = sessions["pooled"]

    def row(label: str, kind: dict, measure: str) -> str:
        cells = [f"{point['with_profile'][measure]:.3f}" for point in kind["curve"]]
        return f"| {label} | {' | '.join(cells)} | {kind['without_profile'][measure]:.3f} |"

    def shared_row(label: str, kind: dict) -> str:  # the shared sets report top-1 alone
        cells = [f"{point['with_profile']:.3f}" for point in kind["curve"]]
        return f"| {label} | {' | '.join(cells)} | {kind['without_profile']:.3f} |"

    def at(kind: dict, photos: int) -> dict:
        return next(point for point in kind["curve"] if point["photos_per_tile"] == photos)

    def lower(session: str, photos: int) -> str:
        kind = sessions["sessions"][session]
        return f"{session} {at(kind, photos)['with_profile']:.3f} against {kind['without_profile']:.3f}"

    def strengths(kind: dict) -> str:
        return ", ".join("none (the shipped head)" if point["penalty"] is None else f"{point['penalty']:g}"
                         for point in kind["curve"])

    most = max(counts)
    kinds = (("as they are", plain), ("recoloured", recoloured))
    loo = {name: {k: at(kind, k)["leave_one_out"] for k in counts if k > 1} for name, kind in kinds}
    seconds = [point["build_seconds"] for kind in (plain, recoloured, artwork, artwork_recoloured)
               for point in kind["curve"]]
    gain = at(recoloured, most)["with_profile"]
    built_on, seen = profiles_classifier_words(result["classifier"])
    return "\n".join([
        f"**What it measured here** (`{COMMANDS['calibration_curve']}`, JSON in "
        f"`benchmarks/results/calibration_curve.json`; {plain['onnxruntime_threads']} onnxruntime and "
        f"{plain['openblas_threads']} OpenBLAS thread). Profiles are built on `{result['classifier']}`"
        f"{built_on}; \"no profile\" is the shipped reading, "
        f"`{result['reader_without_profile']}`, which held the development split out. "
        f"{seen}The "
        "other makers' sets (riichi-table-leomiura, hk-crops-justinchan) were seen by neither. Calibration photos "
        "are composited from crops of the development split (a second hash splits its photo sessions into a "
        "calibration half and a test half); the test is every labelled box of the test half, top-1:",
        "",
        f"| calibration photos a tile | {' | '.join(str(k) for k in counts)} | no profile |",
        "|---|" + "---|" * (len(counts) + 1),
        row(f"held-out photo sessions (many sets; {plain['test_crops']} test crops)", plain, "top1"),
        row("— its flowers and seasons", plain, "flowers_seasons"),
        row("the same recoloured (red and blue swapped: a palette no training photo shows)", recoloured, "top1"),
        row("— its honours", recoloured, "honours"),
        row(f"one rendered artwork set (gleitz; {artwork['test_crops']} test crops)", artwork, "top1"),
        row("the same set recoloured (calibration and test: one set the model reads worse)", artwork_recoloured,
            "top1"),
        shared_row(f"riichi-table-leomiura (another maker's set: calibrated on half its {riichi['scenes']} scenes, "
                   f"read on the other half, both ways; {riichi['boxes']} boxes)", riichi),
        shared_row(f"hk-crops-justinchan (two or three other sets; leave one of {hk['crops']} crops out)", hk),
        shared_row(f"development sessions one at a time (one familiar set each: {len(sessions['sessions'])} "
                   f"sessions of 6 or more photos, calibrated on half their photos, read on the other half, both "
                   f"ways; {sum(v['boxes'] for v in sessions['sessions'].values())} boxes, pooled)", pooled),
        "",
        "Development sessions a profile reads lower than no profile: "
        + "; ".join(f"{point['photos_per_tile']} photo{'s' if point['photos_per_tile'] != 1 else ''} a tile "
                    + (", ".join(lower(name, point["photos_per_tile"]) for name in point["sessions_lower"]) or "none")
                    for point in pooled["curve"]) + ".",
        "",
        f"Recoloured, at {most} photos a tile: {points(gain['top1'], recoloured['without_profile']['top1'])} against "
        f"no profile, honours {points(gain['honours'], recoloured['without_profile']['honours'])}. Correction "
        f"strength (L2 penalty) at {', '.join(map(str, counts))} photos a tile: {strengths(plain)} as they are; "
        f"{strengths(recoloured)} recoloured; {strengths(artwork_recoloured)} for the recoloured artwork set "
        "(chosen from the calibration photos' own evidence: held-out views or photos, and how many tiles the "
        "shipped head misreads). Cross-validated figures by photo, with / without the profile: "
        + "; ".join(f"{k} photos a tile {v['accuracy']:.2f} / {v['accuracy_without_profile']:.2f} as they are, "
                    f"{loo['recoloured'][k]['accuracy']:.2f} / {loo['recoloured'][k]['accuracy_without_profile']:.2f}"
                    " recoloured" for k, v in loo["as they are"].items())
        + f". Each point of the curve took {min(seconds):.0f}–{max(seconds):.0f} s of wall time, run beside other "
          "benchmarks.",
    ])


def learning_curve() -> str:
    """`--learn` from no profile: accuracy on the other half of riichi-table-leomiura after 1, 3, 10 frames."""
    result = load("learning_curve")
    points = ", ".join(f"{point['with_profile']:.3f} after {point['confirmed_frames']} confirmed "
                       f"frame{'s' if point['confirmed_frames'] != 1 else ''}" for point in result["curve"])
    return (f"On riichi-table-leomiura (another maker's set, never trained on), starting from no profile "
            f"({result['without_profile']:.3f}): {points}, on the boxes of the scenes not confirmed, pooled over "
            f"both halves (`{COMMANDS['learning_curve']}`, `benchmarks/results/learning_curve.json`)")


def calibration_speed() -> str:
    result = load("calibration_speed")
    loo, no_loo = result["with_leave_one_out"], result["without_leave_one_out"]
    return (f"`{COMMANDS['calibration_speed']}`, `benchmarks/results/calibration_speed.json`; "
            f"{result['onnxruntime_threads']} onnxruntime and {result['openblas_threads']} OpenBLAS thread, this "
            f"shared "
            f"{result['cpu_count']}-core machine at load average {result['load_average_at_start'][0]:.1f}, medians of "
            f"{result['runs']} runs): on `{result['data']}` ({loo['photos']} photos, {loo['tiles']} tiles) the whole "
            f"command takes {loo['median_cpu_seconds']:.1f} s of CPU ({loo['median_wall_seconds']:.0f} s wall) with "
            f"the cross-validation ({loo['cross_validation_folds']} folds × {loo['penalties_tried']} penalties), "
            f"{no_loo['median_cpu_seconds']:.1f} s of CPU "
            f"({no_loo['median_wall_seconds']:.0f} s wall) without (`--no-loo`)")


def train_small() -> str:
    """Fine-tuning the classifier on a small dataset, as they are and recoloured."""
    plain, recoloured = load("train_classifier_small"), load("train_classifier_small_recoloured")
    photos = re.match(r"\d+", plain["dataset"])

    def row(label: str, result: dict) -> str:
        shipped, tuned = result["held_out_top1"]["shipped"], result["held_out_top1"]["fine_tuned"]
        cells = [f"**{v:.3f}**" if v == max(shipped, tuned) and shipped != tuned else f"{v:.3f}"
                 for v in (shipped, tuned)]
        return f"| {label} | {' | '.join(cells)} |"

    def gain(result: dict) -> str:
        return points(result["held_out_top1"]["fine_tuned"], result["held_out_top1"]["shipped"])

    return "\n".join([
        f"Measured (`{COMMANDS['train_classifier_small']}`; `{COMMANDS['train_classifier_small_recoloured']}`): the "
        f"small dataset is the {photos.group() + ' ' if photos else ''}photos of the development split, which the "
        f"shipped classifier never trained on; {plain['train_crops']:,} training crops, "
        f"{plain['held_out_crops']} held-out crops from {len(plain['held_out_sources'])} source photos; "
        f"{plain['steps']} steps, {plain['torch_threads']} "
        "torch thread:",
        "",
        "| dataset | shipped | fine-tuned |",
        "|---|---|---|",
        row("photos as they are (many sets; held-out photos show other sets)", plain),
        row("the same photos recoloured (red and blue swapped: an appearance the model never saw)", recoloured),
        "",
        f"Fine-tuned against shipped: {gain(plain)} as they are, {gain(recoloured)} recoloured. Training took "
        f"{plain['wall_seconds']:.0f} s (as they are) and {recoloured['wall_seconds']:.0f} s (recoloured) of wall "
        "time.",
    ])


def added(photo: dict, stage: str, with_it: str, without: str) -> str:
    """Milliseconds one step adds, signed, rounded (a saving shows as -, no time either way as +0)."""
    return f"{round(photo[stage][with_it] - photo[stage][without]) + 0:+d}"


def sideways_rows() -> tuple[dict, dict, dict, dict]:
    """Re-laid rows without and with the sideways look: dev, then test."""
    return (load("backs_sideways_dev_no_look"), load("backs_sideways_dev"), load("backs_sideways_test"),
            load("backs_sideways_test_sideways_look"))


def sideways_turned() -> str:
    """Sideways tiles found on re-laid rows, turned faces read, and what both cost."""
    before, after, test_before, test_after = sideways_rows()
    detection, turned = load("detection_dev_sideways"), load("turned_faces_dev")
    speed, worst = load("sideways_turned_speed"), load("sideways_turned_speed_worst")
    missed, real = after["sideways_missed_because"], after["real_sideways"]
    by_angle, hands = turned["by_angle"], turned["whole_hands"]
    quarter = [by_angle[a]["turn_undoes_angle"] for a in ("90", "270") if a in by_angle]
    cheap, costly = speed["photo_640"], worst["photo_640"]
    return (
        f"On rows re-laid from the development split's own photos with {after['melds_per_row']} claimed melds each "
        f"({after['photos']} photos, {after['sideways_count']} sideways tiles; `{COMMANDS['backs_sideways_dev']}`, "
        f"`--no-sideways-check` for before) sideways tiles found go from {before['sideways_recall']:.3f} to "
        f"{after['sideways_recall']:.3f} — {'**short of' if after['sideways_recall'] < 0.9 else 'meeting'} the 0.90 "
        f"target{'**' if after['sideways_recall'] < 0.9 else ''} ({missed.get('no_detection', 0)} raise no detection "
        f"at all, {missed.get('upright_box', 0)} keep an upright box) — while the other tiles "
        f"({before['other_recall']:.3f} → {after['other_recall']:.3f}) and the rendered backs "
        f"({before['backs_recall']:.3f} → {after['backs_recall']:.3f}) are found as before; detection on all "
        f"{detection['photos']} dev photos: recall {detection['recall']:.3f}, precision {detection['precision']:.3f} "
        f"with the labels as exported (`{COMMANDS['detection_dev_sideways']}`). On the test split's re-laid rows, run "
        f"once for this report (`{COMMANDS['backs_sideways_test_sideways_look']}`), "
        f"{test_before['sideways_recall']:.2f} → {test_after['sideways_recall']:.2f} of "
        f"{test_after['sideways_count']} sideways tiles, backs "
        f"{test_before['backs_recall']:.3f} → {test_after['backs_recall']:.3f}, other tiles "
        f"{test_before['other_recall']:.3f} → {test_after['other_recall']:.3f}. The dev photos hold no real claimed "
        f"meld (their {real['count']} labelled wide boxes: a discard on the wall and two label misfits; found after: "
        f"{real['recall']:.0%}). The classifier reads a crop whose best probability is under "
        f"{turned['low_confidence']} at 90, 180 and 270 degrees too and keeps the most confident face if it beats the "
        f"crop as cut by {turned['margin']} (`vision/turned_faces.py`); the turn is `turn` on each tile of "
        f"`fanscan photo --json`. On the dev split's {turned['crops_per_angle']:,} labelled tiles cut from the photo "
        f"turned by a known angle (`{COMMANDS['turned_faces_dev']}`), top-1 as cut / with turns: "
        + ", ".join(f"{m['top1_as_is']:.3f} / {m['top1_any_turn']:.3f} at {angle}" for angle, m in by_angle.items())
        + f" degrees (photo sessions the classifier never trained on), whole hands {hands['as_is']['exact']} of "
          f"{hands['as_is']['photos']} as cut, {hands['any_turn']['exact']} of {hands['any_turn']['photos']} with "
          "turns. The turn is the one that read best, not a measured orientation: at 90 and 270 degrees "
          f"{min(quarter):.0%}–{max(quarter):.0%} of turned readings undo the angle, and "
          f"{by_angle['0']['read_turned']:.0%} of upright crops are read best turned. Cost "
          f"(`{COMMANDS['sideways_turned_speed']}`, {speed['cpu_count']} cores at load average "
          f"{speed['load_average']:.1f}): on the test hand photo `vision_speed.py` times "
          f"({cheap['sideways_candidates']} candidates, {cheap['uncertain_crops']} uncertain crops) "
          f"{added(cheap, 'detect_ms', 'with_look', 'without_look')} ms to detect and "
          f"{added(cheap, 'read_ms', 'any_turn', 'as_is')} ms to read; on a dev row with "
          f"{costly['sideways_candidates']} candidates and {costly['uncertain_crops']} uncertain crops, "
          f"{added(costly, 'detect_ms', 'with_look', 'without_look')} ms to detect and "
          f"{added(costly, 'read_ms', 'any_turn', 'as_is')} ms to read "
          f"(`{COMMANDS['sideways_turned_speed_worst']}`)")


def development_sets() -> str:
    """Every development set side by side (`evaluate.py --all`), the release before against this one."""
    now, before = load("evaluation_all")["sets"], load("evaluation_all_before")["sets"]
    measures = (("recall", "recall"), ("precision", "precision"), ("end_to_end_accuracy", "end-to-end"),
                ("whole_hand_as_scored", "whole hands as scored"))
    lines = ["| set | photos | " + " | ".join(label for _, label in measures) + " |",
             "|---|---|" + "---|" * len(measures)]
    for name, entry in now.items():
        if "missing" in entry:
            continue
        # A set added since the release before has no before: shown as "—".
        a, b = entry["all"], before.get(name, {}).get("all", {})
        cells = [f"{figure(b.get(key))} → {figure(a.get(key))}" if a.get(key) is not None else "—"
                 for key, _ in measures]
        lines.append(f"| {name} | {a['photos']} | " + " | ".join(cells) + " |")
    lines += ["", f"Before → now: the release before against this one (`{COMMANDS['evaluation_all']}`; before: "
                  f"{COMMANDS['evaluation_all_before']}). Whole hands as scored: photos of one hand whose tiles in "
                  "the hand (those set aside on the table left out) are the labelled ones. riichi-table-leomiura and "
                  "hk-crops-justinchan are other makers' tiles, never trained on; the close-ups are 1-4 tiles cut "
                  "from them and from dev and laid on paper-like sheets (`benchmarks/close_ups.py`); the artwork "
                  "close-ups, rendered tiles of an art style the detector never saw, large on such sheets "
                  "(`benchmarks/artwork_close_ups.py`; the classifier was trained on renders of it)."]
    return "\n".join(lines)


def large_tiles() -> str:
    """Close-ups built from dev photos, before and after the scale pass (vision/scale.py), and where it fires."""
    after, before, dev = load("large_tiles_dev"), load("large_tiles_dev_no_scale_pass"), load("evaluation_dev")
    fired = dev["all"]["scale_pass_fired"]

    def pair(key: str, variant: str, bucket: str | None = None) -> str:
        a, b = ((r[variant]["all"] if bucket is None else r[variant]["by_size"][bucket]) for r in (after, before))
        return f"{figure(b[key])} → {figure(a[key])}"

    lines = ["| close-ups from dev photos | cases | tiles | recall | precision | end-to-end | split-tile boxes |",
             "|---|---|---|---|---|---|---|"]
    for variant, label in (("crop", "cut from the photo"), ("white", "pasted on near-white"), ("all", "both")):
        a, b = after[variant]["all"], before[variant]["all"]
        lines.append(f"| {label} | {a['cases']} | {a['labelled_tiles']} | {pair('recall', variant)} | "
                     f"{pair('precision', variant)} | {pair('end_to_end_accuracy', variant)} | "
                     f"{b['fragments']} → {a['fragments']} |")
    for bucket, measures in after["all"]["by_size"].items():
        lines.append(f"| tile {bucket} of the frame | {measures['cases']} | {measures['labelled_tiles']} | "
                     f"{pair('recall', 'all', bucket)} | {pair('precision', 'all', bucket)} | "
                     f"{pair('end_to_end_accuracy', 'all', bucket)} | "
                     f"{before['all']['by_size'][bucket]['fragments']} → {measures['fragments']} |")
    reached = after["all"]["all"]["recall"] >= 0.97 and after["all"]["all"]["precision"] >= 0.95
    lines += [
        "",
        f"Before → after the scale pass; {after['cases_per_variant']} cases of each kind from the "
        f"{after['source_photos']} dev photos with tight labels (seed {after['seed']}; "
        f"`{COMMANDS['large_tiles_dev']}`, before: `{COMMANDS['large_tiles_dev_no_scale_pass']}`). "
        + ("The issue's targets for another maker's set (recall 0.97, precision 0.95) are met here. " if reached else
           "**Short of the issue's targets** for another maker's set (recall 0.97, precision 0.95), with the "
           "detector not retrained; the built close-ups enlarge the dev photos' tiles, so they are blurrier than a "
           "phone's close-up and are no measure of that private set. ")
        + f"On the {dev['all']['photos']} dev photos as they are the pass fired on {fired} "
          f"({fired / dev['all']['photos']:.0%}: "
          + ", ".join(f"{m['scale_pass_fired']} {group}" for group, m in dev["groups"].items() if m["scale_pass_fired"])
          + f"; `{COMMANDS['evaluation_dev']}`); elsewhere it costs only its check.",
    ]
    return "\n".join(lines)


def sideways_detector() -> str:
    """The detector card's one line on sideways tiles."""
    before, after, test_before, test_after = sideways_rows()
    return (f"on rows re-laid from development-split photos {before['sideways_recall']:.3f} → "
            f"{after['sideways_recall']:.3f} found (`{COMMANDS['backs_sideways_dev']}`), on the re-laid test rows "
            f"{test_before['sideways_recall']:.2f} → {test_after['sideways_recall']:.2f} (measured once, after: "
            f"`{COMMANDS['backs_sideways_test_sideways_look']}`)")


def classifier_test_detail() -> str:
    """The classifier card's test paragraph: top-1, the errors one by one, the squeezed boxes."""
    result = load("classifier_test")
    errors = ", ".join(f"{c['truth']} → {c['predicted']}" + (f" ×{c['count']}" if c["count"] > 1 else "")
                       for c in result["confusions"])
    wrong = sum(c["count"] for c in result["confusions"])
    squeezed = result["broken_boxes"] - result["broken_boxes_wrong"]
    return (f"**top-1 {result['top1']:.4f}**, every class ≥ **{result['min_class_top1']:.4f}**. The {wrong} errors: "
            f"{errors}. Of the {result['broken_boxes']} boxes over 3x longer than wide (the squeezed strip photo), "
            f"{squeezed} are read right (`{COMMANDS['classifier_test']}`)")


def lowest_class(result: dict) -> str:
    name, worst = min(result["per_class"].items(), key=lambda item: item[1]["top1"])
    return f"{worst['top1']:.4f} (`{name}`)"


def classifier_rebuild() -> str:
    """Shipped run 3 against its rebuild from nothing, on test."""
    shipped, rebuild = load("classifier_test_run3"), load("classifier_test_reproduction")
    gap = abs(shipped["top1"] - rebuild["top1"]) * 100
    low_gap = abs(shipped["min_class_top1"] - rebuild["min_class_top1"]) * 100
    return "\n".join([
        "| | run 3 | rebuild | difference |",
        "|---|---|---|---|",
        f"| test top-1, {shipped['crops']:,} boxes | **{shipped['top1']:.4f}** | {rebuild['top1']:.4f} | "
        f"{gap:.2f} points (bar: 0.3) |",
        f"| lowest class on test | {lowest_class(shipped)} | {lowest_class(rebuild)} | {low_gap:.2f} points |",
        "",
        f"Commands: `{COMMANDS['classifier_test']}` when run 3 was shipped (kept as "
        "`benchmarks/results/classifier_test_run3.json`); rebuild: the same with `--model "
        "runs/classifier-repro/model.onnx --json benchmarks/results/classifier_test_reproduction.json`.",
    ])


def classifier_per_class() -> str:
    """Per class: test and the development split, the shipped classifier against run 3 before it."""
    results = (load("classifier_test"), load("classifier_test_run3"), load("classifier_dev"),
               load("classifier_dev_run3"))
    lines = ["| class | test, shipped (n) | test, run 3 | dev, shipped (n) | dev, run 3 (trained on most of it) |",
             "|---|---|---|---|---|"]
    for name in results[2]["classes"]:
        cells = []
        for result, with_n in zip(results, (True, False, True, False), strict=True):
            row = result["per_class"].get(name)
            cells.append("—" if row is None else f"{row['top1']:.4f}" + (f" ({row['n']})" if with_n else ""))
        if cells != ["—"] * 4:
            lines.append(f"| `{name}` | {' | '.join(cells)} |")
    return "\n".join(lines)


def _pooled(result: dict, names: str) -> float:
    """Top-1 over the boxes of several classes together."""
    rows = [result["per_class"][name] for name in names if name in result["per_class"]]
    return sum(r["top1"] * r["n"] for r in rows) / max(sum(r["n"] for r in rows), 1)


# The classifiers compared for the session-5 release: (column, dev result file, a part of its ONNX path).
CLASSIFIER_RUNS = (
    ("run 3 (shipped before)", "classifier_dev_run3", "shipped-before-session5"),
    ("baseline (run 3's recipe)", "classifier_dev_baseline", "classifier-baseline-14k"),
    ("candidate", "classifier_dev_candidate", "classifier-candidate-14k"),
)


def classifier_candidate() -> str:
    """Run 3, the baseline and the candidate: dev split (per confusable class) and held-out fonts."""
    dev = [load(name) for _, name, _ in CLASSIFIER_RUNS]
    fonts = load("classifier_heldout_fonts")
    turns = [next(m["by_turn"] for m in fonts["models"] if part in m["model"]) for _, _, part in CLASSIFIER_RUNS]

    def row(label: str, cells: list[str]) -> str:
        return f"| {label} | {' | '.join(cells)} |"

    lines = [row("", [label for label, _, _ in CLASSIFIER_RUNS]), "|---|" + "---|" * len(CLASSIFIER_RUNS),
             row(f"dev top-1, {dev[-1]['crops']:,} boxes (run 3 trained on 219 of the 234 photos)",
                 [f"{r['top1']:.4f}" for r in dev]),
             row("dev, lowest class", [lowest_class(r) for r in dev])]
    for group in (("2m", "3m"), ("6m", "7m", "9m"), ("2p", "4p"), ("6s", "9s")):
        lines.append(row(f"dev {' / '.join(f'`{n}`' for n in group)}",
                         [" / ".join(f"{r['per_class'][n]['top1']:.4f}" for n in group) for r in dev]))
    flowers = sum(dev[-1]["per_class"][n]["n"] for n in "abcdefgh" if n in dev[-1]["per_class"])
    lines.append(row(f"dev flowers and seasons ({flowers} boxes, pooled)",
                     [f"{_pooled(r, 'abcdefgh'):.4f}" for r in dev]))
    lines.append(row(f"held-out fonts top-1, {fonts['crops']:,} renders, as they are",
                     [f"{t['0']['top1']:.4f}" for t in turns]))
    lines.append(row("held-out fonts, turned 180°", [f"{t['180']['top1']:.4f}" for t in turns]))
    lines.append(row("held-out fonts, turned 90° / 270°",
                     [f"{t['90']['top1']:.4f} / {t['270']['top1']:.4f}" for t in turns]))
    for label, names in (("character tiles", [f"{n}m" for n in range(1, 10)]), ("flowers and seasons", "abcdefgh")):
        lines.append(row(f"held-out fonts, {label} (mean of {len(names)})",
                         [f"{sum(t['0']['per_class'][n]['top1'] for n in names) / len(names):.4f}" for t in turns]))
    lines.append(row("**choice**: mean of dev top-1 and held-out fonts as they are",
                     [f"{(r['top1'] + t['0']['top1']) / 2:.4f}" for r, t in zip(dev, turns, strict=True)]))
    commands = "; ".join(f"`{COMMANDS[name]}`" for _, name, _ in CLASSIFIER_RUNS)
    return "\n".join(lines) + f"\n\nCommands: {commands}; `{COMMANDS['classifier_heldout_fonts']}`."


def classifier_speed() -> str:
    result = load("classifier_speed")
    return (f"median {result['median_ms_per_crop']:.2f} ms per crop in batches of {result['batch']} "
            f"({result['median_ms_per_batch']:.1f} ms per batch), {result['threads']} onnxruntime thread, "
            f"{result['cpu_count']} cores at load average {result['load_average_1min']:.1f} "
            f"({'under' if result['median_ms_per_crop'] <= result['target_ms_per_crop'] else '**over**'} the "
            f"{result['target_ms_per_crop']:g}-ms bar): `{COMMANDS['classifier_speed']}`")


DETECTOR_TARGET = 0.98  # the detector's recall and precision target on test


def detector_misses() -> str:
    """The detector card's verdict on test and where its misses are."""
    result = load("detection_test")
    per_photo = Counter(miss["image"] for miss in result["misses"])
    worst_photo, worst_count = per_photo.most_common(1)[0] if per_photo else ("", 0)

    def verdict(name: str, value: float) -> str:
        if value >= DETECTOR_TARGET:
            return f"{name} meets the {DETECTOR_TARGET} target"
        return f"{name} is {(DETECTOR_TARGET - value) * 100:.2f} points short of the {DETECTOR_TARGET} target"

    return (f"**{verdict('Precision', result['precision'])}; {verdict('recall', result['recall'])}.** "
            f"{len(result['misses'])} misses, {worst_count} of them in one photo (`{worst_photo.split('_jpg')[0]}`), "
            f"the rest in {max(len(per_photo) - 1, 0)} photos; {len(result['false_positives'])} unmatched detections "
            f"(`{COMMANDS['detection_test']}`)")


def backs_test() -> str:
    rows = load("backs_sideways_test")
    return (f"{rows['backs_recall']:.0%} of {rows['backs_count']} found in the same test (rendered backs on real rows, "
            f"`{COMMANDS['backs_sideways_test']}`)")


def detector_calibration() -> str:
    chosen = load("detector_box_calibration")["chosen"]
    return (f"F1 {chosen['f1']:.3f} (recall {chosen['recall']:.3f}, precision {chosen['precision']:.3f}) at score "
            f"threshold {chosen['score_threshold']}, box scale ({chosen['box_scale_x']}, {chosen['box_scale_y']}) "
            "(`benchmarks/results/detector_box_calibration.json`)")
