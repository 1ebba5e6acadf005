"""Detector weights for fine-tuning: `--init-from` an exported .onnx, two nets averaged (`training.average_weights`),
export with a base model's metadata (`--meta-from`), and the sheets' run size (`--paper-run-share`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch
from fanscan.scoring.errors import FanscanError
from fanscan.training import detector_data as dd
from fanscan.training.average_weights import average_state
from fanscan.training.average_weights import main as average_main
from fanscan.training.detector_net import DetectorNet
from fanscan.training.train_detector import initial_weights
from fanscan.training.train_detector import main as train_main
from fanscan.vision.detect import TileDetector

DATA = Path(__file__).parent / "data" / "mini_yolo" / "train"


def test_the_average_is_taken_tensor_by_tensor_and_keeps_counters_whole() -> None:
    first = {"w": torch.tensor([0.0, 2.0, -4.0]), "n": torch.tensor(3)}
    second = {"w": torch.tensor([4.0, 2.0, 4.0]), "n": torch.tensor(7)}
    assert average_state(first, second, 0.5)["w"].tolist() == [2.0, 2.0, 0.0]
    assert average_state(first, second, 0.25)["w"].tolist() == [1.0, 2.0, -2.0]
    assert average_state(first, second, 0.25)["n"].item() == 7  # an integer counter is not averaged
    assert average_state(first, second, 0.0)["w"].tolist() == first["w"].tolist()


def test_nets_that_do_not_match_are_refused() -> None:
    with pytest.raises(FanscanError, match="different layers"):
        average_state({"a": torch.zeros(2)}, {"b": torch.zeros(2)}, 0.5)
    with pytest.raises(FanscanError, match="shapes"):
        average_state({"a": torch.zeros(2)}, {"a": torch.zeros(3)}, 0.5)
    with pytest.raises(FanscanError, match="between 0 and 1"):
        average_state({"a": torch.zeros(2)}, {"a": torch.zeros(2)}, 1.5)


def test_an_exported_net_averaged_with_itself_exports_the_same_detections(tmp_path: Path, capsys) -> None:
    """A tiny net trained and exported; read back from its .onnx (`--init-from`'s path), averaged with its own
    checkpoint and exported again with the first file's metadata: the same net, so the same heatmap."""
    run, first_onnx = tmp_path / "run", tmp_path / "first.onnx"
    assert train_main(["--smoke", "--data", str(DATA), "--out", str(run), "--artwork", str(tmp_path / "none"),
                       "--export", str(first_onnx), "--meta", "role=close-up"]) == 0
    from_onnx, from_checkpoint = initial_weights(first_onnx), initial_weights(run / "final.pt")
    assert from_onnx.keys() == DetectorNet().state_dict().keys()
    averaged = tmp_path / "average.pt"
    assert average_main([str(first_onnx), str(run / "final.pt"), "--out", str(averaged)]) == 0
    second_onnx = tmp_path / "second.onnx"
    assert train_main(["--export-from", str(averaged), "--export", str(second_onnx),
                       "--meta-from", str(first_onnx), "--meta", "fine_tuned_from=first.onnx"]) == 0
    first, second = TileDetector(first_onnx, threads=1), TileDetector(second_onnx, threads=1)
    meta = second.session.get_modelmeta().custom_metadata_map
    assert meta["role"] == "close-up" and meta["fine_tuned_from"] == "first.onnx"
    image = np.random.default_rng(3).integers(0, 255, (200, 300, 3), dtype=np.uint8)
    np.testing.assert_allclose(first.run(image)[0], second.run(image)[0], atol=1e-4)
    assert len(from_checkpoint) == len(from_onnx)
    capsys.readouterr()
    assert average_main([str(tmp_path / "missing.pt"), str(run / "final.pt"), "--out", str(averaged)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("error:") and "missing.pt" in error and "\n" not in error


def _item() -> dd.TrainImage:
    image = np.full((400, 600, 3), 90, np.uint8)
    boxes = np.array([[100 + 52 * i, 150, 150 + 52 * i, 216] for i in range(4)], np.float32)
    for x0, y0, x1, y1 in boxes.astype(int):
        image[y0:y1, x0 + 1:x1 - 1] = (230, 240, 245)
    return dd.TrainImage("row.jpg", image, boxes)


@pytest.mark.parametrize("share", [(0.1, 0.14), (0.6, 0.7)])
def test_the_sheets_run_is_as_large_as_the_run_share_says(share: tuple[float, float]) -> None:
    rng = np.random.default_rng(4)
    sizes = []
    for _ in range(30):
        made = dd.paper_close_up(_item(), 256, rng, share)
        if made is not None:
            tiles = made[1]
            sizes.append(max(tiles[:, 2].max() - tiles[:, 0].min(), tiles[:, 3].max() - tiles[:, 1].min()))
    assert sizes
    # The cut's margin (PAPER_MARGIN of a tile) lies outside the boxes: the boxes' span is a little under the share.
    assert share[0] * 256 * 0.8 <= min(sizes) and max(sizes) <= share[1] * 256
