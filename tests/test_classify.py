"""Loading a classifier model (errors a user can cause) and what `classify` returns, on tiny hand-built models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.classify import TileClassifier


def tiny_model(path: Path, classes: list[str], width: int = 64, height: int = 80, meta: dict | None = None,
               graph_size: tuple[int, int] | None = None) -> Path:
    """Mean of each colour channel -> linear layer: class i answers to channel i (B, G, R)."""
    onnx = pytest.importorskip("onnx")  # building models needs the onnx package (train extra); loading does not
    from onnx import TensorProto, helper
    gw, gh = graph_size or (width, height)
    n = len(classes)
    weight = np.zeros((3, n), np.float32)
    for i in range(min(3, n)):
        weight[i, i] = 4.0
    nodes = [
        helper.make_node("GlobalAveragePool", ["image"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "w"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, gh, gw])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", n])],
        [helper.make_tensor("w", TensorProto.FLOAT, weight.shape, weight.flatten())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    metadata = {"classes": json.dumps(classes), "input_width": str(width), "input_height": str(height),
                "crop_pad": "0.1", "mean": "[0.5, 0.5, 0.5]", "std": "[0.25, 0.25, 0.25]",
                "pixel_scale": str(1 / 255), "channel_order": "BGR"}
    metadata.update(meta or {})
    for key, value in metadata.items():
        if value is not None:
            entry = model.metadata_props.add()
            entry.key, entry.value = key, value
    onnx.save(model, str(path))
    return path


def test_classes_and_input_come_from_metadata(tmp_path: Path) -> None:
    model = TileClassifier(tiny_model(tmp_path / "m.onnx", ["blue", "green", "red"], width=32, height=48))
    assert model.classes == ("blue", "green", "red")
    spec = model.crop_spec
    assert (spec.width, spec.height, spec.pad) == (32, 48, 0.1)


def test_classify_returns_sorted_top_k_in_bgr(tmp_path: Path) -> None:
    model = TileClassifier(tiny_model(tmp_path / "m.onnx", ["blue", "green", "red", "other"]))
    crops = np.zeros((3, 80, 64, 3), np.uint8)
    crops[0, ..., 0] = 255  # pure blue in BGR
    crops[1, ..., 1] = 255
    crops[2, ..., 2] = 255
    result = model.classify(crops, k=2)
    assert [r[0][0] for r in result] == ["blue", "green", "red"]
    for top in result:
        assert len(top) == 2
        assert top[0][1] >= top[1][1]
        assert 0.0 < top[1][1] < top[0][1] <= 1.0
    probs = model.probabilities(crops)
    assert probs.shape == (3, 4)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert len(model.classify(crops, k=10)[0]) == 4  # k larger than the class list: every class once
    assert model.classify(np.zeros((0, 80, 64, 3), np.uint8)) == []


def test_crops_of_another_size_are_letterboxed_not_refused(tmp_path: Path) -> None:
    model = TileClassifier(tiny_model(tmp_path / "m.onnx", ["blue", "green", "red"]))
    crop = np.zeros((200, 100, 3), np.uint8)
    crop[..., 2] = 255
    assert model.classify([crop], k=1)[0][0][0] == "red"
    with pytest.raises(FanscanError):
        model.classify([np.zeros((80, 64, 2), np.uint8)])
    with pytest.raises(FanscanError):
        model.classify([crop], k=0)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FanscanError, match="not found"):
        TileClassifier(tmp_path / "nope.onnx")


def test_not_an_onnx_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_text("this is not a model")
    with pytest.raises(FanscanError, match="not a loadable ONNX model"):
        TileClassifier(bad)


def test_onnx_without_classifier_metadata(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "m.onnx", ["a", "b", "c"], meta={"classes": None, "channel_order": None})
    with pytest.raises(FanscanError, match="classes"):
        TileClassifier(path)


def test_input_size_mismatch(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "m.onnx", ["a", "b", "c"], graph_size=(40, 40))
    with pytest.raises(FanscanError, match="does not match"):
        TileClassifier(path)


def test_class_count_mismatch(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "m.onnx", ["a", "b", "c"], meta={"classes": json.dumps(["a", "b"])})
    with pytest.raises(FanscanError, match="classes"):
        TileClassifier(path)


def test_unreadable_metadata(tmp_path: Path) -> None:
    path = tiny_model(tmp_path / "m.onnx", ["a", "b", "c"], meta={"mean": "not json"})
    with pytest.raises(FanscanError, match="metadata"):
        TileClassifier(path)
