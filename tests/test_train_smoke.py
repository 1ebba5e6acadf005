"""Classifier training end to end in seconds: data prep, steps, checkpoint, resume, ONNX export with metadata."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from fanscan.training.classes import CLASSES
from fanscan.training.classifier_train import main
from fanscan.vision.classify import TileClassifier


def test_smoke_training_exports_a_loadable_model_and_resumes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "smoke.onnx"
    # No artwork folder: only `back` and `none` are rendered, so no apt package (librsvg, fonts) is needed.
    args = ["--smoke", "--cache", str(tmp_path / "cache"), "--run-dir", str(tmp_path / "run"), "--out", str(out),
            "--artwork", str(tmp_path / "no-artwork")]
    assert main([*args, "--fresh"]) == 0
    printed = capsys.readouterr().out
    assert "step 12/12" in printed
    assert (tmp_path / "run" / "checkpoint.pt").exists()
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["steps"] == 12 and report["validation"]["n"] > 0

    classifier = TileClassifier(out)
    assert list(classifier.classes) == CLASSES
    assert (classifier.crop_spec.width, classifier.crop_spec.height) == (64, 80)
    meta = classifier.session.get_modelmeta().custom_metadata_map
    assert meta["training_steps"] == "12"
    top = classifier.classify(np.zeros((2, 80, 64, 3), np.uint8), k=3)
    assert len(top) == 2 and all(len(t) == 3 for t in top)

    # Run again: the finished checkpoint is found and resumed, not retrained; the cache is reused.
    assert main(args) == 0
    assert "resumed from" in capsys.readouterr().out
    # Export-only from the checkpoint works too.
    again = tmp_path / "again.onnx"
    assert main([*args, "--export-only", "--out", str(again)]) == 0
    assert TileClassifier(again).classes == classifier.classes
