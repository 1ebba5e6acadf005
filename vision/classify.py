"""Label tile crops with the shipped ONNX classifier (onnxruntime): top-k tile ids with probabilities.

    classifier = TileClassifier()                       # models/tile_classifier.onnx
    crops = crop_tiles(image_bgr, quads, classifier.crop_spec)
    for top in classifier.classify(crops, k=3):         # [[("5p", 0.98), ("6p", 0.01), ("none", 0.004)], ...]
        ...

Classes, input size, crop margin and normalisation are read from the model's metadata, never assumed: a model
trained with another class list or input size works unchanged. Besides the tile ids (`1m`..`h`) the model may
answer `back` (a face-down tile) and `none` (not a tile).

`TileClassifier(profile=...)` applies a set profile of `fanscan calibrate` (`vision.profile`): the model must have
the `embedding` output, and the profile must have been built for this very model file. Without a model path it is
the shipped file the profile names (`model_for_profile`): profiles are built on `PROFILE_MODEL` (its embedding
learns another maker's set from one photo a tile better: models/tile_classifier.md), older ones on `DEFAULT_MODEL`,
and either reads with the file it was built for. Without a profile the shipped reading is `DEFAULT_MODEL`'s.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from fanscan.scoring.errors import FanscanError
from fanscan.vision.crops import CropSpec, zoom_crop
from fanscan.vision.letterbox import letterbox, normalised_blob
from fanscan.vision.onnx_model import json_floats, open_model
from fanscan.vision.profile import SetProfile, check_profile, file_sha256, load_profile, profiled_probabilities

from fanscan import models

DEFAULT_MODEL = models.model_path(models.CLASSIFIER)
PROFILE_MODEL = models.model_path(models.PROFILE_CLASSIFIER)  # what `fanscan calibrate` and `--learn` build on
# The two answers that are not a tile id: a face-down tile, and not a tile at all (felt, wood, a tile's side, a
# sliver of a neighbour, a gap). Training's class list and grouping both take them from here.
BACK = "back"
NONE = "none"
REQUIRED_KEYS = ("classes", "input_width", "input_height", "mean", "std", "pixel_scale", "channel_order")
# A batch is split into parts run side by side only when each part gets at least this many crops: below it the
# handing over costs more than a part saves.
MIN_CROPS_PER_PART = 4


@dataclass(frozen=True)
class ClassifierInfo:
    """What the classifier's metadata says about it."""

    classes: tuple[str, ...]
    width: int
    height: int
    pad: float
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    pixel_scale: float
    channel_order: str


def _parse_info(meta: dict[str, str]) -> ClassifierInfo:
    return ClassifierInfo(tuple(str(c) for c in json.loads(meta["classes"])), int(meta["input_width"]),
                          int(meta["input_height"]), float(meta.get("crop_pad", "0.08")),
                          json_floats(meta["mean"]), json_floats(meta["std"]),  # type: ignore[arg-type]
                          float(meta["pixel_scale"]), meta["channel_order"].upper())


def model_for_profile(profile: SetProfile) -> Path:
    """The shipped classifier file `profile` was built for (by its sha256): `PROFILE_MODEL`, or `DEFAULT_MODEL` for
    a profile built on it before profiles had their own file; `PROFILE_MODEL` when neither is (the profile is then
    refused, as built for another classifier)."""
    for path in (PROFILE_MODEL, DEFAULT_MODEL):
        if path.is_file() and model_sha256(path) == profile.base_model_sha256:
            return path
    return PROFILE_MODEL


def model_sha256(path: str | Path) -> str:
    """A model file's sha256, hashed once a process for as long as the file stays as it was: keyed by its resolved
    path, size and modification time, so that a file rewritten in place (`fanscan train`'s output) is hashed again.
    `model_for_profile` asks on every profiled load, and the classifier it opens asks again (`check_profile`)."""
    resolved = Path(path).resolve()
    stat = resolved.stat()
    return _sha256_of(resolved, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _sha256_of(path: Path, size: int, modified_ns: int) -> str:
    return file_sha256(path)


def learning_classifier(profile: str | Path, threads: int | None = 1) -> TileClassifier:
    """The classifier a profile file learns with (`fanscan calibrate --remove`, `--learn`): the one it was built for
    and reads with when it exists, else `PROFILE_MODEL` (a profile about to be created)."""
    return TileClassifier(threads=threads, profile=profile) if Path(profile).exists() else \
        _classifier_without_profile(PROFILE_MODEL, threads)


def shipped_reader_beside(classifier: TileClassifier, threads: int | None = 1) -> TileClassifier | None:
    """The shipped reader (`DEFAULT_MODEL`, what reads without a profile) when `classifier` is another file, to say
    how a calibration's crops read without the profile; None when `classifier` is that file."""
    if Path(classifier.path).resolve() == DEFAULT_MODEL.resolve():
        return None
    return _classifier_without_profile(DEFAULT_MODEL, threads)


@functools.cache
def _classifier_without_profile(path: Path, threads: int | None) -> TileClassifier:
    """One classifier of a shipped file, never given a profile, a process per file and thread count, for what is
    asked on every confirmed photo: the shipped reader `--learn` compares with (`shipped_reader_beside`), and
    `PROFILE_MODEL` while a new profile has no file yet (`learning_classifier`; a profile file's own classifier is
    not cached: the file changes as it learns)."""
    return TileClassifier(path, threads=threads)


class TileClassifier:
    """An ONNX tile classifier loaded once, applied to batches of crops."""

    def __init__(self, model_path: str | Path | None = None, threads: int | None = 1,
                 profile: SetProfile | str | Path | None = None, one_call_at_a_time: bool = False) -> None:
        """`threads`: how many cores one call may use (None: all of them). A batch of crops is split into that many
        parts, run side by side, each on the calling or a pool thread with one onnxruntime thread: the crops are
        independent, and parts beat onnxruntime's own intra-op threads on layers this small (on 2 cores a hand's
        14 crops: 0.55x the time of one thread, against 0.62x with two intra-op threads;
        `benchmarks/classifier_speed.py`). One by default: a batch runs one photo a core, and the server several
        photos at once (`vision.pipeline.Pipeline`). `profile`: a set profile (or its file) to apply; see
        `vision.profile`. `one_call_at_a_time`: calls from several threads run one after another
        (`onnx_model.OneCallAtATime`; the parts of one call too, so it suits `threads` 1).
        """
        if profile is not None and not isinstance(profile, SetProfile):
            profile = load_profile(profile)
        if model_path is None:
            model_path = model_for_profile(profile) if profile is not None else DEFAULT_MODEL
        model = open_model(Path(model_path), "classifier", 1, one_call_at_a_time)
        self.parts = max(1, threads if threads is not None else (os.cpu_count() or 1))
        self._pool: ThreadPoolExecutor | None = None
        self.path, self.session = model.path, model.session
        path = model.path
        self.info = model.read_info("tile classifier", REQUIRED_KEYS, _parse_info)
        if (len(self.info.mean) != 3 or len(self.info.std) != 3 or self.info.channel_order not in ("BGR", "RGB")
                or not self.info.classes):
            raise FanscanError(f"{path}: classifier metadata has a bad mean/std/channel order/class list")
        inputs, outputs = self.session.get_inputs(), self.session.get_outputs()
        if len(inputs) != 1 or len(outputs) < 1:
            raise FanscanError(f"{path}: expected one input and one output, got {len(inputs)} and {len(outputs)}")
        shape = inputs[0].shape
        if len(shape) != 4 or shape[1] != 3 or shape[2] != self.info.height or shape[3] != self.info.width:
            raise FanscanError(f"{path}: input shape {shape} does not match the metadata's "
                               f"{self.info.width}x{self.info.height} 3-channel input")
        out_shape = outputs[0].shape
        if len(out_shape) != 2 or (isinstance(out_shape[1], int) and out_shape[1] != len(self.info.classes)):
            raise FanscanError(f"{path}: output shape {out_shape} does not match {len(self.info.classes)} classes")
        self.input_name = inputs[0].name
        self.logits_name = outputs[0].name
        self.embedding_name = next((o.name for o in outputs if o.name == "embedding"), None)
        self.profile: SetProfile | None = None
        if profile is not None:
            self.use_profile(profile)

    def use_profile(self, profile: SetProfile | str | Path) -> None:
        """Read with `profile` from now on (a server that learns swaps in each refitted one); it must have been
        built for this model file. One assignment: a reading in another thread sees the old or the new one."""
        loaded = profile if isinstance(profile, SetProfile) else load_profile(profile)
        if self.embedding_name is None:
            raise FanscanError(f"{self.path}: this classifier has no 'embedding' output, so a set profile cannot be "
                               f"applied (python -m fanscan.training.embedding_output adds it)")
        size = next(o.shape[1] for o in self.session.get_outputs() if o.name == self.embedding_name)
        check_profile(loaded, self.path, self.sha256, self.info.classes,
                      size if isinstance(size, int) else loaded.delta_weight.shape[1])
        self.profile = loaded

    @property
    def sha256(self) -> str:
        """The model file's sha256 (what a set profile is tied to), as it was when first asked."""
        if not hasattr(self, "_sha256"):
            self._sha256 = model_sha256(self.path)
        return self._sha256

    @property
    def classes(self) -> tuple[str, ...]:
        return self.info.classes

    @property
    def crop_spec(self) -> CropSpec:
        """How `vision.crops` must cut tiles for this model."""
        return CropSpec(width=self.info.width, height=self.info.height, pad=self.info.pad)

    def _prepare(self, crops: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
        batch = []
        for i, crop in enumerate(crops):
            crop = np.asarray(crop)
            if crop.ndim == 2:
                crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
            if crop.ndim != 3 or crop.shape[2] != 3:
                raise FanscanError(f"crop {i}: expected an H x W x 3 BGR image, got shape {crop.shape}")
            if crop.shape[:2] != (self.info.height, self.info.width):
                # Not cut with `crop_spec`: fit it without stretching (uniform scale, grey bars).
                crop, _ = letterbox(crop, self.info.width, self.info.height)
            batch.append(crop)
        return normalised_blob(batch, self.info.mean, self.info.std, self.info.channel_order, self.info.pixel_scale)

    def logits_and_embeddings(self, crops: np.ndarray | Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(N, classes) logits of the shipped head and (N, D) embeddings (the head's input) for N uint8 BGR crops."""
        if self.embedding_name is None:
            raise FanscanError(f"{self.path}: this classifier has no 'embedding' output")
        if len(crops) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 0), np.float32)
        logits, embeddings = self._run([self.logits_name, self.embedding_name], self._prepare(crops))
        return logits, embeddings

    def _run(self, outputs: list[str], blob: np.ndarray) -> list[np.ndarray]:
        """The session's `outputs` for a batch blob, in up to `parts` parts run side by side (onnxruntime releases
        the GIL; a session may run several calls at once), joined in order."""
        parts = min(self.parts, len(blob) // MIN_CROPS_PER_PART)
        if parts <= 1:
            return self.session.run(outputs, {self.input_name: blob})
        if self._pool is None:  # a race here costs at most a second idle pool
            self._pool = ThreadPoolExecutor(self.parts - 1, thread_name_prefix="fanscan-classify")
        chunks = np.array_split(blob, parts)
        later = [self._pool.submit(self.session.run, outputs, {self.input_name: chunk}) for chunk in chunks[1:]]
        first = self.session.run(outputs, {self.input_name: chunks[0]})  # this thread reads a part too
        results = [first, *(future.result() for future in later)]
        return [np.concatenate([r[i] for r in results]) for i in range(len(outputs))]

    def probabilities(self, crops: np.ndarray | Sequence[np.ndarray]) -> np.ndarray:
        """(N, len(classes)) softmax probabilities for N uint8 BGR crops (with the set profile, when there is one)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        profile = self.profile  # once: a learning server may swap it meanwhile
        if profile is not None:
            crops = [zoom_crop(np.asarray(c), profile.crop_zoom) for c in crops]
            turned = [np.ascontiguousarray(np.asarray(c)[::-1, ::-1]) for c in crops]  # 180 degrees
            logits, embeddings = self.logits_and_embeddings(crops + turned)
            n = len(crops)
            return profiled_probabilities(logits[:n], embeddings[:n], logits[n:], embeddings[n:],
                                          profile.delta_weight, profile.delta_bias, self.classes,
                                          profile.moved_indices())
        logits = self._run([self.logits_name], self._prepare(crops))[0].astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)

    def classify(self, crops: np.ndarray | Sequence[np.ndarray], k: int = 3) -> list[list[tuple[str, float]]]:
        """For each crop, its top-k (class, probability) pairs, most likely first."""
        if k < 1:
            raise FanscanError(f"top-k needs k >= 1, got {k}")
        probs = self.probabilities(crops)
        k = min(k, len(self.classes))
        order = np.argsort(-probs, axis=1)[:, :k]
        return [[(self.classes[j], float(row[j])) for j in idx] for row, idx in zip(probs, order, strict=True)]
