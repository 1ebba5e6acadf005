"""benchmarks/eval_classifier.py: several --model read together by the mean of their probabilities; a profile."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.profile import SetProfile

from fanscan.calibration.profile_file import save_profile

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "data" / "mini_yolo" / "train"
SHIPPED = ROOT / "models" / "tile_classifier.onnx"


@pytest.fixture
def eval_classifier(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import eval_classifier

    return eval_classifier


class FixedReading:
    def __init__(self, rows):
        self.rows = np.array(rows, np.float64)

    def probabilities(self, crops):
        return self.rows


def test_models_read_together_by_their_mean_probability(eval_classifier):
    together = eval_classifier.MeanOfClassifiers.__new__(eval_classifier.MeanOfClassifiers)
    together.classes = ("1m", "2m", "3m")
    # the first reads 1m (0.6), the second 2m (0.6): together 2m wins, 0.45 against 1m's 0.35
    together.members = [FixedReading([[0.6, 0.3, 0.1]]), FixedReading([[0.1, 0.6, 0.3]])]
    top = together.classify(np.zeros((1, 80, 64, 3), np.uint8), k=2)
    assert [name for name, _ in top[0]] == ["2m", "1m"]
    assert top[0][0][1] == pytest.approx(0.45) and top[0][1][1] == pytest.approx(0.35)


def test_one_model_twice_reads_as_that_model(eval_classifier):
    alone = eval_classifier.evaluate(MINI, SHIPPED, limit=2)
    twice = eval_classifier.evaluate(MINI, [SHIPPED, SHIPPED], limit=2)
    assert alone["crops"] > 0 and twice["crops"] == alone["crops"]
    assert twice["matrix"] == alone["matrix"]
    assert isinstance(twice["model"], list) and len(twice["model"]) == 2


def test_a_profile_reads_with_one_classifier_only(eval_classifier, tmp_path):
    with pytest.raises(FanscanError, match="one classifier"):
        eval_classifier.evaluate(MINI, [SHIPPED, SHIPPED], profile=tmp_path / "p.npz", limit=1)


def test_a_profile_without_a_model_reads_with_the_file_it_was_built_for(eval_classifier, tmp_path):
    built_on = ROOT / "models" / "tile_classifier_profiles.onnx"
    classes = tuple(eval_classifier.TileClassifier(built_on).classes)
    path = save_profile(SetProfile("zero", "test", "", hashlib.sha256(built_on.read_bytes()).hexdigest(), classes,
                                   np.zeros((len(classes), 160), np.float32), np.zeros(len(classes), np.float32)),
                        tmp_path / "p.npz")
    out = tmp_path / "out.json"
    assert eval_classifier.main(["--data", str(MINI), "--profile", str(path), "--limit", "1", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["model"].endswith("tile_classifier_profiles.onnx")
