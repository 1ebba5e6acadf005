"""Train the tile classifier from scratch on CPU: one command, fixed seed, progress, checkpoints, resume, ONNX export.

    python -m fanscan.training.train_classifier            # the shipped model (see models/tile_classifier.md)
    python -m fanscan.training.train_classifier --smoke    # a few seconds on the bundled mini split (CI)

Data (prepared once into --cache, then reused): patches of every labelled box of the real train split, `none`
patches from the same photos, and rendered tiles / backs / `none` (see `renders`). Validation: the real patches of
the development split (photo sessions held out by `fanscan.vision.splits`; never the test split). Re-running the
command resumes from the last checkpoint in --run-dir; --fresh starts over.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from fanscan.training.augment import patch_to_input
from fanscan.training.classes import CLASSES
from fanscan.training.classifier_net import ClassifierNet
from fanscan.training.export import MEAN, STD, export_onnx
from fanscan.training.faces import CONFUSABLE, build_faces
from fanscan.training.real_data import PatchSet, extract_split
from fanscan.training.renders import RENDER_VERSION, Renderer, background_photos, render_set
from fanscan.vision.crops import CropSpec
from fanscan.vision.splits import DEV_FRACTION, is_dev_session, session_of

REAL_VERSION = 3  # part of the cache key: bump when real-crop extraction changes

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
INPUT_SPEC = CropSpec(width=64, height=80, pad=0.08)


@dataclass
class Data:
    train: PatchSet
    val: PatchSet
    weights: np.ndarray  # sampling probability per train patch


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m fanscan.training.train_classifier", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=SHARED / "data" / "chinese-mahjong-v4" / "train",
                   help="YOLO-layout split to learn from (default: ../shared/data/chinese-mahjong-v4/train)")
    p.add_argument("--artwork", type=Path, default=SHARED / "artwork", help="tile artwork folder (../shared/artwork)")
    p.add_argument("--cache", type=Path, default=REPO / "work_data" / "classifier", help="prepared patches")
    p.add_argument("--run-dir", type=Path, default=None, help="checkpoints and report (runs/classifier)")
    p.add_argument("--out", type=Path, default=None, help="ONNX model to write (models/tile_classifier.onnx)")
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (the machine is shared)")
    p.add_argument("--val-fraction", type=float, default=DEV_FRACTION,
                   help="share of photo sessions held out (the development split, fanscan.vision.splits)")
    p.add_argument("--renders-per-tile", type=int, default=160, help="rendered patches per tile (flowers x2)")
    p.add_argument("--render-backs", type=int, default=1500)
    p.add_argument("--render-none", type=int, default=1500)
    p.add_argument("--quarter-turn", type=float, default=0.0,
                   help="share of crops of any shape turned a quarter (faces in 4 orientations; candidate recipe)")
    p.add_argument("--squeeze-views", type=float, default=0.0,
                   help="share of crops squeezed 3-8x along one axis and stretched back (tiles of squeezed photos)")
    p.add_argument("--glyph-variants", action="store_true",
                   help="candidate recipe: more CJK fonts and random glyph layouts for characters, winds, dragons, "
                        "flowers and seasons, drawn dots / bamboo layouts, 1.5x renders of the confusable tiles")
    p.add_argument("--loose-weight", type=float, default=0.3, help="sampling weight of loose boxes (rotated photos)")
    p.add_argument("--render-weight", type=float, default=1.0,
                   help="sampling weight of rendered patches against real crops (1: as the shipped recipe)")
    p.add_argument("--limit-images", type=int, default=None, help="use only the first N photos (tests)")
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--checkpoint-every", type=int, default=250)
    p.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    p.add_argument("--export-only", action="store_true", help="export --out from the last checkpoint and stop")
    p.add_argument("--smoke", action="store_true", help="tiny run on tests/data/mini_yolo for CI (seconds)")
    args = p.parse_args(argv)
    if not args.render_weight >= 0:  # NaN fails too
        p.error(f"--render-weight must be 0 or more, not {args.render_weight}")
    if args.smoke:
        args.data = REPO / "tests" / "data" / "mini_yolo" / "train"
        args.steps, args.batch, args.eval_every, args.checkpoint_every = 12, 16, 6, 6
        args.renders_per_tile, args.render_backs, args.render_none = 1, 8, 8
    name = "classifier-smoke" if args.smoke else "classifier"
    args.run_dir = args.run_dir or REPO / "runs" / name
    # A smoke run never overwrites the shipped model.
    args.out = args.out or (args.run_dir / "smoke.onnx" if args.smoke else REPO / "models" / "tile_classifier.onnx")
    return args


def prepare(args: argparse.Namespace) -> Data:
    """Real and rendered patches (cached), the source-photo validation split and class-balancing weights."""
    where = args.data.resolve().as_posix().replace("/", "_")[-60:]
    key = f"v{REAL_VERSION}-seed{args.seed}-lim{args.limit_images}-{where}"
    real_path = args.cache / f"real-{key}.npz"
    if real_path.exists():
        real = PatchSet.load(real_path)
    else:
        real = extract_split(args.data, seed=args.seed, limit_images=args.limit_images, progress=log)
        real.save(real_path)
    render_key = f"{key}-v{RENDER_VERSION}-r{args.renders_per_tile}-b{args.render_backs}-n{args.render_none}"
    render_key += "-glyphs" if args.glyph_variants else ""
    render_path = args.cache / f"renders-{render_key}.npz"
    if render_path.exists():
        renders = PatchSet.load(render_path)
    else:
        faces, backs = build_faces(args.artwork, args.cache / "faces", args.glyph_variants)
        log(f"faces: {sum(len(v) for v in faces.values())} for {len(faces)} tiles, {len(backs)} back designs")
        photos = background_photos(args.data, 60, args.seed)
        renderer = Renderer(faces, backs, photos, args.seed + 1)
        renders = render_set(renderer, args.renders_per_tile, args.render_backs, args.render_none, progress=log,
                             boost=CONFUSABLE if args.glyph_variants else ())
        renders.save(render_path)
    # The development split (whole photo sessions, shared with the detector): never trained on.
    is_val = np.array([is_dev_session(session_of(s), args.val_fraction) for s in real.sources], bool)
    val_mask = is_val[real.groups] if len(real) else np.zeros(0, bool)

    train = PatchSet.concat(real.subset(~val_mask), renders)
    val = real.subset(val_mask)
    weights = sampling_weights(train, args.loose_weight, args.render_weight)
    log(f"data: {len(train)} train patches ({len(renders)} rendered, {int(train.loose.sum())} loose), "
        f"{len(val)} validation patches ({int(val.loose.sum())} loose) "
        f"from {int(is_val.sum())} of {len(real.sources)} source photos")
    return Data(train, val, weights)


def sampling_weights(train: PatchSet, loose_weight: float, render_weight: float = 1.0) -> np.ndarray:
    """Probability of drawing each training patch."""
    counts = np.bincount(train.labels, minlength=len(CLASSES)).astype(float)
    # Square-root balancing: rare classes (flowers, seasons) come up more often without repeating them endlessly.
    weights = 1.0 / np.sqrt(np.maximum(counts[train.labels], 1.0))
    # Loose boxes of rotated photos: some rotation robustness, but mostly the tight crops the test and detector give.
    weights = np.where(train.loose, weights * loose_weight, weights)
    # Rendered patches (source group -1) against real crops: the glyph variants' many renders won the rendered
    # held-out fonts while real strangers' tiles read worse (models/tile_classifier.md, session 15).
    weights = np.where(train.groups < 0, weights * render_weight, weights)
    return weights / weights.sum()


def train_step(model: torch.nn.Module, optimiser, scheduler, data: Data, step: int, args) -> float:
    """One optimiser step on the deterministic batch of `step` (label smoothing 0.05); the loss."""
    x, y = make_batch(data, step, args)
    loss = F.cross_entropy(model(x), y, label_smoothing=0.05)
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()
    scheduler.step()
    return loss.item()


def to_tensor(images: np.ndarray) -> torch.Tensor:
    """uint8 (N, H, W, 3) BGR -> normalised float (N, 3, H, W), the same as `vision.classify` does."""
    x = torch.from_numpy(images).permute(0, 3, 1, 2).float().div_(255.0)
    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - mean) / std


def evaluate(model: torch.nn.Module, val: PatchSet) -> dict:
    """Top-1 on the held-out real patches, overall and per class."""
    if not len(val):
        return {"top1": None, "n": 0, "top1_tight": None, "n_tight": 0, "per_class": {}}
    model.eval()
    preds = []
    with torch.no_grad():
        for start in range(0, len(val), 256):
            batch = np.stack([patch_to_input(p, INPUT_SPEC) for p in val.patches[start:start + 256]])
            preds.append(model(to_tensor(batch)).argmax(1).numpy())
    model.train()
    pred = np.concatenate(preds)
    correct = pred == val.labels
    tight = ~val.loose
    per_class = {}
    for index, name in enumerate(CLASSES):
        mask = val.labels == index
        if mask.any():
            per_class[name] = {"n": int(mask.sum()), "top1": float(correct[mask].mean())}
    return {"top1": float(correct.mean()), "n": len(val),
            "top1_tight": float(correct[tight].mean()) if tight.any() else None, "n_tight": int(tight.sum()),
            "per_class": per_class}


def make_batch(data: Data, step: int, args: argparse.Namespace) -> tuple[torch.Tensor, torch.Tensor]:
    """A deterministic batch for `step` (its own RNG: resuming gives the same batches)."""
    rng = np.random.default_rng([args.seed, step])
    picks = rng.choice(len(data.train), size=args.batch, p=data.weights)
    images = np.stack([patch_to_input(data.train.patches[i], INPUT_SPEC, rng, bool(data.train.square[i]),
                                      args.quarter_turn, args.squeeze_views) for i in picks])
    return to_tensor(images), torch.from_numpy(data.train.labels[picks])


def build(args: argparse.Namespace):
    torch.manual_seed(args.seed)
    model = ClassifierNet(len(CLASSES))
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.steps,
                                                    pct_start=0.08, div_factor=20, final_div_factor=200)
    return model, optimiser, scheduler


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    args.run_dir.mkdir(parents=True, exist_ok=True)
    checkpoint_path = args.run_dir / "checkpoint.pt"
    model, optimiser, scheduler = build(args)
    step = 0
    if checkpoint_path.exists() and not args.fresh:
        state = torch.load(checkpoint_path, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        scheduler.load_state_dict(state["scheduler"])
        step = int(state["step"])
        log(f"resumed from {checkpoint_path} at step {step}")
    command = "python -m fanscan.training.train_classifier " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.export_only:
        if step == 0:
            raise SystemExit(f"no checkpoint in {args.run_dir}: nothing to export")
        export_onnx(model, args.out, CLASSES, INPUT_SPEC, {"training_steps": str(step), "training_command": command})
        log(f"exported step {step} to {args.out}")
        return 0
    data = prepare(args)
    started, seen_at_start = time.time(), step
    losses: list[float] = []
    history = []
    model.train()
    while step < args.steps:
        torch.manual_seed(args.seed * 1_000_003 + step)
        loss = train_step(model, optimiser, scheduler, data, step, args)
        step += 1
        losses.append(loss)
        if step % 50 == 0 or step == args.steps:
            rate = (step - seen_at_start) / max(time.time() - started, 1e-6)
            eta = (args.steps - step) / max(rate, 1e-6)
            log(f"step {step}/{args.steps} loss {np.mean(losses[-50:]):.4f} lr {scheduler.get_last_lr()[0]:.2e} "
                f"{rate * args.batch:.0f} img/s eta {eta / 60:.1f} min")
        if step % args.eval_every == 0 or step == args.steps:
            result = evaluate(model, data.val)
            history.append({"step": step, "val_top1": result["top1"], "val_top1_tight": result["top1_tight"]})
            log(f"validation (held-out source photos) at step {step}: top-1 {result['top1']} on {result['n']}, "
                f"{result['top1_tight']} on the {result['n_tight']} tight boxes")
        if step % args.checkpoint_every == 0 or step == args.steps:
            tmp = checkpoint_path.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                        "scheduler": scheduler.state_dict(), "step": step, "args": vars(args)}, tmp)
            tmp.replace(checkpoint_path)
    final = evaluate(model, data.val)
    wall = time.time() - started
    report = {"steps": args.steps, "batch": args.batch, "seed": args.seed, "wall_seconds_this_session": round(wall),
              "train_patches": len(data.train), "validation": final, "history": history, "command": command}
    (args.run_dir / "report.json").write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    export_onnx(model, args.out, CLASSES, INPUT_SPEC, {
        "training_steps": str(step), "training_command": command,
        "validation_top1": f"{final['top1']}", "seed": str(args.seed),
    })
    log(f"done: validation top-1 {final['top1']}; model written to {args.out}; report in {args.run_dir}")
    return 0
