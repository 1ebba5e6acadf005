"""Export the trained network as one ONNX file whose metadata says how to feed it and what its outputs mean."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import onnx
import torch
from fanscan.training.embedding_output import add_embedding_output
from fanscan.vision.crops import CropSpec
from torch import nn

TRAINING_DATA = (
    "real crops: Chinese Mahjong Detection v4, riichimahjongdetection, Roboflow Universe, CC BY 4.0; "
    "rendered faces: Unicode mahjong SVGs (public domain), FluffyStuff riichi-mahjong-tiles (CC0), "
    "gleitz/mahjong tiles (MIT), Symbola / Noto / AR PL fonts; see models/tile_classifier.md"
)
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)


def metadata(classes: list[str], spec: CropSpec, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The key/value strings written into the model (read back by `vision.classify`)."""
    meta = {
        "fanscan_model": "tile_classifier",
        "classes": json.dumps(classes),
        "input_width": str(spec.width),
        "input_height": str(spec.height),
        "crop_pad": str(spec.pad),
        "channel_order": "BGR",
        "layout": "NCHW",
        "pixel_scale": str(1 / 255),
        "mean": json.dumps(list(MEAN)),
        "std": json.dumps(list(STD)),
        "output": "logits",
        "training_data": TRAINING_DATA,
    }
    meta.update(extra or {})
    return meta


def export_onnx(model: nn.Module, path: Path, classes: list[str], spec: CropSpec,
                extra: dict[str, str] | None = None) -> None:
    """Single-file ONNX (opset 17, dynamic batch; outputs `logits` and `embedding`) with metadata; written to a
    temp file, then moved into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.onnx")
    model = model.eval()
    dummy = torch.zeros(1, 3, spec.height, spec.width)
    with warnings.catch_warnings():
        # The TorchScript exporter is the one asked for (dynamo=False); its deprecation notice is noise here.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, (dummy,), str(tmp), dynamo=False, opset_version=17, input_names=["image"],
                          output_names=["logits"], dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    proto = add_embedding_output(onnx.load(str(tmp)))  # set profiles swap the head: they need its input
    del proto.metadata_props[:]
    for key, value in metadata(classes, spec, extra).items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(proto)
    onnx.save(proto, str(tmp))
    tmp.replace(path)
