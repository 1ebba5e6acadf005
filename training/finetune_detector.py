"""Fine-tune the shipped tile detector on a labelled YOLO dataset (`fanscan train detector`, torch on CPU).

The shipped weights come out of the ONNX file (`onnx_weights`); the training loop is `train_detector.train` with
`--init-from` those weights and `--freeze-bn`. A share of the dataset's photo sessions (`fanscan.vision.splits`,
as `train_detector` holds them out) is held out, and the card reports recall and precision (IoU 0.5, the
training's own decode) of the shipped and the fine-tuned net on them. The exported model keeps the shipped
model's metadata (score threshold, box-size calibration, ...).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import torch
from fanscan.scoring.errors import FanscanError
from fanscan.training import detector_data as dd
from fanscan.training import train_detector as td
from fanscan.training.detector_net import DetectorNet
from fanscan.training.onnx_weights import load_onnx_weights
from fanscan.vision.splits import session_of


def finetune(data_dir: Path, out_dir: Path, steps: int, base_model: Path, held_out_fraction: float = 0.25,
             lr: float = 2e-4, batch: int = 8, log: Callable[[str], None] = print) -> dict:
    """Fine-tune, export `out_dir/tile_detector.onnx`, write the card (`.md` and `.json`); returns the card."""
    images = dd.load_split(data_dir, repair_labels=True)
    if not images:
        raise FanscanError(f"{data_dir}: no labelled photos to train on")
    out_dir.mkdir(parents=True, exist_ok=True)
    run_dir = out_dir / "detector-run"
    init = out_dir / "shipped-detector.pt"
    shipped = load_onnx_weights(DetectorNet(), base_model, prefix="net.")
    torch.save({"model": shipped.state_dict()}, init)
    args = td.parse_args(["--data", str(data_dir), "--out", str(run_dir), "--steps", str(steps), "--batch", str(batch),
                          "--lr", str(lr), "--warmup", str(min(20, steps)), "--init-from", str(init), "--freeze-bn",
                          "--val-fraction", str(held_out_fraction), "--eval-every", str(steps + 1),
                          "--checkpoint-every", str(max(steps, 1))])
    val_images = [i for i in images if td.is_held_out(i, held_out_fraction)]  # as `td.train` splits them
    val_groups = {session_of(i.name) for i in val_images}
    log(f"{len(images) - len(val_images)} training photos, {len(val_images)} held out from {len(val_groups)} sources")
    before = td.evaluate_torch(shipped, val_images) if val_images else None
    started = time.time()
    final = td.train(args)
    tuned = DetectorNet()
    tuned.load_state_dict(torch.load(final, map_location="cpu", weights_only=False)["model"])
    after = td.evaluate_torch(tuned, val_images) if val_images else None
    shipped_meta = td.inherited_metadata(base_model)
    command = f"fanscan train detector --data {data_dir} --out {out_dir} --steps {steps}"
    model_out = td.export_onnx(final, out_dir / "tile_detector.onnx",
                               {**shipped_meta, "training_command": command, "fine_tuned_from": base_model.name})
    card = {"model": str(model_out), "base_model": str(base_model), "data": str(data_dir), "steps": steps,
            "batch": batch, "learning_rate": lr, "torch_threads": torch.get_num_threads(),
            "train_photos": len(images) - len(val_images), "held_out_photos": len(val_images),
            "held_out_sources": sorted(val_groups),
            "held_out": {"shipped": before and before["raw"], "fine_tuned": after and after["raw"]},
            "held_out_boxes": before["labelled"] if before else 0,
            "wall_seconds": round(time.time() - started, 1), "command": command}
    (out_dir / "tile_detector.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    figures = (f"shipped recall {before['raw']['recall']:.4f} precision {before['raw']['precision']:.4f}; fine-tuned "
               f"recall {after['raw']['recall']:.4f} precision {after['raw']['precision']:.4f}"
               if before and after else "no held-out photos")
    (out_dir / "tile_detector.md").write_text("\n".join([
        "# tile_detector.onnx: fine-tuned with `fanscan train detector`", "",
        f"- base model: `{base_model}` (its metadata kept: score threshold, box-size calibration)",
        f"- data: `{data_dir}`",
        f"- steps: {steps} (batch {batch} crops of 256 px, AdamW lr {lr}, cosine; batch norms frozen), "
        f"{card['wall_seconds']} s on {card['torch_threads']} torch thread(s)",
        f"- held out by source: {len(val_images)} photos from {len(val_groups)} sources, "
        f"{card['held_out_boxes']} boxes", f"- held-out detection (IoU 0.5, raw boxes): {figures}", "",
        f"Command: `{command}`", ""]), encoding="utf-8")
    return card
