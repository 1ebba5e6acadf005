"""The second reader: text → tile table, the CTC decoder, the pipeline switch, and the model on a rendered glyph."""

from pathlib import Path

import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision import second_reader
from fanscan.vision.pipeline import Pipeline
from fanscan.vision.second_reader import ctc_greedy, second_opinions, tile_of_text


@pytest.mark.parametrize("text, tile", [
    ("八萬", "8m"), ("一万", "1m"), ("九\n萬", "9m"), ("東", "E"), ("东", "E"), ("南", "S"), ("西", "W"), ("北", "N"),
    ("中", "C"), ("發", "F"), ("发", "F"), ("梅", "a"), ("蘭", "b"), ("竹", "c"), ("菊", "d"), ("春", "e"),
    ("夏", "f"), ("秋", "g"), ("冬", "h"),
    ("萬", None),        # which numeral?
    ("八", None),        # a numeral without 萬 (a flower's corner numeral, or half a tile)
    ("三八萬", None),     # two numerals
    ("東南", None),      # two honours
    ("此", None), ("", None), ("1", None),
])
def test_text_to_tile_table(text, tile):
    assert tile_of_text(text) == tile


def test_ctc_greedy_drops_blanks_and_repeats():
    characters = ["八", "萬", "東"]  # indices 1, 2, 3; 0 is the blank
    steps = [0, 1, 1, 0, 2, 2, 2, 0]  # 八 八 (one) blank 萬 萬 萬 (one)
    probs = np.full((len(steps), 4), 0.05, np.float32)
    for t, index in enumerate(steps):
        probs[t, index] = 0.8 if t != 4 else 0.6
    text, score = ctc_greedy(probs, characters)
    assert text == "八萬"
    assert score == pytest.approx((0.8 + 0.6) / 2)  # first step of each kept run


def test_ctc_greedy_all_blank_is_no_text():
    probs = np.zeros((5, 3), np.float32)
    probs[:, 0] = 1.0
    assert ctc_greedy(probs, ["a", "b"]) == ("", 0.0)


class StandInReader:
    def __init__(self, answer):
        self.answer, self.asked = answer, 0

    def read(self, crop):
        self.asked += 1
        return self.answer


def test_second_opinions_only_for_doubtful_crops_and_sure_readings():
    crops = np.zeros((3, 80, 64, 3), np.uint8)
    readings = [[("9m", 0.95), ("7m", 0.03)], [("9m", 0.6), ("7m", 0.3)], [("1s", 0.5), ("C", 0.2)]]
    sure = StandInReader(("7m", 0.97))
    out = second_opinions(sure, crops, readings, [0, 0, 0], doubtful=0.9, sure=0.9)
    assert sure.asked == 2  # the confident crop is never asked about
    assert out[0] == readings[0]
    assert out[1] == [("7m", 0.97), ("9m", 0.6)]
    assert out[2][0] == ("7m", 0.97) and len(out[2]) == 2
    unsure = StandInReader(("7m", 0.5))
    assert second_opinions(unsure, crops, readings, [0, 0, 0], doubtful=0.9, sure=0.9) == readings


class StandInClassifier:
    """Answers 9m at 0.6 for every crop (no `probabilities`, so the pipeline takes its readings as is)."""

    crop_spec = None

    def classify(self, crops, k):
        return [[("9m", 0.6), ("7m", 0.3)] for _ in crops]


def test_pipeline_switch_asks_the_second_reader(monkeypatch):
    reader = StandInReader(("7m", 0.99))
    crops = np.zeros((2, 80, 64, 3), np.uint8)

    class Probing(StandInClassifier):
        classes = ("7m", "9m")

        def probabilities(self, batch):
            return np.tile(np.array([[0.3, 0.6]], np.float32), (len(batch), 1))

    off = Pipeline(detector=object(), classifier=Probing())
    on = Pipeline(detector=object(), classifier=Probing(), second_reader=reader)
    assert [r[0][0] for r in off.read(crops)[0]] == ["9m", "9m"]
    assert [r[0][0] for r in on.read(crops)[0]] == ["7m", "7m"]
    assert reader.asked == 2


def test_missing_model_is_one_line_error(tmp_path):
    with pytest.raises(FanscanError, match="not found"):
        second_reader.SecondReader(tmp_path / "nope.onnx")


SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples"


def sample_crops(class_name: str) -> list[np.ndarray]:
    """Every labelled crop of `class_name` (a Chinese Mahjong Detection v4 class) in the bundled sample photos."""
    import cv2
    import yaml
    from fanscan.vision.crops import quad_from_box

    names = yaml.safe_load((SAMPLES / "data.yaml").read_text())["names"]
    crops = []
    for label in sorted((SAMPLES / "labels").glob("*.txt")):
        image = cv2.imread(str(SAMPLES / "images" / f"{label.stem}.jpg"))
        height, width = image.shape[:2]
        for line in label.read_text().splitlines():
            c, x, y, w, h = (float(v) for v in line.split()[:5])
            if names[int(c)] == class_name:
                quad = quad_from_box((x - w / 2) * width, (y - h / 2) * height,
                                     (x + w / 2) * width, (y + h / 2) * height)
                x0, y0 = np.maximum(quad.min(axis=0).astype(int), 0)
                x1, y1 = quad.max(axis=0).astype(int)
                crops.append(image[y0:y1, x0:x1])
    return crops


@pytest.mark.skipif(not second_reader.DEFAULT_MODEL.is_file(), reason="the recogniser model is not shipped")
@pytest.mark.parametrize("class_name, tile", [("hwe", "E"), ("hdr", "C")])
def test_shipped_model_reads_real_crops(class_name, tile):
    reader = second_reader.SecondReader()
    crops = sample_crops(class_name)
    assert crops, f"no {class_name} in the samples"
    read = [reader.read(crop)[0] for crop in crops]
    assert read.count(tile) > len(read) / 2, read
