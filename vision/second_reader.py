"""A second reader for the tiles that carry writing: a general Chinese text recogniser (PP-OCRv4 rec, ONNX).

24 of the 42 kinds carry characters (一-九 over 萬, 東南西北, 中, 發, flower and season names). A text recogniser has
seen far more fonts than any tile data set, so for a crop the classifier doubts, its reading is a second opinion.
The model's character list is in its ONNX metadata (`character`), as the PP-OCR export writes it.

    reader = SecondReader(path_to_rec_onnx)  # PP-OCRv4 rec (not shipped: see DEFAULT_MODEL)
    tile, score = reader.read(crop_bgr)      # ("8m", 0.97), or (None, 0.0) for no opinion
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.onnx_model import open_model

from fanscan import models

# Not shipped (it did not help on the sets measured, see `DOUBTFUL`): the PP-OCRv4 rec ONNX of the
# rapidocr-onnxruntime 1.4.4 wheel (Apache-2.0) put here, or passed as `model_path`, turns the reader on.
DEFAULT_MODEL = Path(models.__file__).with_name("ocr_recogniser.onnx")
INPUT_HEIGHT = 48  # what PP-OCR rec was trained at
MIN_WIDTH = 48  # a crop narrower than this is padded to it (a lone character still gets a few CTC steps)

NUMERALS = {c: n for n, c in enumerate("一二三四五六七八九", start=1)}
CHARACTER_SUIT = ("萬", "万")
HONOURS = {"東": "E", "东": "E", "南": "S", "西": "W", "北": "N", "中": "C", "發": "F", "发": "F"}
# Flower and season names (HK numbering: plum 1 … chrysanthemum 4, spring 1 … winter 4) in the project's ids.
NAMED = {"梅": "a", "蘭": "b", "兰": "b", "竹": "c", "菊": "d", "春": "e", "夏": "f", "秋": "g", "冬": "h"}


def tile_of_text(text: str) -> str | None:
    """The tile id a recognised text names, or None. A numeral needs 萬 beside it: a lone corner numeral 1-4 could be
    a flower or a season, and a lone 萬 any character tile, so neither is an opinion."""
    chars = [c for c in text if not c.isspace()]
    if any(c in CHARACTER_SUIT for c in chars):
        numbers = {NUMERALS[c] for c in chars if c in NUMERALS}
        return f"{numbers.pop()}m" if len(numbers) == 1 else None
    named = {HONOURS.get(c) or NAMED.get(c) for c in chars} - {None}
    return named.pop() if len(named) == 1 else None


def ctc_greedy(probs: np.ndarray, characters: Sequence[str]) -> tuple[str, float]:
    """Greedy CTC decode of one (T, C) probability row set, index 0 the blank and index i ≥ 1 `characters[i - 1]`
    (an index past the list, the export's trailing space, reads as a space): the text and the mean probability of
    its characters (0.0 for no text)."""
    best = probs.argmax(axis=1)
    keep = np.ones(len(best), bool)
    keep[1:] = best[1:] != best[:-1]
    keep &= best != 0
    if not keep.any():
        return "", 0.0
    text = "".join(characters[i - 1] if i - 1 < len(characters) else " " for i in best[keep])
    return text, float(probs[keep, best[keep]].mean())


def prepare(crop: np.ndarray) -> np.ndarray:
    """(3, 48, W) float32 in [-1, 1] of a BGR uint8 crop: height 48, width by aspect (at least `MIN_WIDTH`, black
    padding on the right), channels as cv2 decodes them, which is what PP-OCR's own pipeline feeds its recogniser."""
    height, width = crop.shape[:2]
    resized_width = max(1, round(width * INPUT_HEIGHT / height))
    resized = cv2.resize(crop, (resized_width, INPUT_HEIGHT), interpolation=cv2.INTER_AREA)
    x = np.zeros((3, INPUT_HEIGHT, max(resized_width, MIN_WIDTH)), np.float32)
    x[:, :, :resized_width] = resized.transpose(2, 0, 1).astype(np.float32) / 127.5 - 1.0
    return x


def views(crop: np.ndarray) -> list[np.ndarray]:
    """The whole crop, its upper and lower halves, and the square at its centre: a character tile has its numeral
    above 萬, which the recogniser reads better apart than as one stacked block, and a tall tile's one big glyph
    (an honour) shrinks to a few pixels when the whole narrow crop is brought to height 48."""
    height, width = crop.shape[:2]
    middle = max(0, (height - width) // 2)
    return [crop, crop[: height // 2], crop[height // 2:], crop[middle: middle + width]]


class SecondReader:
    """The text recogniser loaded once; `read` gives a crop's (tile id, score) or (None, 0.0)."""

    def __init__(self, model_path: str | Path | None = None, threads: int | None = 1) -> None:
        model = open_model(Path(model_path) if model_path is not None else DEFAULT_MODEL, "text recogniser", threads)
        self.path, self.session = model.path, model.session
        if "character" not in model.metadata:
            raise FanscanError(f"{self.path}: not a PP-OCR text recogniser (metadata lacks character)")
        self.characters = model.metadata["character"].splitlines()
        self.input_name = self.session.get_inputs()[0].name

    def texts(self, crop: np.ndarray) -> list[tuple[str, float]]:
        """(text, score) of each of the crop's `views`."""
        crop = np.asarray(crop)
        if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 2:
            raise FanscanError(f"second reader: expected an H x W x 3 BGR crop, got shape {crop.shape}")
        out = []
        for view in views(crop):
            probs = self.session.run(None, {self.input_name: prepare(view)[None]})[0][0]
            out.append(ctc_greedy(probs, self.characters))
        return out

    def read(self, crop: np.ndarray) -> tuple[str | None, float]:
        """The tile the crop's writing names and the recogniser's score for it: of the views that name a tile (and
        the upper and lower halves read together, numeral above 萬), the one read with the highest score; (None, 0.0)
        for no opinion."""
        (whole, whole_score), (upper, upper_score), (lower, lower_score), (centre, centre_score) = self.texts(crop)
        opinions = [(tile_of_text(text), score) for text, score in
                    ((whole, whole_score), (upper, upper_score), (lower, lower_score), (centre, centre_score),
                     (upper + lower, min(upper_score, lower_score)))]
        named = [(tile, score) for tile, score in opinions if tile is not None]
        return max(named, key=lambda opinion: opinion[1]) if named else (None, 0.0)


# A crop is asked about when the classifier's best probability is under `DOUBTFUL`, and the recogniser's reading is
# taken when its score is at least `SURE`: the bars of the throwaway trial of issue 19 (never wrong at score >= 0.9
# on 446 crops of two unseen sets). On the two shared sets no pair of bars tried (doubtful 0.5-0.97, sure 0.8-0.95)
# changed a ground-truth crop's reading: their classifier errors are mostly dots, bamboo, white dragons and
# decorative flowers, which carry no writing it reads.
DOUBTFUL = 0.9
SURE = 0.9


def second_opinions(reader, crops: Sequence[np.ndarray], readings: Sequence[Sequence[tuple[str, float]]],
                    turns: Sequence[int], doubtful: float = DOUBTFUL,
                    sure: float = SURE) -> list[list[tuple[str, float]]]:
    """The readings with the recogniser's tile put first where the classifier doubts (top probability under
    `doubtful`) and the recogniser is sure (score ≥ `sure`); it takes the recogniser's score (or the classifier's top
    probability, if higher) as its probability, and the classifier's other candidates follow (the grouping stage
    still sees them). Crops read turned are turned back first (the recogniser reads upright writing)."""
    out = [list(r) for r in readings]
    for i, reading in enumerate(readings):
        if not reading or reading[0][1] >= doubtful:
            continue
        crop = np.asarray(crops[i])
        if turns[i]:
            crop = np.ascontiguousarray(np.rot90(crop, -(turns[i] // 90) % 4))
        tile, score = reader.read(crop)
        if tile is None or score < sure:
            continue
        others = [(t, p) for t, p in reading if t != tile]
        out[i] = [(tile, max(score, reading[0][1])), *others[: max(0, len(reading) - 1)]]
    return out
