"""`fanscan train classifier`: the shipped weights come back out of the ONNX exactly; a seconds-long fine-tune."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError

from fanscan.cli import main

MINI = Path(__file__).resolve().parent / "data" / "mini_yolo" / "train"


def test_missing_torch_is_one_line(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    from fanscan.commands import train

    with pytest.raises(FanscanError, match=r"needs torch: pip install"):
        train.run(type("Args", (), {"data": str(MINI), "steps": 1, "held_out": 0.25})())


def test_shipped_weights_load_into_torch_exactly():
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from fanscan.training.classifier_train import to_tensor
    from fanscan.training.finetune_classifier import load_shipped
    from fanscan.vision.classify import TileClassifier

    from fanscan import models

    classifier = TileClassifier()
    crops = np.random.default_rng(0).integers(0, 256, (4, 80, 64, 3), dtype=np.uint8)
    expected = classifier.session.run(["logits"], {"image": classifier._prepare(crops)})[0]
    model = load_shipped(models.model_path(models.CLASSIFIER)).eval()
    with torch.no_grad():
        got = model(to_tensor(crops)).numpy()
    np.testing.assert_allclose(got, expected, atol=1e-3)


def test_train_classifier_writes_model_and_card(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from fanscan.vision.classify import TileClassifier

    out = tmp_path / "run"
    assert main(["train", "classifier", "--data", str(MINI), "--out", str(out), "--steps", "2"]) == 0
    card = json.loads((out / "tile_classifier.json").read_text())
    assert card["steps"] == 2 and card["held_out_crops"] > 0 and len(card["held_out_sources"]) == 1
    assert "held-out top-1" in capsys.readouterr().out
    tuned = TileClassifier(out / "tile_classifier.onnx")
    assert tuned.embedding_name == "embedding"  # a fine-tuned model takes set profiles too
    assert (out / "tile_classifier.md").read_text().count("held-out top-1") == 1


def test_train_detector_keeps_the_shipped_metadata(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from fanscan.vision.detect import TileDetector, default_detector

    out = tmp_path / "det"
    assert main(["train", "detector", "--data", str(MINI), "--out", str(out), "--steps", "1"]) == 0
    card = json.loads((out / "tile_detector.json").read_text())
    assert card["steps"] == 1 and card["held_out_boxes"] > 0
    tuned, shipped = TileDetector(out / "tile_detector.onnx"), default_detector()
    assert tuned.info == shipped.info  # threshold, box-size calibration, ... carried over


def test_shipped_detector_weights_load_into_torch_exactly():
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from fanscan.training.detector_net import DetectorNet
    from fanscan.training.onnx_weights import load_onnx_weights
    from fanscan.vision.detect import default_detector

    from fanscan import models

    x = np.random.default_rng(0).normal(0, 1, (1, 3, 128, 160)).astype(np.float32)
    heat, ltrb = default_detector().session.run(None, {"image": x})
    model = load_onnx_weights(DetectorNet(), models.model_path(models.DETECTOR), prefix="net.").eval()
    with torch.no_grad():
        got_heat, got_ltrb = model(torch.from_numpy(x))
    np.testing.assert_allclose(torch.sigmoid(got_heat).numpy(), heat, atol=1e-4)
    np.testing.assert_allclose(got_ltrb.numpy(), ltrb, atol=1e-3)
