"""Train the tile-proposal net (`fanscan.training.detector_net.DetectorNet`) and export it to ONNX with its metadata.

    python -m fanscan.training.train_detector --data ../shared/data/chinese-mahjong-v4/train --out runs/detector \
        --steps 2000 --export models/tile_detector.onnx

(models/tile_detector.md gives the exact commands behind the shipped model, wall time and measured figures.)

Single class "tile", trained from scratch on the train split only: random 256-px crops of the photos at the scales
a letterboxed 384-px view shows (plus close-ups), colour / blur / noise / JPEG jitter, rendered tile backs and
sideways tiles composited in as extra positives (`fanscan.training.detector_data`). Batch 32, AdamW 2e-3, cosine decay.

Deterministic from `--seed`: each step draws its samples from a generator seeded by (seed, step), so a resumed run
sees the same batches. Progress goes to `<out>/train.log`; a checkpoint every `--checkpoint-every` steps to
`<out>/last.ckpt` (rerun the same command to resume). The development split (`fanscan.vision.splits`: whole photo
sessions, shared with the classifier) is held out: it measures progress and chooses the decoding settings.
`--smoke` trains a few steps on whatever split is given (tests/data) to check the machinery end to end.

Fine-tuning for close-ups (issue 18): `--paper-p` makes that share of the samples a sheet with 1-4 tiles large in the
frame (half cut from photos with published labels, half rendered from the classifier's face artwork:
`detector_data.paper_close_up`, `rendered_close_up`), and `--filled-p` makes that share of the sheets one tile
filling its photo, as the close-up net and its scale pass see such a photo (`detector_data.filled_close_up`);
`--large-crop-p` makes that share of the other samples a crop cut around one labelled tile of a table photo so that
its long side is 12-85 % of the crop, whole, with its neighbours as they lie (`detector_data.random_sample`): the
large tiles' misses are boxes across two tiles or around several;
`--distil W` pulls the net, on the other samples, towards the `--init-from` net's centres and boxes, so that what it
learns for the sheets costs little on table photos.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import cv2
import numpy as np
from fanscan.training import detector_data as dd
from fanscan.training.faces import Face
from fanscan.vision.splits import DEV, DEV_FRACTION, session_of, split_of

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "chinese-mahjong-v4" / "train"
DEFAULT_ARTWORK = ROOT.parent / "shared" / "artwork" / "fluffystuff-cc0"
DEFAULT_CACHE = ROOT / "work_data" / "detector_backs"
DEFAULT_FACE_ARTWORK = ROOT.parent / "shared" / "artwork"
FACE_CACHE = ROOT / "work_data" / "classifier" / "faces"  # shared with the classifier's training
INPUT_SIZE = 384
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
ATTRIBUTION = "Chinese Mahjong Detection v4, riichimahjongdetection, Roboflow Universe, CC BY 4.0"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m fanscan.training.train_detector", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="YOLO-layout train split (images/, labels/)")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "detector", help="run folder: log, checkpoints")
    p.add_argument("--steps", type=int, default=2400)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--size", type=int, default=256, help="training crop size")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=20261129)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--val-fraction", type=float, default=DEV_FRACTION,
                   help="share of photo sessions held out (the development split, fanscan.vision.splits)")
    p.add_argument("--checkpoint-every", type=int, default=50)
    p.add_argument("--init-from", type=Path, default=None,
                   help="start from these weights, a checkpoint or an exported .onnx (a fine-tuning run: fresh "
                        "optimizer and schedule)")
    p.add_argument("--warmup", type=int, default=50, help="steps of linear learning-rate warm-up")
    p.add_argument("--freeze-bn", action="store_true",
                   help="keep batch norms fixed (fine-tuning from ONNX weights, whose batch norms are folded)")
    p.add_argument("--relay-p", type=float, default=0.0,
                   help="share of samples whose tile row is laid out again with backs and a sideways tile")
    p.add_argument("--paper-p", type=float, default=0.0,
                   help="share of samples that are 1-4 tiles of a photo laid on a sheet, large in the frame "
                        "(detector_data.paper_close_up)")
    p.add_argument("--paper-run-share", type=float, nargs=2, default=list(dd.PAPER_RUN_SHARE),
                   metavar=("LOW", "HIGH"),
                   help="the sheet's run of tiles has its long side this share of the crop, drawn evenly between "
                        "(default %(default)s; the close-up detector of session 13: 0.1 0.95, so that a run of "
                        "small tiles on a sheet, as the scale pass's shrunk view shows it, is seen as tiles)")
    p.add_argument("--filled-p", type=float, default=0.0,
                   help="share of the sheets that are one tile filling its photo, as it is or as the scale pass "
                        "shrinks it (detector_data.filled_close_up; a crop of one tile)")
    p.add_argument("--large-crop-p", type=float, default=0.0,
                   help="share of the samples (not sheets) cut around one tile of a photo with published labels, "
                        "its long side 12-85 %% of the crop, its neighbours as the photo shows them "
                        "(detector_data.LARGE_CROP_SHARE)")
    p.add_argument("--restyle-p", type=float, default=0.0,
                   help="share of the photos (not sheets) whose labelled tiles are repainted with one style of "
                        "--face-artwork (detector_data.restyle_tiles: another maker's faces on the photo's tiles)")
    p.add_argument("--hue-turn-p", type=float, default=0.0,
                   help="share of the samples whose hues are turned by any amount (detector_data.turn_hue: a "
                        "table of another colour than the photos' green felt)")
    p.add_argument("--face-artwork", type=Path, default=DEFAULT_FACE_ARTWORK,
                   help="tile face artwork for the rendered sheets of --paper-p (the classifier's, ../shared/artwork)")
    p.add_argument("--distil", type=float, default=0.0,
                   help="weight of a pull towards the --init-from net's heatmap on the ordinary samples (not the "
                        "sheets, repainted tiles or turned hues), so that a fine-tune learns the new samples "
                        "without moving on the old ones")
    p.add_argument("--rotate-p", type=float, default=0.5, help="share of samples turned by a small angle (<= 12 deg)")
    p.add_argument("--wide-rotate-p", type=float, default=0.0,
                   help="share of samples turned by any angle up to 45 degrees (a slanted row)")
    p.add_argument("--stretch-p", type=float, default=0.0,
                   help="share of samples whose photo is squeezed non-uniformly first (up to 8x in aspect)")
    p.add_argument("--loose-labels", action="store_true",
                   help="train on the upstream loose boxes as they are (no label repair; the model before 2026-11-29)")
    p.add_argument("--stop-after", type=int, default=None,
                   help="checkpoint and exit after this step (the schedule still spans --steps); rerun to go on")
    p.add_argument("--eval-every", type=int, default=300)
    p.add_argument("--artwork", type=Path, default=DEFAULT_ARTWORK, help="folder with */Back.svg tile backs")
    p.add_argument("--export", type=Path, default=None, help="write the trained model here as ONNX")
    p.add_argument("--smoke", action="store_true", help="a few tiny steps, for CI")
    p.add_argument("--meta-from", type=Path, default=None,
                   help="with --export: keep this exported model's metadata (decoding, role), bar its training's "
                        "(the model fine-tuned from it); --meta entries override it")
    p.add_argument("--export-from", type=Path, default=None,
                   help="skip training: export this checkpoint (last.ckpt, final.pt, stepN.ckpt) to --export")
    p.add_argument("--score-threshold", type=float, default=0.3, help="written into the exported model")
    p.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE",
                   help="more metadata for the exported model, e.g. box_scale_x=0.9 or partition_overlaps=false "
                        "(as benchmarks/calibrate_detector_boxes.py chose them on the held-out photos)")
    p.add_argument("--write-val", type=Path, default=None,
                   help="skip training: write the held-out validation photos, repaired as training sees them, "
                        "into this YOLO-layout folder")
    return p.parse_args(argv)


def log(out: Path, message: str) -> None:
    line = f"{time.strftime('%H:%M:%S')} {message}"
    print(line, flush=True)
    with open(out / "train.log", "a", encoding="utf-8") as f:
        f.write(line + "\n")


def is_held_out(image: dd.TrainImage, fraction: float) -> bool:
    """In the development split (whole photo sessions; the same photos on every machine)."""
    return split_of(image.name, fraction) == DEV


def back_masks(artwork: Path, cache: Path, out: Path) -> list[np.ndarray]:
    """The rendered back shapes; the plain rounded-rectangle stand-in when rsvg-convert or the artwork is missing."""
    svgs = sorted(artwork.glob("*/Back.svg"))
    if svgs:
        try:
            return dd.rasterise_backs(svgs, cache)
        except (OSError, RuntimeError, Exception) as error:  # no rsvg-convert: the stand-in shape still teaches
            log(out, f"tile-back artwork not rendered ({error}); using a rounded rectangle")
    return [dd.rounded_rect_mask()]


def sheet_faces(args: argparse.Namespace, out: Path) -> list[Face]:
    """The faces rendered tiles of the sheets wear (`dd.rendered_close_up`), and repainted tiles
    (`dd.restyle_tiles`); none without --paper-p or --restyle-p."""
    if not (args.paper_p or args.restyle_p):
        return []
    if not args.face_artwork.is_dir():
        # said, not silent: a run that asks for repainted tiles gets none, and its sheets only photos' tiles
        idle = [f"--restyle-p {args.restyle_p}: no tile is repainted"] if args.restyle_p else []
        idle += [f"--paper-p {args.paper_p}: sheets carry no rendered tiles"] if args.paper_p else []
        log(out, f"no face artwork at {args.face_artwork} (--face-artwork); " + "; ".join(idle))
        return []
    from fanscan.training.faces import build_faces

    by_tile, _ = build_faces(args.face_artwork, FACE_CACHE)
    faces = [face for tile in sorted(by_tile) for face in by_tile[tile]]
    log(out, f"{len(faces)} faces for rendered sheets and repainted tiles, from {args.face_artwork}")
    return faces


def initial_weights(path: Path) -> dict:
    """The state dict of `--init-from`: a checkpoint's weights, or an exported model's read back from its ONNX
    (`onnx_weights.load_onnx_weights`: batch norms folded, so fine-tune with them frozen)."""
    import torch

    if path.suffix == ".onnx":
        from fanscan.training.detector_net import DetectorNet
        from fanscan.training.onnx_weights import load_onnx_weights

        return load_onnx_weights(DetectorNet(), path, prefix="net.").state_dict()
    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def make_batch(images: list[dd.TrainImage], masks: list[np.ndarray], args: argparse.Namespace, step: int,
               faces: list[Face] | None = None, cut_from: list[dd.TrainImage] | None = None):
    """One batch: inputs, the five targets of `dd.encode_targets`, and which samples show what the photos do not:
    sheets (`--paper-p`, drawn from `cut_from`, the `dd.cuttable` photos: none, no sheets), repainted tiles or
    turned hues (`--restyle-p`, `--hue-turn-p`). `--distil` pulls only the others."""
    import torch

    rng = np.random.default_rng([args.seed, step])
    cut_from = cut_from or []
    fields: list[list[np.ndarray]] = [[] for _ in range(7)]
    for _ in range(args.batch):
        paper = bool(cut_from) and rng.random() < args.paper_p
        large = bool(cut_from) and not paper and rng.random() < args.large_crop_p
        pool = cut_from if paper or large else images
        sample = dd.random_sample(pool[int(rng.integers(len(pool)))], args.size, rng, masks,
                                  relay_p=args.relay_p, rotate_p=args.rotate_p,
                                  stretch_p=args.stretch_p, wide_rotate_p=args.wide_rotate_p,
                                  paper_p=1.0 if paper else 0.0, paper_faces=faces,
                                  paper_run_share=tuple(args.paper_run_share), filled_p=args.filled_p,
                                  large_crop=large, restyle_p=args.restyle_p, hue_turn_p=args.hue_turn_p)
        rgb = sample.image[:, :, ::-1].astype(np.float32) / 255.0
        fields[0].append(((rgb - np.array(MEAN, np.float32)) / np.array(STD, np.float32)).transpose(2, 0, 1))
        for i, value in enumerate(dd.encode_targets(sample, args.size), start=1):
            fields[i].append(value)
        fields[6].append(np.array([paper or sample.restyled], np.float32))
    return [torch.from_numpy(np.ascontiguousarray(np.stack(f))) for f in fields]


def _outside_ignored(boxes: np.ndarray, ignore: np.ndarray) -> np.ndarray:
    """Boxes whose centre lies in no ignored region (a detection of an untrusted label is neither right nor wrong)."""
    if len(ignore) == 0 or len(boxes) == 0:
        return boxes
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    inside = ((cx[:, None] >= ignore[None, :, 0]) & (cx[:, None] <= ignore[None, :, 2])
              & (cy[:, None] >= ignore[None, :, 1]) & (cy[:, None] <= ignore[None, :, 3])).any(axis=1)
    return boxes[~inside]


def evaluate_torch(model, images: list[dd.TrainImage], threshold: float = 0.3) -> dict:
    """Recall / precision at IoU 0.5 of the torch model on held-out photos, through the same decode as inference:
    the raw boxes, and after `partition_overlaps` (the split of overlapping boxes the loose-label model needed)."""
    import torch
    from fanscan.vision.detect import DetectorInfo, decode, input_blob, nms, partition_overlaps
    from fanscan.vision.detection_metrics import match_counts

    info = DetectorInfo(INPUT_SIZE, MEAN, STD, "RGB", 4, 32, threshold, 0.5)
    model.eval()
    raw, split = np.zeros(3), np.zeros(3)
    with torch.no_grad():
        for item in images:
            blob, scale = input_blob(item.image, INPUT_SIZE, info)
            heat, dist = model(torch.from_numpy(blob))
            boxes, scores, centres = decode(torch.sigmoid(heat)[0, 0].numpy(), dist[0].numpy(), 4, threshold)
            keep = nms(boxes / scale, scores, 0.5)
            found = (boxes / scale)[keep]
            raw += match_counts(_outside_ignored(found, item.ignore), item.boxes)
            parted = partition_overlaps(found, (centres / scale)[keep])
            split += match_counts(_outside_ignored(parted, item.ignore), item.boxes)
    model.train()
    result: dict = {"labelled": int(raw[2])}
    for name, (tp, n_pred, n_true) in (("raw", raw), ("partitioned", split)):
        result[name] = {"recall": tp / max(n_true, 1), "precision": tp / max(n_pred, 1)}
    return result


TEACHER_CENTRE = 0.3  # the export's score threshold: cells the teacher would call a tile's centre


def teacher_boxes(distances, stride: int):
    """(N, 4, H, W) left/top/right/bottom distances -> the boxes (x0, y0, x1, y1) they give at each cell."""
    import torch
    from fanscan.training.detector_net import grid_centres

    cy, cx = grid_centres(distances.shape[2], distances.shape[3], stride, distances.device)
    return torch.stack([cx - distances[:, 0], cy - distances[:, 1], cx + distances[:, 2], cy + distances[:, 3]], 1)


def train(args: argparse.Namespace) -> Path:
    import torch
    from fanscan.training.detector_net import DetectorNet, count_parameters, focal_loss, giou_loss

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    all_images = dd.load_split(args.data, repair_labels=not args.loose_labels)
    if not all_images:
        raise SystemExit(f"{args.data}: no labelled photos")
    images = [i for i in all_images if not is_held_out(i, args.val_fraction)]
    val_images = [i for i in all_images if is_held_out(i, args.val_fraction)]
    val_groups = {session_of(i.name) for i in val_images}
    masks = back_masks(args.artwork, DEFAULT_CACHE, args.out)
    faces = sheet_faces(args, args.out)
    cut_from = [i for i in images if dd.cuttable(i)] if args.paper_p or args.large_crop_p else []
    model = DetectorNet()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    checkpoint = args.out / "last.ckpt"
    start = 0
    elapsed_before = 0.0
    if checkpoint.exists():
        state = torch.load(checkpoint, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start, elapsed_before = state["step"], state.get("elapsed", 0.0)
        log(args.out, f"resumed from {checkpoint} at step {start}")
    else:
        if args.init_from:
            model.load_state_dict(initial_weights(args.init_from))
            log(args.out, f"weights from {args.init_from}")
        log(args.out, f"start: {len(images)} photos ({len(val_images)} held out), {count_parameters(model)} params, "
                      f"args {json.dumps({k: str(v) for k, v in vars(args).items()})}")
    teacher = None
    if args.distil:
        if not args.init_from:
            raise SystemExit("--distil needs --init-from (the net to stay close to)")
        teacher = DetectorNet()
        teacher.load_state_dict(initial_weights(args.init_from))
        teacher.eval()
    t0 = time.time()
    for step in range(start, args.steps):
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        warm = min(1.0, (step + 1) / max(args.warmup, 1))
        for group in optimizer.param_groups:
            group["lr"] = lr * warm
        if args.freeze_bn:
            from fanscan.training.onnx_weights import freeze_batch_norms

            freeze_batch_norms(model)  # again each step: evaluation puts the model back in train mode
        x, heat_t, weight, reg_box, reg_w, num_pos, paper = make_batch(images, masks, args, step, faces, cut_from)
        heat, dist = model(x)
        loss_heat = focal_loss(heat, heat_t, weight, num_pos)
        loss_box = giou_loss(dist, reg_box, reg_w, dd.STRIDE)
        loss = loss_heat + 5.0 * loss_box
        if teacher is not None:
            with torch.no_grad():
                taught_logits, taught_dist = teacher(x)
                taught = torch.sigmoid(taught_logits)
            ordinary = (1.0 - paper).view(-1, 1, 1, 1)
            # Squared difference of the centre probabilities, per tile centre of the ordinary samples (the focal
            # loss's own normalisation, so the weight reads on its scale) ...
            pull = ((torch.sigmoid(heat) - taught) ** 2 * ordinary).sum()
            pull = pull / (num_pos.view(-1) * ordinary.view(-1)).sum().clamp(min=1.0)
            # ... and the teacher's boxes where it sees a tile's centre: the crops the classifier reads stay cut
            # where they were.
            pull = pull + giou_loss(dist, teacher_boxes(taught_dist, dd.STRIDE),
                                    taught * (taught > TEACHER_CENTRE) * ordinary, dd.STRIDE)
            loss = loss + args.distil * pull
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        optimizer.step()
        done = step + 1
        elapsed = elapsed_before + time.time() - t0
        if done % 10 == 0 or done == args.steps:
            pulled = f"pull {pull.item():.4f} " if teacher is not None else ""
            log(args.out, f"step {done}/{args.steps} loss {loss.item():.4f} heat {loss_heat.item():.4f} "
                          f"box {loss_box.item():.4f} {pulled}lr {lr * warm:.2e} elapsed {elapsed / 60:.1f} min")
        if done % args.checkpoint_every == 0 or done == args.steps:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": done,
                     "elapsed": elapsed}
            torch.save(state, checkpoint.with_suffix(".tmp"))
            os.replace(checkpoint.with_suffix(".tmp"), checkpoint)
        if args.stop_after is not None and done >= args.stop_after:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": done,
                     "elapsed": elapsed}
            torch.save(state, checkpoint)
            log(args.out, f"stopped after step {done} (--stop-after)")
            return checkpoint
        if val_images and (done % args.eval_every == 0 or done == args.steps):
            metrics = evaluate_torch(model, val_images)
            raw = metrics["raw"]
            log(args.out, f"val step {done}: raw recall {raw['recall']:.4f} precision {raw['precision']:.4f}"
                          f"; partitioned {metrics['partitioned']['recall']:.4f} "
                          f"{metrics['partitioned']['precision']:.4f} ({metrics['labelled']} boxes)")
            if done % 600 == 0:
                torch.save({"model": model.state_dict(), "step": done}, args.out / f"step{done}.ckpt")
    final = args.out / "final.pt"
    torch.save({"model": model.state_dict(), "step": args.steps, "elapsed": elapsed_before + time.time() - t0,
                "val_groups": sorted(val_groups)}, final)
    log(args.out, f"done: {final}")
    return final


# Metadata the export writes itself or that describes the shipped training, not the model's behaviour.
OWN_METADATA = ("training_steps", "training_command", "training_data", "licence_note")


def inherited_metadata(base_model: Path) -> dict[str, str]:
    """The metadata of an exported model that a model fine-tuned from it keeps: its decoding (score threshold,
    box-size calibration, ...) and role, not what describes its own training (`OWN_METADATA`)."""
    import onnx

    return {p.key: p.value for p in onnx.load(str(base_model)).metadata_props if p.key not in OWN_METADATA}


def export_onnx(weights: Path, onnx_path: Path, extra_meta: dict[str, str] | None = None) -> Path:
    """Single-file ONNX: input `image` (1, 3, H, W) normalised RGB, H and W multiples of 32 (384 on the long side);
    outputs `heatmap` (1, 1, H/4, W/4) tile-centre probability and `ltrb` (1, 4, H/4, W/4) distances in input pixels."""
    import onnx
    import torch
    from fanscan.training.detector_net import DetectorNet

    class Exported(torch.nn.Module):
        def __init__(self, net: torch.nn.Module) -> None:
            super().__init__()
            self.net = net

        def forward(self, image: torch.Tensor):
            heat, distances = self.net(image)
            return torch.sigmoid(heat), distances

    net = DetectorNet()
    state = torch.load(weights, map_location="cpu", weights_only=False)
    net.load_state_dict(state["model"])
    model = Exported(net).eval()
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE)
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated upstream but is the one that writes a single self-contained file.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model, (dummy,), str(onnx_path), dynamo=False, opset_version=17,
            input_names=["image"], output_names=["heatmap", "ltrb"],
            dynamic_axes={"image": {2: "height", 3: "width"}, "heatmap": {2: "grid_h", 3: "grid_w"},
                          "ltrb": {2: "grid_h", 3: "grid_w"}},
        )
    proto = onnx.load(str(onnx_path))
    meta = {
        "model": "fanscan tile detector (single-class CenterNet-style proposal net)",
        "classes": json.dumps(["tile"]),
        "input_size": str(INPUT_SIZE),
        "input": "image: float32 (1, 3, H, W), RGB, (pixel / 255 - mean) / std; letterboxed so the long side is "
                 "input_size, padded right/bottom (value 114) to a multiple of pad_multiple",
        "normalisation_mean": json.dumps(list(MEAN)),
        "normalisation_std": json.dumps(list(STD)),
        "channel_order": "RGB",
        "pad_multiple": "32",
        "strides": json.dumps([4, 8, 16, 32]),
        "output_stride": "4",
        "outputs": "heatmap: (1, 1, H/4, W/4) probability that a tile centre lies in the cell; ltrb: (1, 4, H/4, W/4) "
                   "distances in input pixels from the cell centre ((i + 0.5) * 4) to the tile box's left, top, right, "
                   "bottom edges. Decode: 3x3 max-pool peaks above score_threshold, box per peak, NMS at nms_iou.",
        "score_threshold": "0.3",
        "nms_iou": "0.5",
        "training_steps": str(state.get("step", "")),
        "training_data": ATTRIBUTION + "; tile backs: FluffyStuff riichi-mahjong-tiles (CC0)",
        "licence_note": "trained on CC BY 4.0 data: attribute " + ATTRIBUTION,
    }
    meta.update(extra_meta or {})
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(onnx_path))
    return onnx_path


def write_val_split(args: argparse.Namespace) -> None:
    """The held-out photos as a YOLO-layout folder for benchmarks/eval_detection.py, as training sees them: turned
    back and with repaired boxes (unless --loose-labels). Tiles whose box could not be trusted are painted over
    with flat grey: unlabelled, they would count against every detector that finds them. Every label is class 0
    (the repair keeps boxes, not classes): the folder measures detection, not what the tiles are."""
    images = dd.load_split(args.data, repair_labels=not args.loose_labels)

    for sub in ("images", "labels"):
        (args.write_val / sub).mkdir(parents=True, exist_ok=True)
    data_yaml = args.data / "data.yaml" if (args.data / "data.yaml").exists() else args.data.parent / "data.yaml"
    if data_yaml.exists():
        (args.write_val / "data.yaml").write_text(data_yaml.read_text(encoding="utf-8"), encoding="utf-8")
    for item in images:
        if not is_held_out(item, args.val_fraction):
            continue
        h, w = item.image.shape[:2]
        image = item.image.copy()
        for x0, y0, x1, y1 in np.round(item.ignore).astype(int):
            image[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = 114
        cv2.imwrite(str(args.write_val / "images" / (Path(item.name).stem + ".png")), image)
        lines = []
        for x0, y0, x1, y1 in np.clip(item.boxes, 0, [w, h, w, h]):
            lines.append(f"0 {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
        (args.write_val / "labels" / (Path(item.name).stem + ".txt")).write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.write_val:
        write_val_split(args)
        return 0
    extra = {"score_threshold": str(args.score_threshold)}
    if args.meta_from:
        extra.update(inherited_metadata(args.meta_from))
    for item in args.meta:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--meta {item!r}: expected KEY=VALUE")
        extra[key.strip()] = value.strip()
    if args.export_from:
        if not args.export:
            raise SystemExit("--export-from needs --export PATH")
        export_onnx(args.export_from, args.export, extra)
        return 0
    if args.smoke:
        args.steps, args.batch, args.size = min(args.steps, 3), min(args.batch, 4), 128
        args.checkpoint_every, args.eval_every = 2, 3
    final = train(args)
    if args.export:
        export_onnx(final, args.export, extra)
        log(args.out, f"exported {args.export}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
