"""Classifier top-1 on rendered tiles whose faces come from fonts no training run has used: a set never seen.

    python benchmarks/eval_heldout_fonts.py --data ../shared/data/chinese-mahjong-v4/train \
        --model models/tile_classifier.onnx --model runs/classifier-candidate/model.onnx \
        --json benchmarks/results/classifier_heldout_fonts.json

The construction (the same for every model, fixed seeds):
- group `held-out fonts`: character tiles, winds, red and green dragons, flowers and seasons composed from the six
  CJK fonts of `training.faces.HELD_OUT_FONTS` (WenQuanYi Micro Hei / Zen Hei, IPAex Mincho / Gothic, cwTeX Yen,
  Seto) in the random layouts of `training.faces.glyph_variant_faces` (numeral over 萬, one big flower character,
  numbers in any corner...). The layouts are the candidate recipe's; the fonts are in no training run.
Dots and bamboo are not covered: the one font with their Mahjong Tiles block outside training (GNU Unifont) draws
them as 16-pixel art with the tile frame inside the glyph, nothing like a tile set (tried and dropped).
Each face is rendered as a tile in a photo-like scene by `training.renders.Renderer` (backgrounds cut from the
photos of --data) and cut with the model's exact inference geometry (`training.augment.patch_to_input`, no jitter).
Every crop is also read turned 90, 180 and 270 degrees clockwise, letterboxed the way `vision.turned_faces` feeds a
turned crop: how well each orientation is read, without the re-read rule.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from fanscan.training.augment import patch_to_input
from fanscan.training.faces import HELD_OUT_FONTS, glyph_variant_faces, have_rsvg
from fanscan.training.renders import Renderer, background_photos
from fanscan.vision.classify import TileClassifier
from fanscan.vision.turned_faces import TURNS, turn_crop
from results_file import ROOT, shown_path, write_json

SEED = 2026


def construction(data: Path, cache: Path, per_tile: int) -> tuple[list[np.ndarray], list[str], list[str]]:
    """The rendered patches, their tile ids and their group names (see the module doc)."""
    groups = {"held-out fonts": glyph_variant_faces(cache, HELD_OUT_FONTS, "heldout", SEED, drawn_suits=False)}
    photos = background_photos(data, 30, SEED)
    patches, tiles, names = [], [], []
    for g_index, (name, faces) in enumerate(groups.items()):
        by_tile: dict[str, list] = {}
        for face in faces:
            by_tile.setdefault(face.tile, []).append(face)
        renderer = Renderer(by_tile, [], photos, SEED + g_index)
        for tile in sorted(by_tile):
            for _ in range(per_tile):
                patches.append(renderer.render(tile))
                tiles.append(tile)
                names.append(name)
    return patches, tiles, names


def top1(predicted: list[str], truth: list[str], mask: np.ndarray) -> float | None:
    right = np.array([p == t for p, t in zip(predicted, truth, strict=True)])
    return round(float(right[mask].mean()), 4) if mask.any() else None


def score(model: Path, crops: np.ndarray, truth: list[str], group: list[str]) -> dict:
    classifier = TileClassifier(model)
    truth_a, group_a = np.array(truth), np.array(group)
    everything = np.ones(len(truth), bool)
    out: dict = {"model": shown_path(model), "by_turn": {}}
    for degrees in (0, *TURNS):
        batch = crops if degrees == 0 else [turn_crop(c, degrees) for c in crops]
        predicted = [classifier.classes[i] for i in classifier.probabilities(batch).argmax(axis=1)]
        turn = {"top1": top1(predicted, truth, everything),
                "groups": {g: top1(predicted, truth, group_a == g) for g in sorted(set(group))}}
        if degrees == 0:
            turn["per_class"] = {t: {"n": int((truth_a == t).sum()), "top1": top1(predicted, truth, truth_a == t)}
                                 for t in classifier.classes if (truth_a == t).any()}
            pairs: dict[tuple[str, str], int] = {}
            for t, p in zip(truth, predicted, strict=True):
                if t != p:
                    pairs[(t, p)] = pairs.get((t, p), 0) + 1
            turn["confusions"] = [{"truth": t, "predicted": p, "count": n}
                                  for (t, p), n in sorted(pairs.items(), key=lambda kv: -kv[1])[:20]]
        out["by_turn"][str(degrees)] = turn
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="YOLO-layout folder: backgrounds are cut from it")
    parser.add_argument("--model", type=Path, action="append", required=True, help="classifier ONNX (repeatable)")
    parser.add_argument("--per-tile", type=int, default=40, help="renders of each tile in each group")
    parser.add_argument("--cache", type=Path, default=ROOT / "work_data" / "heldout_fonts", help="rasterised faces")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not have_rsvg():
        print("error: rsvg-convert (Debian librsvg2-bin) is needed to draw the fonts", file=sys.stderr)
        return 2
    started = time.time()
    patches, truth, group = construction(args.data, args.cache, args.per_tile)
    probe = TileClassifier(args.model[0])
    crops = np.stack([patch_to_input(p, probe.crop_spec) for p in patches])
    result = {"construction": "renders of faces from fonts no training run used (see the module doc)",
              "fonts": list(HELD_OUT_FONTS), "seed": SEED,
              "per_tile": args.per_tile, "crops": len(truth),
              "crops_by_group": {g: group.count(g) for g in sorted(set(group))},
              "models": [score(m, crops, truth, group) for m in args.model], "threads": 1}
    result["seconds"] = round(time.time() - started, 1)
    for model in result["models"]:
        turns = ", ".join(f"{d}: {v['top1']}" for d, v in model["by_turn"].items())
        print(f"{model['model']}: top-1 {model['by_turn']['0']['top1']} {model['by_turn']['0']['groups']}; "
              f"by turn {turns}")
    if args.json:
        write_json(args.json, result, indent=1)
        print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
