"""vision.detect: the decoding around the net (synthetic), and the shipped model on real photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.detect import (
    DEFAULT_MODEL,
    DetectedTile,
    DetectorInfo,
    TileDetector,
    calibrate_boxes,
    decode,
    detect,
    input_blob,
    make_tile,
    merge_split_tiles,
    partition_overlaps,
    suppress_inner,
)
from fanscan.vision.detection_metrics import match
from fanscan.vision.yolo_data import iter_split

DATA = Path(__file__).parent / "data" / "mini_yolo" / "train"
INFO = DetectorInfo(384, (0.5, 0.5, 0.5), (0.25, 0.25, 0.25), "RGB", 4, 32, 0.3, 0.5)
needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="models/tile_detector.onnx not shipped yet")


def test_decode_takes_local_maxima_above_threshold_only() -> None:
    heat = np.zeros((24, 24), np.float32)
    heat[10, 5] = 0.9
    heat[10, 6] = 0.8  # beside a stronger peak: suppressed by the 3 x 3 maximum
    heat[20, 20] = 0.2  # below the threshold
    distances = np.zeros((4, 24, 24), np.float32)
    distances[:, 10, 5] = [6, 8, 10, 12]
    boxes, scores, centres = decode(heat, distances, 4, 0.3)
    assert scores.tolist() == pytest.approx([0.9])
    # Cell (row 10, column 5) is centred at ((5 + 0.5) * 4, (10 + 0.5) * 4) = (22, 42).
    assert boxes.tolist() == [[16.0, 34.0, 32.0, 54.0]]
    # The stronger right-hand neighbour (0.8 vs 0 on the left) pulls the refined centre right, by under half a cell.
    assert 22.0 < centres[0, 0] < 24.0
    assert centres[0, 1] == pytest.approx(42.0)


def test_overlapping_neighbours_in_a_row_are_split_at_the_midpoint() -> None:
    # Three tiles 20 px apart in a row, each predicted 34 px wide (spilling over its neighbours).
    centres = np.array([[20, 50], [40, 50], [60, 51]], np.float32)
    boxes = np.array([[c[0] - 17, c[1] - 15, c[0] + 17, c[1] + 15] for c in centres], np.float32)
    split = partition_overlaps(boxes, centres)
    assert split[0].tolist() == pytest.approx([3, 35, 30, 65])
    assert split[1].tolist() == pytest.approx([30, 35, 50, 65])
    assert split[2, 0] == pytest.approx(50) and split[2, 2] == pytest.approx(77)
    # Neighbours on a diagonal (a row turned ~45 degrees) keep their boxes.
    diagonal = np.array([[20, 20], [40, 40]], np.float32)
    diagonal_boxes = np.array([[0, 0, 40, 40], [20, 20, 60, 60]], np.float32)
    assert np.array_equal(partition_overlaps(diagonal_boxes, diagonal), diagonal_boxes)


def test_letterbox_keeps_aspect_and_pads_to_the_stride() -> None:
    image = np.full((300, 400, 3), 200, np.uint8)
    blob, scale = input_blob(image, 384, INFO)
    assert scale == pytest.approx(384 / 400)
    assert blob.shape == (1, 3, 288, 384)
    assert blob.dtype == np.float32
    # Inside the photo: (200 / 255 - 0.5) / 0.25; the padding is grey 114.
    assert blob[0, 0, 0, 0] == pytest.approx((200 / 255 - 0.5) / 0.25, abs=1e-4)
    tall = np.zeros((500, 100, 3), np.uint8)
    tall_blob, _ = input_blob(tall, 384, INFO)
    assert tall_blob.shape == (1, 3, 384, 96)


def test_tiles_carry_a_clockwise_quad_and_their_orientation() -> None:
    upright = make_tile(np.array([10, 20, 40, 60], np.float32), 0.9)
    assert upright.orientation == "upright"
    assert upright.quad.tolist() == [[10, 20], [40, 20], [40, 60], [10, 60]]
    # Clockwise on screen (y down) = positive shoelace area.
    x, y = upright.quad[:, 0], upright.quad[:, 1]
    assert float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) > 0
    sideways = make_tile(np.array([0, 0, 50, 30], np.float32), 0.5)
    assert sideways.orientation == "sideways"
    assert sideways.to_dict()["box"] == [0.0, 0.0, 50.0, 30.0]


def test_missing_and_corrupt_model_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FanscanError, match="not found"):
        TileDetector(tmp_path / "absent.onnx")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"this is not a model" * 10)
    with pytest.raises(FanscanError, match="not a loadable ONNX"):
        TileDetector(garbage)


def test_calibration_scales_boxes_about_their_centres() -> None:
    boxes = np.array([[10, 20, 50, 80], [100, 0, 120, 10]], np.float32)
    scaled = calibrate_boxes(boxes, 0.5, 0.8)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    assert ((scaled[:, :2] + scaled[:, 2:]) / 2).ravel().tolist() == pytest.approx(centres.ravel().tolist())
    assert (scaled[:, 2] - scaled[:, 0]).tolist() == pytest.approx([20.0, 10.0])
    assert (scaled[:, 3] - scaled[:, 1]).tolist() == pytest.approx([48.0, 8.0])
    assert scaled[0].tolist() == pytest.approx([20, 26, 40, 74])
    assert np.array_equal(calibrate_boxes(boxes, 1.0, 1.0), boxes)


def tiny_detector_model(path: Path, metadata: dict[str, str]) -> Path:
    """A hand-built ONNX 'detector': the heatmap is the sigmoid of the photo's first channel averaged over each
    4 x 4 cell (a bright cell is a tile centre), and every cell says left / top / right / bottom = 10 / 20 / 10 / 20
    input pixels, i.e. a 20 x 40 box about the cell centre."""
    onnx = pytest.importorskip("onnx")  # building models needs the onnx package (train extra); loading does not
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Slice", ["image", "zero", "one", "axis1"], ["first"]),
        helper.make_node("AveragePool", ["first"], ["pooled"], kernel_shape=[4, 4], strides=[4, 4]),
        helper.make_node("Sigmoid", ["pooled"], ["heatmap"]),
        helper.make_node("Mul", ["pooled", "nought"], ["zeros"]),
        helper.make_node("Add", ["zeros", "ltrb_const"], ["ltrb"]),
    ]
    initialisers = [
        helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
        helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        helper.make_tensor("axis1", TensorProto.INT64, [1], [1]),
        helper.make_tensor("nought", TensorProto.FLOAT, [], [0.0]),
        helper.make_tensor("ltrb_const", TensorProto.FLOAT, [1, 4, 1, 1], [10, 20, 10, 20]),
    ]
    graph = helper.make_graph(
        nodes, "tiny_detector",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("heatmap", TensorProto.FLOAT, [1, 1, "h4", "w4"]),
         helper.make_tensor_value_info("ltrb", TensorProto.FLOAT, [1, 4, "h4", "w4"])],
        initialisers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    base = {"input_size": "384", "normalisation_mean": "[0.5, 0.5, 0.5]", "normalisation_std": "[0.25, 0.25, 0.25]",
            "channel_order": "RGB", "pad_multiple": "32", "output_stride": "4", "score_threshold": "0.3"}
    for key, value in {**base, **metadata}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(model, str(path))
    return path


def test_the_calibration_factors_come_from_the_model_metadata(tmp_path: Path) -> None:
    # One bright 4 x 4 cell (column 10, row 20 of the stride-4 grid) on a dark 384 x 384 photo: one tile centred at
    # ((10 + 0.5) * 4, (20 + 0.5) * 4) = (42, 82), 20 x 40 px as the net gives it.
    image = np.zeros((384, 384, 3), np.uint8)
    image[80:84, 40:44] = 255
    plain = TileDetector(tiny_detector_model(tmp_path / "plain.onnx", {}), threads=1)
    assert (plain.info.box_scale_x, plain.info.box_scale_y) == (1.0, 1.0)
    [tile] = plain.detect(image)
    assert tile.box == pytest.approx((32, 62, 52, 102))

    calibrated = TileDetector(tiny_detector_model(tmp_path / "calibrated.onnx",
                                                  {"box_scale_x": "0.5", "box_scale_y": "0.75"}), threads=1)
    assert (calibrated.info.box_scale_x, calibrated.info.box_scale_y) == (0.5, 0.75)
    [small] = calibrated.detect(image)
    assert small.box == pytest.approx((37, 67, 47, 97))  # 10 x 30 about the same centre
    # An explicit argument wins over the metadata (how the calibration grid switches it off).
    [as_net] = TileDetector(calibrated.path, threads=1, box_scale=(1.0, 1.0)).detect(image)
    assert as_net.box == pytest.approx(tile.box)

    for bad in ("0", "-1", "nan", "wide"):
        with pytest.raises(FanscanError, match="box_scale_x"):
            TileDetector(tiny_detector_model(tmp_path / "bad.onnx", {"box_scale_x": bad}))


def test_the_overlap_split_is_switched_by_the_model_metadata(tmp_path: Path) -> None:
    # Two bright cells 12 px apart in a row: their 20-px-wide boxes overlap by 8 px.
    image = np.zeros((384, 384, 3), np.uint8)
    image[80:84, 40:44] = 255
    image[80:84, 52:56] = 255
    default = TileDetector(tiny_detector_model(tmp_path / "old.onnx", {}), threads=1)
    tight = TileDetector(tiny_detector_model(tmp_path / "tight.onnx", {"partition_overlaps": "false"}), threads=1)
    assert default.info.partition and not tight.info.partition
    split = sorted(t.box for t in default.detect(image))
    kept = sorted(t.box for t in tight.detect(image))
    assert split[0][2] == pytest.approx(48) and split[1][0] == pytest.approx(48)  # cut at the midpoint of centres
    assert kept[0][2] == pytest.approx(52) and kept[1][0] == pytest.approx(44)  # as the net gave them
    with pytest.raises(FanscanError, match="partition_overlaps"):
        TileDetector(tiny_detector_model(tmp_path / "bad.onnx", {"partition_overlaps": "maybe"}))


def test_a_second_peak_inside_a_better_box_is_dropped_but_touching_neighbours_stay() -> None:
    boxes = np.array([[0, 0, 20, 30], [5, 2, 22, 31], [20, 0, 40, 30], [60, 0, 80, 30]], np.float32)
    scores = np.array([0.9, 0.5, 0.8, 0.7], np.float32)
    # Box 1's centre (13.5, 16.5) lies inside box 0: a duplicate. Box 2 touches box 0 (centres a tile apart).
    assert suppress_inner(boxes, scores, 1.0).tolist() == [0, 2, 3]
    # A tighter central part lets the duplicate through; the better box is never the one dropped.
    assert suppress_inner(boxes, scores, 0.2).tolist() == [0, 1, 2, 3]
    assert suppress_inner(boxes, scores[[1, 0, 2, 3]], 1.0).tolist() == [1, 2, 3]
    # Equal scores: the box kept first stays kept, even when a later, bigger box holds its centre.
    small_then_big = np.array([[10, 10, 14, 16], [0, 0, 40, 60]], np.float32)
    assert suppress_inner(small_then_big, np.array([0.5, 0.5], np.float32), 1.0).tolist() == [0, 1]


def split_row(split_at: int, width: float, spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Proposals of a row of six tiles `spacing` apart, boxes `width` wide and 70 tall, the tile at `split_at`
    found twice: two narrower boxes whose peaks lie 15 px apart about its centre (a white dragon's two bars)."""
    boxes, centres = [], []
    for k in range(6):
        cx = 100 + k * spacing
        if k == split_at:
            for offset in (-7.5, 7.5):
                boxes.append([cx + offset - 16, 100, cx + offset + 16, 170])
                centres.append([cx + offset, 135])
        else:
            boxes.append([cx - width / 2, 100, cx + width / 2, 170])
            centres.append([cx, 135])
    scores = np.linspace(0.5, 0.4, len(boxes)).astype(np.float32)
    return np.array(boxes, np.float32), scores, np.array(centres, np.float32)


def test_a_tile_found_as_two_overlapping_halves_becomes_one_box() -> None:
    # Issue 18 / 20: the sample hand_004 showed each white dragon as two boxes (six P for three tiles).
    boxes, scores, centres = split_row(2, 38, 42)
    merged, merged_scores, _ = merge_split_tiles(boxes, scores, centres)
    assert len(merged) == 6
    tile = merged[2]
    assert tile.tolist() == pytest.approx([184 - 23.5, 100, 184 + 23.5, 170])  # the halves' union
    assert merged_scores[2] == pytest.approx(max(scores[2], scores[3]))
    assert merged[[0, 1, 3, 4, 5]].tolist() == boxes[[0, 1, 4, 5, 6]].tolist()  # neighbours untouched


def test_neighbours_whose_boxes_came_out_too_wide_are_not_merged() -> None:
    # Every neighbour overlaps the next by two thirds (boxes 87 wide, tiles 31 apart, as on some dev photos): the
    # spacing of the peaks says these are tiles, not halves.
    boxes = np.array([[100 + 31 * k - 43.5, 100, 100 + 31 * k + 43.5, 200] for k in range(8)], np.float32)
    centres = np.array([[100 + 31 * k, 150] for k in range(8)], np.float32)
    scores = np.full(8, 0.5, np.float32)
    merged, _, _ = merge_split_tiles(boxes, scores, centres)
    assert len(merged) == 8


def test_centre_suppression_comes_from_the_model_metadata(tmp_path: Path) -> None:
    plain = TileDetector(tiny_detector_model(tmp_path / "plain.onnx", {}), threads=1)
    assert plain.info.centre_suppression == 0.0
    on = TileDetector(tiny_detector_model(tmp_path / "on.onnx", {"centre_suppression": "1.0"}), threads=1)
    assert on.info.centre_suppression == 1.0
    # Two bright cells 8 px apart in a row: two peaks, each box's centre inside the other's 20 px wide box.
    image = np.zeros((384, 384, 3), np.uint8)
    image[80:84, 40:44] = 255
    image[80:84, 48:52] = 200
    # (The two peaks are also one tile found twice, which the detector joins: switched off here to see the key.)
    plain.merge_splits = on.merge_splits = False
    assert len(plain.detect(image, partition=False)) == 2
    assert len(on.detect(image, partition=False)) == 1
    plain.merge_splits = True
    joined = plain.detect(image, partition=False)
    assert len(joined) == 1 and joined[0].box[0] < 40 and joined[0].box[2] > 52  # one box over both peaks
    with pytest.raises(FanscanError, match="centre_suppression"):
        TileDetector(tiny_detector_model(tmp_path / "bad.onnx", {"centre_suppression": "lots"}))


def test_the_evidence_bar_comes_from_the_model_metadata(tmp_path: Path) -> None:
    from fanscan.vision.detect import DEFAULT_WEAK_EVIDENCE

    assert TileDetector(tiny_detector_model(tmp_path / "plain.onnx", {}), threads=1).info.weak_evidence \
        == DEFAULT_WEAK_EVIDENCE
    raised = TileDetector(tiny_detector_model(tmp_path / "six.onnx", {"weak_evidence": "6"}), threads=1)
    assert raised.info.weak_evidence == 6.0
    for bad in ("lots", "-1", "nan"):
        with pytest.raises(FanscanError, match="weak_evidence"):
            TileDetector(tiny_detector_model(tmp_path / "bad.onnx", {"weak_evidence": bad}))


@needs_model
def test_bad_input_is_refused() -> None:
    with pytest.raises(FanscanError, match="BGR"):
        detect(np.zeros((64, 64), np.uint8))


def labelled_photos() -> list[tuple[np.ndarray, np.ndarray]]:
    photos = []
    for item in iter_split(DATA):
        image = cv2.imread(str(item.image_path))
        h, w = image.shape[:2]
        photos.append((image, np.array([b.to_pixels(w, h) for b in item.boxes], np.float32)))
    return photos


@needs_model
def test_real_photos_give_about_the_labelled_tiles() -> None:
    for image, truth in labelled_photos():
        tiles = detect(image)
        assert all(isinstance(t, DetectedTile) for t in tiles)
        boxes = np.array([t.box for t in tiles], np.float32).reshape(-1, 4)
        # By centres: these training copies were rotated upstream and their labels are boxes around turned boxes,
        # far bigger than a tile and in some photos shifted off it; the model's boxes are tight. A label counts as
        # found when a detection's centre lies within 0.45 of the label's shorter side from its centre (the next
        # tile in a row is a whole tile away).
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        label_centres = (truth[:, :2] + truth[:, 2:]) / 2
        reach = np.minimum(truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1]) * 0.45
        distance = np.linalg.norm(label_centres[:, None] - centres[None], axis=2) if len(centres) else None
        found = 0 if distance is None else int((distance.min(axis=1) <= reach).sum())
        assert found >= 0.8 * len(truth)
        assert len(tiles) <= 1.3 * len(truth) + 2
        scores = [t.score for t in tiles]
        assert scores == sorted(scores, reverse=True)


@needs_model
def test_coordinates_map_back_to_the_original_photo() -> None:
    image, truth = labelled_photos()[0]
    small = detect(image)
    big_image = cv2.resize(image, None, fx=3.0, fy=3.0, interpolation=cv2.INTER_LINEAR)
    big = detect(big_image)
    big_boxes = np.array([t.box for t in big], np.float32).reshape(-1, 4) / 3.0
    small_boxes = np.array([t.box for t in small], np.float32).reshape(-1, 4)
    # The same tiles come out, in the big photo's own pixels (three times the small photo's).
    assert len(match(big_boxes, small_boxes, 0.7)) >= 0.9 * len(small_boxes)
    assert len(match(big_boxes, truth, 0.5)) >= 0.85 * len(truth)


@needs_model
def test_a_photo_without_tiles_gives_almost_nothing() -> None:
    rng = np.random.default_rng(0)
    felt = np.zeros((480, 640, 3), np.uint8)
    felt[:] = (40, 120, 30)
    felt = cv2.add(felt, rng.integers(0, 25, felt.shape, dtype=np.uint8))
    assert len(detect(felt)) <= 1
    assert detect(np.full((300, 300, 3), 255, np.uint8)) == []


@needs_model
def test_tiny_tiles_in_a_big_photo_get_a_closer_look() -> None:
    image, truth = labelled_photos()[0]
    h, w = image.shape[:2]
    # The photo as a small part of a plain canvas four times its size: tiles ~1.5 % of the long side.
    canvas = np.empty((h * 4, w * 4, 3), np.uint8)
    canvas[:] = image.reshape(-1, 3).mean(axis=0)
    canvas[h:2 * h, 2 * w:3 * w] = image
    shift = np.array([2 * w, h, 2 * w, h], np.float32)
    model = TileDetector()
    at_full_view = np.array([t.box for t in model.detect(canvas, refine=False)], np.float32).reshape(-1, 4)
    closer = np.array([t.box for t in model.detect(canvas)], np.float32).reshape(-1, 4)
    assert len(match(at_full_view - shift, truth, 0.5)) < 0.5 * len(truth)
    assert len(match(closer - shift, truth, 0.5)) >= 0.8 * len(truth)
