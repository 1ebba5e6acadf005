"""vision.turned_faces: uncertain crops are read turned and the most confident face is kept, with its turn."""

from __future__ import annotations

import numpy as np
import pytest
from fanscan.vision.turned_faces import TURNS, choose_turns, read_any_turn, turn_crop

CLASSES = ("5p", "6p", "back", "none")


class MarkerClassifier:
    """A stand-in that reads '5p' surely when the crop's bright corner is top-left, and is unsure otherwise;
    a crop whose bright corner is bottom-right reads as 'none' surely (a turned crop that looks like a gap)."""

    classes = CLASSES

    def __init__(self) -> None:
        self.read = 0

    def probabilities(self, crops) -> np.ndarray:
        self.read += len(crops)
        out = []
        for crop in crops:
            h, w = crop.shape[:2]
            corners = {"tl": crop[0, 0, 0], "tr": crop[0, w - 1, 0], "br": crop[h - 1, w - 1, 0],
                       "bl": crop[h - 1, 0, 0]}
            bright = max(corners, key=corners.get)
            if crop.max() == 0:
                out.append([0.25, 0.25, 0.25, 0.25])
            elif bright == "tl":
                out.append([0.97, 0.01, 0.01, 0.01])
            elif bright == "br":
                out.append([0.0, 0.0, 0.01, 0.99])
            else:
                out.append([0.45, 0.45, 0.05, 0.05])
        return np.array(out, np.float32)


def marked(corner: str) -> np.ndarray:
    crop = np.zeros((10, 8, 3), np.uint8)
    y, x = {"tl": (0, 0), "tr": (0, 7), "br": (9, 7), "bl": (9, 0)}[corner]
    crop[y, x] = 255
    return crop


def test_a_quarter_turn_clockwise_moves_the_top_left_corner_to_the_top_right() -> None:
    crop = marked("tl")
    turned = turn_crop(crop, 90)
    assert turned.shape == (8, 10, 3)
    assert turned[0, -1, 0] == 255 and turned[0, 0, 0] == 0
    assert np.array_equal(turn_crop(turn_crop(crop, 180), 180), crop)
    assert np.array_equal(turn_crop(turned, 270), crop)


def test_an_uncertain_crop_is_read_at_the_turn_that_shows_its_face_upright() -> None:
    classifier = MarkerClassifier()
    # Bright corner top-right: the face was turned 90 degrees clockwise, so a 270-degree turn reads it upright.
    result = read_any_turn(classifier, [marked("tl"), marked("tr"), marked("bl")], k=2)
    assert result.turns == [0, 270, 90]
    assert [r[0][0] for r in result.readings] == ["5p", "5p", "5p"]
    assert result.readings[1][0][1] == pytest.approx(0.97)
    # The sure crop was read once; the two unsure ones once as is and once per turn.
    assert classifier.read == 3 + 2 * len(TURNS)


def test_a_turn_that_reads_as_a_gap_or_a_back_is_never_kept() -> None:
    # Turned, the crop reads as a gap (none 0.99) or a face-down tile (back 0.98), or no better than as it is.
    as_is = np.array([[0.45, 0.45, 0.05, 0.05]], np.float32)
    turned = np.array([[[0.0, 0.0, 0.01, 0.99]], [[0.0, 0.0, 0.98, 0.02]], [[0.45, 0.45, 0.05, 0.05]]],
                      np.float32)
    kept, turns = choose_turns(as_is, turned, CLASSES)
    assert turns == [0] and np.array_equal(kept, as_is)


def test_a_turn_must_beat_the_reading_as_is_by_the_margin_and_sure_crops_are_not_turned() -> None:
    as_is = np.array([[0.6, 0.3, 0.05, 0.05], [0.95, 0.03, 0.01, 0.01]], np.float32)
    turned = np.zeros((3, 2, 4), np.float32)
    turned[:, :] = [0.1, 0.8, 0.05, 0.05]  # every turn reads '6p' at 0.8
    _, turns = choose_turns(as_is, turned, CLASSES, low_confidence=0.9, margin=0.3)
    assert turns == [0, 0]  # 0.8 < 0.6 + 0.3; the second crop is sure
    kept, turns = choose_turns(as_is, turned, CLASSES, low_confidence=0.9, margin=0.1)
    assert turns == [90, 0]  # the first turn tried that beats 0.6 + 0.1; later turns only tie it
    assert kept[0, 1] == pytest.approx(0.8) and kept[1, 0] == pytest.approx(0.95)


def test_the_pipeline_reads_crops_at_their_turn_and_the_proposal_carries_it() -> None:
    from fanscan.vision.pipeline import Pipeline
    from fanscan.vision.proposal import ProposedTile

    pipeline = Pipeline(detector=object(), classifier=MarkerClassifier())  # only the reading step is used here
    readings, turns = pipeline.read(np.stack([marked("tl"), marked("tr")]))
    assert turns == [0, 270] and [r[0][0] for r in readings] == ["5p", "5p"]
    tile = ProposedTile(1, [[0, 0], [8, 0], [8, 10], [0, 10]], [0, 0, 8, 10], "upright", 0.9, "5p", 0.97, turn=270)
    assert tile.to_dict()["turn"] == 270
    older = {key: value for key, value in tile.to_dict().items() if key != "turn"}  # a proposal saved before
    assert ProposedTile.from_dict(older).turn == 0
