"""The detector training machinery end to end: a few tiny steps, a checkpoint, resume, ONNX export, inference."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

from fanscan.training import detector_data as dd
from fanscan.training.train_detector import main
from fanscan.vision.detect import TileDetector

DATA = Path(__file__).parent / "data" / "mini_yolo" / "train"


def test_smoke_training_checkpoints_resumes_and_exports(tmp_path: Path) -> None:
    out = tmp_path / "run"
    onnx_path = tmp_path / "detector.onnx"
    # No artwork folder: the stand-in back shape is used, so no apt package (librsvg) is needed.
    args = ["--smoke", "--data", str(DATA), "--out", str(out), "--artwork", str(tmp_path / "no-artwork")]
    assert main([*args, "--export", str(onnx_path)]) == 0
    log = (out / "train.log").read_text()
    assert "step 3/3" in log
    assert (out / "last.ckpt").exists()
    # Running again finds the finished checkpoint and resumes instead of starting over.
    assert main(args) == 0
    assert "resumed from" in (out / "train.log").read_text()

    detector = TileDetector(onnx_path, threads=1)
    meta = detector.session.get_modelmeta().custom_metadata_map
    assert detector.info.input_size == 384
    assert json.loads(meta["strides"]) == [4, 8, 16, 32]
    assert json.loads(meta["classes"]) == ["tile"]
    assert "CC BY 4.0" in meta["training_data"]
    image = cv2.imread(str(next((DATA / "images").iterdir())))
    heat, distances, scale = detector.run(image)
    assert heat.shape == (96, 96)
    assert distances.shape == (4, 96, 96)
    assert scale == pytest.approx(384 / 640)
    assert float(heat.min()) >= 0.0 and float(heat.max()) <= 1.0


def test_targets_put_a_peak_at_each_box_centre() -> None:
    sample = dd.Sample(np.zeros((64, 64, 3), np.uint8), np.array([[8, 8, 24, 30], [40, 20, 60, 44]], np.float32))
    heatmap, weight, reg_box, reg_weight, num_pos = dd.encode_targets(sample, 64)
    assert num_pos[0] == 2
    assert heatmap[0, 19 // 4, 16 // 4] == 1.0
    assert heatmap[0, 32 // 4, 50 // 4] == 1.0
    assert np.count_nonzero(heatmap == 1.0) == 2
    assert reg_box[:, 19 // 4, 16 // 4].tolist() == [8, 8, 24, 30]
    assert reg_weight[0, 19 // 4, 16 // 4] > 0
    assert weight.min() == 1.0


def test_ignored_regions_are_neither_positive_nor_negative() -> None:
    sample = dd.Sample(np.zeros((64, 64, 3), np.uint8), np.zeros((0, 4), np.float32),
                       np.array([[0, 0, 16, 16]], np.float32))
    _, weight, _, _, num_pos = dd.encode_targets(sample, 64)
    assert num_pos[0] == 0
    assert weight[0, :4, :4].max() == 0.0
    assert weight[0, 8:, 8:].min() == 1.0


def test_random_samples_keep_boxes_inside_the_crop() -> None:
    images = dd.load_split(DATA)
    rng = np.random.default_rng(1)
    masks = [dd.rounded_rect_mask()]
    for _ in range(20):
        sample = dd.random_sample(images[int(rng.integers(len(images)))], 128, rng, masks, composite_p=1.0)
        assert sample.image.shape == (128, 128, 3)
        if len(sample.boxes):
            assert sample.boxes.min() >= 0 and sample.boxes.max() <= 128
            assert np.all(sample.boxes[:, 2] > sample.boxes[:, 0])
            assert np.all(sample.boxes[:, 3] > sample.boxes[:, 1])


def test_a_row_is_laid_out_again_with_backs_and_keeps_its_tile_count() -> None:
    image = np.full((200, 300, 3), (40, 120, 40), np.uint8)
    boxes = np.array([[40 + 30 * i, 120, 70 + 30 * i, 160] for i in range(5)], np.float32)
    for x0, y0, x1, y1 in boxes.astype(int):
        cv2.rectangle(image, (x0 + 1, y0), (x1 - 2, y1 - 1), (230, 240, 245), -1)
    assert dd.row_of(boxes, 2) == [0, 1, 2, 3, 4]
    rng = np.random.default_rng(4)
    relaid = dd.relay_row(image, boxes, [dd.rounded_rect_mask()], rng)
    assert relaid is not None
    picture, positives, ignored = relaid
    assert len(positives) == 5
    # Every new box sits on the row's bottom line, side by side without overlap.
    assert np.all(positives[:, 3] == 160)
    assert np.all(positives[1:, 0] >= positives[:-1, 2])
    assert ignored[-1].tolist() == [40, 120, positives[:, 2].max(), 160]
    # At least one tile is now face down: its box no longer looks like the ivory face.
    faces = [picture[int(y0):int(y1), int(x0):int(x1)].mean() for x0, y0, x1, y1 in positives]
    assert min(faces) < 200 < max(faces)


def test_every_object_weighs_log_area_in_the_box_loss_whatever_its_size() -> None:
    """A close-up tile must not outweigh a small one by its number of cells (TTFNet's per-object normalisation)."""
    boxes = np.array([[8, 8, 24, 32], [80, 40, 180, 190]], np.float32)
    _, _, _, reg_weight, _ = dd.encode_targets(dd.Sample(np.zeros((256, 256, 3), np.uint8), boxes), 256)
    small = reg_weight[0, :12, :12].sum()
    big = reg_weight[0, 8:, 18:].sum()
    assert small == pytest.approx(np.log((16 / 4) * (24 / 4)), rel=1e-4)
    assert big == pytest.approx(np.log((100 / 4) * (150 / 4)), rel=1e-4)
    assert np.count_nonzero(reg_weight[0, 8:, 18:]) > 10 * np.count_nonzero(reg_weight[0, :12, :12])


@pytest.mark.parametrize("rotate_p, stretch_p, wide_p, fill",
                         [(1.0, 0.0, 0.0, 0.45), (0.0, 1.0, 0.0, 0.3), (0.0, 0.0, 1.0, 0.3)])
def test_turned_and_squeezed_samples_keep_each_tile_inside_its_box(rotate_p: float, stretch_p: float, wide_p: float,
                                                                   fill: float) -> None:
    """Small turns of the view, or a photo squeezed along one axis: the label follows its tile and stays tight (for
    a turn, the box around the turned box)."""
    image = np.full((320, 320, 3), (40, 120, 40), np.uint8)
    box = np.array([[140, 120, 180, 176]], np.float32)
    cv2.rectangle(image, (140, 120), (179, 175), (230, 240, 245), -1)
    item = dd.TrainImage("x.jpg", image, box)
    rng = np.random.default_rng(2)
    turned = 0
    for _ in range(30):
        sample = dd.random_sample(item, 160, rng, [], composite_p=0.0, rotate_p=rotate_p, stretch_p=stretch_p,
                                   wide_rotate_p=wide_p)
        if len(sample.boxes) != 1:
            continue
        x0, y0, x1, y1 = sample.boxes[0]
        # The tile: the bright component under the box centre (a bright border fill at a corner is not it).
        _, parts = cv2.connectedComponents((sample.image.min(axis=2) > 150).astype(np.uint8))
        label = parts[int((y0 + y1) / 2), int((x0 + x1) / 2)]
        if label == 0:
            continue
        ivory = parts == label
        ys, xs = np.nonzero(ivory)
        assert xs.min() >= x0 - 2 and xs.max() <= x1 + 2 and ys.min() >= y0 - 2 and ys.max() <= y1 + 2
        # ... and tight: the ivory fills most of it (a box of a box would not).
        assert ivory[int(y0):int(y1), int(x0):int(x1)].mean() > fill
        turned += 1
    assert turned >= 10


def test_load_split_repairs_a_rotated_copy(tmp_path: Path) -> None:
    from tests.test_label_repair import source_photo, transformed_copy

    image, boxes = source_photo(np.random.default_rng(7))
    copy, loose = transformed_copy(image, boxes, 18.0, 3.0)
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a_jpg.rf.1.png"), copy)
    lines = [f"0 {(b[0] + b[2]) / 1280:.6f} {(b[1] + b[3]) / 1280:.6f} {(b[2] - b[0]) / 640:.6f} "
             f"{(b[3] - b[1]) / 640:.6f}" for b in loose]
    (tmp_path / "labels" / "a_jpg.rf.1.txt").write_text("\n".join(lines))
    as_labelled = dd.load_split(tmp_path)[0]
    repaired = dd.load_split(tmp_path, repair_labels=True)[0]
    assert np.abs(as_labelled.boxes - boxes).max() > 8
    assert np.abs(repaired.boxes - boxes).max() < 3.0
    assert len(repaired.ignore) == 0


def _row_photo() -> tuple[np.ndarray, np.ndarray]:
    """A green table with a row of four touching ivory tiles (40 x 56), each with its own dark mark, and one tile
    lying apart."""
    image = np.full((300, 400, 3), (40, 120, 40), np.uint8)
    boxes = [[60 + 40 * i, 100, 100 + 40 * i, 156] for i in range(4)] + [[300, 200, 340, 256]]
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(image, (x0 + 1, y0), (x1 - 2, y1 - 1), (230, 240, 245), -1)
        cv2.circle(image, ((x0 + x1) // 2, (y0 + y1) // 2), 8, (20, 20, 150), -1)
    return image, np.array(boxes, np.float32)


def _close_ups(make, seed: int, count: int = 40) -> list:
    """`count` draws of `make(item, 256, rng)` (a close-up maker of `detector_data`) on the row photo."""
    image, boxes = _row_photo()
    item = dd.TrainImage("x.jpg", image, boxes)
    rng = np.random.default_rng(seed)
    return [make(item, 256, rng) for _ in range(count)]


def test_paper_close_ups_lay_whole_tiles_large_on_a_sheet_and_box_each() -> None:
    """Each tile the sheet shows is whole and boxed: its red mark lies inside exactly one box, every box holds one
    mark and is mostly ivory, and the run is as large in the crop as PAPER_RUN_SHARE says."""
    lengths = set()
    for made in _close_ups(dd.paper_close_up, seed=5):
        if made is None:
            continue
        sheet, tiles, ignored = made
        assert sheet.shape == (384, 384, 3)
        assert len(ignored) == 0  # the row's tiles touch, so the margin shrinks before a neighbour shows
        lengths.add(len(tiles))
        marks = (sheet[:, :, 2] > 100) & (sheet[:, :, 0] < 60) & (sheet[:, :, 1] < 60)
        count, parts = cv2.connectedComponents(marks.astype(np.uint8))
        centres = [np.argwhere(parts == k).mean(axis=0)[::-1] for k in range(1, count)]
        assert len(centres) == len(tiles)
        for x0, y0, x1, y1 in tiles:
            inside = [c for c in centres if x0 <= c[0] <= x1 and y0 <= c[1] <= y1]
            assert len(inside) == 1
            face = sheet[int(y0):int(y1), int(x0):int(x1)]
            assert (face.min(axis=2) > 180).mean() > 0.6
        long_side = max(tiles[:, 2].max() - tiles[:, 0].min(), tiles[:, 3].max() - tiles[:, 1].min())
        assert dd.PAPER_RUN_SHARE[0] * 256 * 0.85 <= long_side <= dd.PAPER_RUN_SHARE[1] * 256
        low, high = 64, 64 + 256  # the sheet's central crop
        assert tiles.min() >= low - 1 and tiles.max() <= high + 1
    assert {1, 2, 4} <= lengths


def test_paper_close_ups_are_not_cut_from_repaired_photos_or_through_a_neighbour() -> None:
    image, boxes = _row_photo()
    repaired = dd.TrainImage("x.jpg", image, boxes, repaired=True)
    rng = np.random.default_rng(1)
    assert all(dd.paper_close_up(repaired, 256, rng) is None for _ in range(10))
    # A tile lying half over the row's first tile: every cut of that tile would show half a neighbour.
    overlapping = np.concatenate([boxes[:1], boxes[:1] + np.array([20, 28, 20, 28], np.float32)])
    item = dd.TrainImage("y.jpg", image, overlapping)
    assert all(dd.paper_close_up(item, 256, rng) is None for _ in range(10))


def test_filled_close_ups_show_one_tile_filling_its_photo_as_it_is_or_shrunk_into_its_border() -> None:
    """A tile cut at its box as a photo of its own, its long side the crop's (at the crop's top left, the rest the
    letterbox grey), or half that, centred in a canvas of the cut's border colour as the scale pass makes it; one box
    around the tile, which holds its red mark at the middle."""
    seen = set()
    for made in _close_ups(dd.filled_close_up, seed=3):
        assert made is not None
        sheet, tiles, ignored = made
        assert sheet.shape == (384, 384, 3) and tiles.shape == (1, 4) and len(ignored) == 0
        x0, y0, x1, y1 = tiles[0]
        long_side = max(x1 - x0, y1 - y0)
        assert 0.6 <= (x1 - x0) / (y1 - y0) <= 0.8  # a 40 x 56 tile, cut up to 5 % inside each edge
        marks = (sheet[:, :, 2] > 100) & (sheet[:, :, 0] < 60) & (sheet[:, :, 1] < 60)
        mark = np.argwhere(marks).mean(axis=0)[::-1]
        assert abs(mark[0] - (x0 + x1) / 2) < 0.1 * (x1 - x0) and abs(mark[1] - (y0 + y1) / 2) < 0.1 * (y1 - y0)
        outside = np.ones(sheet.shape[:2], bool)
        outside[int(np.ceil(y0)):int(y1), int(np.ceil(x0)):int(x1)] = False
        if abs(long_side - 256) <= 1:  # as it is: the photo is the tile
            seen.add("as it is")
            assert abs(x0 - 64) <= 1 and abs(y0 - 64) <= 1
            assert (sheet[outside] == 114).all()
        else:  # shrunk: half the size, in the middle of a view of the photo's size filled with one colour
            seen.add("shrunk")
            assert abs(long_side - 128) <= 3  # the small photo rounds to whole pixels (5 px here)
            assert abs((y0 + y1) / 2 - (64 + 128)) <= 3  # offsets are whole pixels of the small photo
            view = np.zeros(sheet.shape[:2], bool)
            view[67:64 + 253, 67:64 + int(2 * (x1 - x0)) - 8] = True  # inside the view, away from its edge
            clear = np.ones(sheet.shape[:2], bool)  # away from the tile's resampled edge
            clear[int(y0) - 10:int(y1) + 11, int(x0) - 10:int(x1) + 11] = False
            around = sheet[view & clear].astype(int)
            assert np.abs(around - np.median(around, axis=0)).max() <= 12  # one colour, edges resampled
            assert np.abs(around.mean(axis=0) - 114).max() > 20  # the tile's border colour, not the grey
    assert seen == {"as it is", "shrunk"}


def test_rendered_close_ups_box_each_rendered_tile_whole() -> None:
    """Rendered sheets: as many boxes as tiles, each holding one face's green mark, none overlapping another, the
    group as large in the crop as PAPER_RUN_SHARE says."""
    from fanscan.training.faces import Face

    rgba = np.zeros((200, 150, 4), np.uint8)
    cv2.circle(rgba, (75, 55), 30, (0, 255, 0, 255), -1)  # off the centre, whose colour the side takes
    faces = [Face("test", "1p", rgba)]
    rng = np.random.default_rng(9)
    counts = set()
    for _ in range(30):
        sheet, tiles, ignored = dd.rendered_close_up(faces, 256, rng)
        assert sheet.shape == (384, 384, 3) and len(ignored) == 0
        counts.add(len(tiles))
        green = ((sheet[:, :, 1] > 125) & (sheet[:, :, 0] < 60) & (sheet[:, :, 2] < 60)).astype(np.uint8)
        count, parts = cv2.connectedComponents(green)
        centres = [np.argwhere(parts == k).mean(axis=0)[::-1] for k in range(1, count)]
        big = [c for k, c in enumerate(centres, start=1) if (parts == k).sum() > 3]
        assert len(big) == len(tiles)
        for i, (x0, y0, x1, y1) in enumerate(tiles):
            assert sum(x0 <= c[0] <= x1 and y0 <= c[1] <= y1 for c in big) == 1
            for x2, y2, x3, y3 in tiles[i + 1:]:
                assert min(x1, x3) - max(x0, x2) <= 0 or min(y1, y3) - max(y0, y2) <= 0
        long_side = max(tiles[:, 2].max() - tiles[:, 0].min(), tiles[:, 3].max() - tiles[:, 1].min())
        assert long_side <= dd.PAPER_RUN_SHARE[1] * 256 * 1.05
        assert tiles.min() >= 64 and tiles.max() <= 64 + 256
    assert counts == set(dd.PAPER_RUN_LENGTHS)


def test_teacher_boxes_are_the_cells_centres_moved_by_the_distances() -> None:
    import torch
    from fanscan.training.train_detector import teacher_boxes

    distances = torch.zeros(1, 4, 2, 3)
    distances[0, :, 1, 2] = torch.tensor([1.0, 2.0, 3.0, 4.0])
    boxes = teacher_boxes(distances, 4)
    # Cell (row 1, column 2) has its centre at x = 2.5 * 4 = 10, y = 1.5 * 4 = 6.
    assert boxes[0, :, 1, 2].tolist() == [9.0, 4.0, 13.0, 10.0]
    assert boxes[0, :, 0, 0].tolist() == [2.0, 2.0, 2.0, 2.0]


def test_distil_needs_the_net_to_stay_close_to(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--distil needs --init-from"):
        main(["--smoke", "--data", str(DATA), "--out", str(tmp_path / "run"), "--artwork", str(tmp_path / "none"),
              "--distil", "1"])


def test_large_crops_show_one_tile_whole_at_a_share_of_the_crop_with_its_neighbours_as_they_lie() -> None:
    """A crop cut around one tile: some box is a whole tile (its 40 x 56 shape), its long side within
    LARGE_CROP_SHARE of the crop, drawn across that range; each box holds its own tile's mark; the row's touching
    neighbours come along (boxes sharing an edge), not cut out alone as on a sheet."""
    image, boxes = _row_photo()
    item = dd.TrainImage("x.jpg", image, boxes)
    rng = np.random.default_rng(7)
    low, high = dd.LARGE_CROP_SHARE
    shares, touching = [], 0
    for _ in range(40):
        sample = dd.random_sample(item, 256, rng, [dd.rounded_rect_mask()], composite_p=0.0, large_crop=True)
        widths = sample.boxes[:, 2] - sample.boxes[:, 0]
        heights = sample.boxes[:, 3] - sample.boxes[:, 1]
        whole = np.abs(widths / heights - 40 / 56) < 0.03
        assert whole.any()
        shares.append(float(heights[whole].max()) / 256)
        grey = cv2.cvtColor(sample.image, cv2.COLOR_BGR2GRAY).astype(int)
        for (x0, y0, x1, y1), is_whole in zip(sample.boxes, whole, strict=True):
            if is_whole:  # the mark: what is much darker than the ivory (colours are jittered, sometimes grey)
                mx, my = (x1 - x0) * 0.15, (y1 - y0) * 0.15  # away from the table showing at the tile's edge
                inside = grey[int(y0 + my):int(y1 - my), int(x0 + mx):int(x1 - mx)]
                dark = np.argwhere(inside < np.median(inside) - 60)
                centre = dark.mean(axis=0)[::-1] + np.array([int(x0 + mx), int(y0 + my)])
                assert abs(centre[0] - (x0 + x1) / 2) < 0.15 * (x1 - x0)
                assert abs(centre[1] - (y0 + y1) / 2) < 0.15 * (y1 - y0)
        edges = np.abs(sample.boxes[:, None, 2] - sample.boxes[None, :, 0]) < 1.0
        touching += bool(edges.any())
    assert all(low - 0.01 <= s <= high + 0.01 for s in shares)
    assert min(shares) < low + 0.15 and max(shares) > high - 0.15
    assert touching >= 10


def test_asking_for_repainted_tiles_without_face_artwork_says_so_in_the_log(tmp_path: Path) -> None:
    from fanscan.training.train_detector import parse_args, sheet_faces

    missing = tmp_path / "no-faces"
    args = parse_args(["--data", str(DATA), "--out", str(tmp_path), "--restyle-p", "0.4",
                       "--face-artwork", str(missing)])
    assert sheet_faces(args, tmp_path) == []
    log = (tmp_path / "train.log").read_text()
    assert str(missing) in log and "--restyle-p 0.4: no tile is repainted" in log
    assert "--paper-p" not in log  # only what was asked for is named
    plain = parse_args(["--data", str(DATA), "--out", str(tmp_path / "plain"), "--face-artwork", str(missing)])
    (tmp_path / "plain").mkdir()
    assert sheet_faces(plain, tmp_path / "plain") == []
    assert not (tmp_path / "plain" / "train.log").exists()  # nothing asked, nothing said
