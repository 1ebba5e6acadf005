"""Fine-tune the shipped tile classifier on a labelled YOLO dataset (`fanscan train classifier`, torch on CPU).

The shipped weights come out of the ONNX file itself (`onnx_weights`, exact). Batch norms stay frozen while
fine-tuning (a few dozen photos give too small batches to re-estimate them), and so do the stem and the early
blocks (`freeze_early_layers`).

The dataset's photos are grouped by photo session (`fanscan.vision.splits.session_of`: augmented copies of one
photo, and the photos of one session, share it) and a share of the sessions, chosen by name hash, is held out; the
card reports the shipped and the fine-tuned model on that held-out part, crop for crop.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import torch
from fanscan.scoring.errors import FanscanError
from fanscan.training.classes import CLASSES
from fanscan.training.classifier_net import ClassifierNet
from fanscan.training.classifier_train import INPUT_SPEC, Data, evaluate, parse_args, sampling_weights, train_step
from fanscan.training.export import export_onnx
from fanscan.training.onnx_weights import freeze_batch_norms, load_onnx_weights
from fanscan.training.real_data import PatchSet, extract_split
from fanscan.vision.splits import session_of


def held_out_sources(sources: list[str], fraction: float) -> set[str]:
    """The names (sessions) with the smallest hashes, `fraction` of them and at least one (none with one name)."""
    if len(sources) < 2:
        return set()
    ranked = sorted(sources, key=lambda s: hashlib.sha1(s.encode("utf-8")).digest())
    return set(ranked[:max(1, math.ceil(fraction * len(sources)))])


def load_shipped(model_path: Path) -> ClassifierNet:
    """A `ClassifierNet` with the weights of an exported classifier ONNX (see `onnx_weights`)."""
    proto = onnx.load(str(model_path))
    classes = json.loads({p.key: p.value for p in proto.metadata_props}.get("classes", "[]"))
    if classes != CLASSES:
        raise FanscanError(f"{model_path}: its classes differ from this fanscan's ({len(classes)} vs {len(CLASSES)})")
    return load_onnx_weights(ClassifierNet(len(CLASSES)), model_path)


TRAINED_BLOCKS = 3  # the last residual blocks that learn (with the head); the earlier ones keep the shipped weights


def freeze_early_layers(model: ClassifierNet) -> None:
    """Batch norms frozen everywhere; stem and all but the last `TRAINED_BLOCKS` blocks frozen (a few dozen photos
    would otherwise wear away what the shipped model learnt from thousands, and its renders)."""
    freeze_batch_norms(model)
    blocks = list(model.stages)
    for module in [model.stem, *blocks[:len(blocks) - TRAINED_BLOCKS]]:
        for parameter in module.parameters():
            parameter.requires_grad_(False)


def finetune(data_dir: Path, out_dir: Path, steps: int, base_model: Path, held_out_fraction: float = 0.25,
             batch: int = 32, lr: float = 1e-4, seed: int = 0, log: Callable[[str], None] = print) -> dict:
    """Fine-tune, export `out_dir/tile_classifier.onnx`, write the card (`.md` and `.json`); returns the card."""
    torch.manual_seed(seed)
    try:
        patches = extract_split(data_dir, seed=seed)
    except FanscanError as error:
        raise FanscanError(f"{data_dir}: {error}") if str(data_dir) not in str(error) else error from None
    if not len(patches):
        raise FanscanError(f"{data_dir}: no labelled tiles to train on")
    sessions = [session_of(s) for s in patches.sources]
    held_sessions = held_out_sources(sorted(set(sessions)), held_out_fraction)
    held = {s for s, session in zip(patches.sources, sessions, strict=True) if session in held_sessions}
    is_held = np.array([s in held for s in patches.sources], bool)[patches.groups]
    train, val = patches.subset(~is_held), patches.subset(is_held)
    if not len(train):
        raise FanscanError(f"{data_dir}: every labelled tile is in the held-out part; add photos")
    data = Data(train, val if len(val) else PatchSet.empty(), sampling_weights(train, loose_weight=0.3))
    log(f"{len(train)} training crops from {len(patches.sources) - len(held)} sources, {len(val)} held out "
        f"from {len(held)} sources ({len(held_sessions)} sessions)")
    model = load_shipped(base_model)
    before = evaluate(model, data.val)
    model.train()
    freeze_early_layers(model)
    optimiser = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, max(steps, 1))
    # The trainer's own defaults for every batch setting (no extra quarter turns or squeezed views), so a setting
    # the trainer gains is never missing here.
    args = parse_args(["--seed", str(seed), "--batch", str(batch)])
    started = time.time()
    for step in range(steps):
        loss = train_step(model, optimiser, schedule, data, step, args)
        if (step + 1) % 50 == 0 or step + 1 == steps:
            log(f"step {step + 1}/{steps} loss {loss:.4f}")
    after = evaluate(model, data.val)
    out_dir.mkdir(parents=True, exist_ok=True)
    model_out = out_dir / "tile_classifier.onnx"
    command = f"fanscan train classifier --data {data_dir} --out {out_dir} --steps {steps}"
    export_onnx(model, model_out, CLASSES, INPUT_SPEC, {
        "training_steps": str(steps), "training_command": command, "fine_tuned_from": base_model.name,
        "validation_top1": f"{after['top1']}"})
    card = {"model": str(model_out), "base_model": str(base_model), "data": str(data_dir), "steps": steps,
            "batch": batch, "learning_rate": lr, "seed": seed, "torch_threads": torch.get_num_threads(),
            "train_crops": len(train), "held_out_crops": len(val), "held_out_sources": sorted(held),
            "held_out_fraction": held_out_fraction,
            "held_out_top1": {"shipped": before["top1"], "fine_tuned": after["top1"]},
            "held_out_top1_tight_boxes": {"shipped": before["top1_tight"], "fine_tuned": after["top1_tight"]},
            "wall_seconds": round(time.time() - started, 1), "command": command}
    write_card(out_dir, card)
    return card


def write_card(out_dir: Path, card: dict) -> None:
    (out_dir / "tile_classifier.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    shipped, tuned = card["held_out_top1"]["shipped"], card["held_out_top1"]["fine_tuned"]
    lines = [
        "# tile_classifier.onnx: fine-tuned with `fanscan train classifier`", "",
        f"- base model: `{card['base_model']}`", f"- data: `{card['data']}`",
        f"- steps: {card['steps']} (batch {card['batch']}, AdamW lr {card['learning_rate']}, cosine; batch norms, "
        f"stem and early blocks frozen), {card['wall_seconds']} s on {card['torch_threads']} torch thread(s)",
        f"- training crops: {card['train_crops']}; held out by source: {card['held_out_crops']} crops from "
        f"{len(card['held_out_sources'])} source photos",
        f"- held-out top-1: shipped {shipped}, fine-tuned {tuned}", "",
        f"Command: `{card['command']}`", "",
    ]
    (out_dir / "tile_classifier.md").write_text("\n".join(lines), encoding="utf-8")
