"""Anchors: familiar tiles every profile fit also reads, so that a fit may move freely only where it keeps them right.

A profile from one photo a tile sees one crop (and its views) of each kind. A free head fitted on those alone reads
another maker's set best (riichi-table-leomiura, other scenes: 0.995 at one photo a tile), but on a mix of
familiar sets it learns one set's look of a kind and forgets the others' (the composited development construction
falls 0.97 -> 0.88). Until now a guard (`fit.REACH`) kept fits near the shipped head when the shipped head read the
calibration tiles almost right, which also held back strangers' sets that it reads almost right.

An anchor is a labelled tile of the classifier's *training* split (chinese-mahjong-v4 `train`, never a development
or test session), read by the profile classifier at each crop zoom a fit may choose (`fit.CROP_ZOOMS`): its logits
and embedding, stored beside the classifier (`models/tile_classifier_profiles_anchors.npz`, built by
`python -m fanscan.training.build_profile_anchors`). Every fit reads the anchors of the kinds it moves with, in all,
the weight of the set's own crops (`fit.ANCHOR_WEIGHT`): a correction that reads the set's own tiles right *and*
keeps the familiar looks of those kinds right is what the fit finds.

The file is keyed by the sha256 of the classifier it was read with: for any other classifier file there are no
anchors, and the fit keeps the older rules (`fit.REACH`).
"""

from __future__ import annotations

import functools
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fanscan import models
from fanscan.scoring.errors import FanscanError

FORMAT = "fanscan-profile-anchors"
VERSION = 1
ANCHORS_FILE = "tile_classifier_profiles_anchors.npz"
MAX_ANCHORS_BYTES = 64 << 20  # the shipped file is a few MB; a larger one is not an anchors file
MAX_ANCHORS = 20_000


@dataclass(frozen=True)
class Anchors:
    """Per crop zoom: the anchors' logits (anchors x classes) and embeddings (anchors x features); their class
    indices (into `classes`)."""

    classifier_sha256: str
    classes: tuple[str, ...]
    zooms: tuple[float, ...]
    labels: np.ndarray
    logits: np.ndarray  # (zooms, anchors, classes)
    embeddings: np.ndarray  # (zooms, anchors, features)
    photos: tuple[str, ...] = ()  # the image each anchor was cut from (what a reader can check the split of)

    def at_zoom(self, zoom: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(logits, embeddings, labels) read at `zoom`, as float32; None when the anchors were not read at it."""
        for i, z in enumerate(self.zooms):
            if abs(z - zoom) < 1e-6:
                return self.logits[i].astype(np.float32), self.embeddings[i].astype(np.float32), self.labels
        return None


def anchors_path() -> Path:
    return models.model_path(ANCHORS_FILE)


def save_anchors(path: str | Path, anchors: Anchors) -> None:
    meta = {"format": FORMAT, "version": VERSION, "classifier_sha256": anchors.classifier_sha256,
            "classes": list(anchors.classes), "zooms": list(anchors.zooms), "photos": list(anchors.photos)}
    np.savez_compressed(Path(path), meta=np.array(json.dumps(meta)), labels=anchors.labels.astype(np.int16),
                        logits=anchors.logits.astype(np.float16), embeddings=anchors.embeddings.astype(np.float16))


def read_anchors(path: str | Path) -> Anchors:
    """The anchors file at `path`, checked (one-line `FanscanError` when it is not a sound anchors file)."""
    path = Path(path)
    where = f"anchors file {path}"
    if path.stat().st_size > MAX_ANCHORS_BYTES:
        raise FanscanError(f"{where}: {path.stat().st_size} bytes, more than an anchors file holds")
    try:
        with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as npz:
            meta = json.loads(str(npz["meta"]))
            labels, logits, embeddings = npz["labels"], npz["logits"], npz["embeddings"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, EOFError) as error:
        raise FanscanError(f"{where}: not a readable anchors file ({type(error).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise FanscanError(f"{where}: not a {FORMAT} file of version {VERSION}")
    classes, zooms = tuple(meta.get("classes") or ()), tuple(float(z) for z in meta.get("zooms") or ())
    if (labels.ndim != 1 or logits.ndim != 3 or embeddings.ndim != 3 or not 0 < len(labels) <= MAX_ANCHORS
            or logits.shape[:2] != (len(zooms), len(labels)) or embeddings.shape[:2] != logits.shape[:2]
            or logits.shape[2] != len(classes) or not classes):
        raise FanscanError(f"{where}: arrays of the wrong shapes (labels {labels.shape}, logits {logits.shape}, "
                           f"embeddings {embeddings.shape}, {len(classes)} classes, {len(zooms)} zooms)")
    if not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= len(classes):
        raise FanscanError(f"{where}: labels outside the {len(classes)} classes")
    if not (np.isfinite(logits).all() and np.isfinite(embeddings).all()):
        raise FanscanError(f"{where}: NaN or infinite values in the logits or embeddings")
    photos = tuple(str(p) for p in meta.get("photos") or ())
    if photos and len(photos) != len(labels):
        raise FanscanError(f"{where}: {len(photos)} photo names for {len(labels)} anchors")
    return Anchors(str(meta.get("classifier_sha256", "")), classes, zooms, labels.astype(np.int64), logits,
                   embeddings, photos)


@functools.lru_cache(maxsize=4)
def _anchors_for(sha256: str, path: Path, size: int, modified_ns: int) -> Anchors | None:
    anchors = read_anchors(path)
    return anchors if anchors.classifier_sha256 == sha256 else None


def classifier_anchors(classifier) -> Anchors | None:
    """The shipped anchors of `classifier` (a `TileClassifier`): None unless they were read with that very file (by
    sha256) and its classes are theirs. Read once a process for as long as the anchors file stays as it was."""
    path = anchors_path()
    if not path.is_file():
        return None
    stat = path.stat()
    anchors = _anchors_for(classifier.sha256, path.resolve(), stat.st_size, stat.st_mtime_ns)
    if anchors is None or anchors.classes != tuple(classifier.classes):
        return None
    return anchors
