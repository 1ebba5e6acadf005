"""Set profiles: the classifier's last layer fitted to one person's tiles (`fanscan calibrate`), and how it is applied.

A profile stores a correction of the shipped head, not a new head: logits = shipped logits + embedding @ dW.T + db
(the same as swapping the last layer for W0 + dW, b0 + db, since the head is linear). Rows of `back` and `none` are
never changed, and at inference their probability comes from the shipped head (the "gate"): a profile fitted on
tile crops alone would otherwise call a background crop a tile. The same holds for tile kinds the profile learned
nothing about (`moved`: the kinds of its calibration crops and the kinds the shipped head read those crops as; all
tile kinds when None, as in older profiles): a profile built from one hand's 7 kinds must not read every other tile
as one of them. The moved kinds share what is left, by the profile's logits averaged over the crop and the crop
turned 180 degrees (tiles lie either way up).

File: one .npz holding `delta_weight` (classes x embedding), `delta_bias` (classes) and `meta`, a JSON string with
the set's name, source, creation date, the sha256 of the base classifier file, the class list, the measured
cross-validated accuracy (`fanscan.calibration.fit`) and the crop zoom: how much closer than the shipped head's crop
this set's tiles are read (`vision.crops.zoom_crop`; chosen by the fit from the set's own tiles, 1 in older files).
A profile built for another classifier file is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from fanscan.scoring.errors import FanscanError

FORMAT = "fanscan-set-profile"
VERSION = 1
GATE_CLASSES = ("back", "none")
MAX_CROP_ZOOM = 2.0  # a profile's crop zoom beyond this is a damaged file, not a set's looser boxes


@dataclass(frozen=True)
class SetProfile:
    """A fitted head correction for one tile set (see the module doc)."""

    name: str
    source: str
    created: str
    base_model_sha256: str
    classes: tuple[str, ...]
    delta_weight: np.ndarray  # (len(classes), embedding size)
    delta_bias: np.ndarray  # (len(classes),)
    leave_one_out_accuracy: float | None = None
    details: dict = field(default_factory=dict)
    path: Path | None = None
    moved: tuple[str, ...] | None = None  # the tile kinds the profile re-reads (None: every tile kind)
    crop_zoom: float = 1.0  # every crop is read zoomed in this much (`vision.crops.zoom_crop`; older profiles: 1)

    def moved_indices(self) -> np.ndarray | None:
        return None if self.moved is None else np.array([self.classes.index(c) for c in self.moved], np.int64)

    def meta(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "name": self.name, "source": self.source,
                "created": self.created, "base_model_sha256": self.base_model_sha256, "classes": list(self.classes),
                "leave_one_out_accuracy": self.leave_one_out_accuracy, "details": self.details,
                "moved_classes": list(self.moved) if self.moved is not None else None, "crop_zoom": self.crop_zoom}


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def profile_bytes(profile: SetProfile) -> bytes:
    """The profile file's bytes (`fanscan.calibration.profile_file.save_profile` writes them whole)."""
    buffer = io.BytesIO()
    np.savez(buffer, delta_weight=profile.delta_weight.astype(np.float32),
             delta_bias=profile.delta_bias.astype(np.float32), meta=np.array(json.dumps(profile.meta())))
    return buffer.getvalue()


def load_profile(path: str | Path) -> SetProfile:
    """Read a profile file; anything unreadable or inconsistent is a one-line FanscanError."""
    path = Path(path)
    if not path.is_file():
        raise FanscanError(f"{path}: profile file not found")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            weight = np.asarray(data["delta_weight"], np.float32)
            bias = np.asarray(data["delta_bias"], np.float32)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as error:
        raise FanscanError(f"{path}: not a readable fanscan set profile ({type(error).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise FanscanError(f"{path}: not a fanscan set profile (format {meta.get('format')!r})"
                           if isinstance(meta, dict) else f"{path}: not a fanscan set profile")
    if meta.get("version") != VERSION:
        raise FanscanError(f"{path}: profile format version {meta.get('version')} (this fanscan reads {VERSION})")
    classes = tuple(str(c) for c in meta.get("classes") or ())
    if weight.ndim != 2 or weight.shape[0] != len(classes) or bias.shape != (len(classes),) or not classes:
        raise FanscanError(f"{path}: damaged profile (weights {weight.shape} and {bias.shape} for "
                           f"{len(classes)} classes)")
    if not (np.all(np.isfinite(weight)) and np.all(np.isfinite(bias))):
        raise FanscanError(f"{path}: damaged profile (weights are not finite numbers)")
    loo = meta.get("leave_one_out_accuracy")
    moved = meta.get("moved_classes")
    if moved is not None and (not isinstance(moved, list) or not set(map(str, moved)) <= set(classes)
                              or set(map(str, moved)) & set(GATE_CLASSES)):
        raise FanscanError(f"{path}: damaged profile (moved_classes is not a list of its tile classes)")
    zoom = meta.get("crop_zoom", 1.0)
    if not isinstance(zoom, (int, float)) or isinstance(zoom, bool) or not 1.0 <= zoom <= MAX_CROP_ZOOM:
        raise FanscanError(f"{path}: damaged profile (crop_zoom {zoom!r} is not a number from 1 to {MAX_CROP_ZOOM})")
    return SetProfile(str(meta.get("name", "")), str(meta.get("source", "")), str(meta.get("created", "")),
                      str(meta.get("base_model_sha256", "")), classes, weight, bias,
                      float(loo) if loo is not None else None, dict(meta.get("details") or {}), path,
                      tuple(str(c) for c in moved) if moved is not None else None, float(zoom))


def check_profile(profile: SetProfile, model_path: Path, model_sha256: str, classes: tuple[str, ...],
                  embedding_size: int) -> None:
    """Refuse a profile that was not built for this classifier file."""
    where = profile.path or profile.name
    if profile.base_model_sha256 != model_sha256:
        raise FanscanError(f"{where}: profile built for another classifier (sha256 {profile.base_model_sha256[:12]}, "
                           f"{model_path.name} is {model_sha256[:12]}); run fanscan calibrate again")
    if profile.classes != classes or profile.delta_weight.shape[1] != embedding_size:
        raise FanscanError(f"{where}: profile classes or embedding size do not match {model_path.name}")


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def gate_indices(classes: tuple[str, ...], moved: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the classes the profile re-reads (`moved`; by default every tile class) and of the others, which
    the shipped head decides (the gate: back, none, and tile kinds the profile knows nothing of)."""
    if moved is None:
        moved = np.array([i for i, c in enumerate(classes) if c not in GATE_CLASSES], np.int64)
    inside = np.zeros(len(classes), bool)
    inside[moved] = True
    return np.flatnonzero(inside), np.flatnonzero(~inside)


def profiled_probabilities(shipped_logits: np.ndarray, embeddings: np.ndarray, turned_logits: np.ndarray,
                           turned_embeddings: np.ndarray, delta_weight: np.ndarray, delta_bias: np.ndarray,
                           classes: tuple[str, ...], moved: np.ndarray | None = None) -> np.ndarray:
    """Probabilities with a profile: back/none (and the kinds not `moved`) from the shipped head on the crop as it
    is; the moved kinds share the rest by the corrected logits averaged over the crop and its 180-degree turn."""
    tiles, gate = gate_indices(classes, moved)
    shipped = softmax(shipped_logits.astype(np.float64))
    corrected = (shipped_logits + embeddings @ delta_weight.T + delta_bias
                 + turned_logits + turned_embeddings @ delta_weight.T + delta_bias) / 2
    tile_probs = softmax(corrected[:, tiles].astype(np.float64))
    gated = shipped[:, gate].sum(axis=1, keepdims=True)
    out = np.zeros_like(shipped)
    out[:, tiles] = tile_probs * (1.0 - gated)
    out[:, gate] = shipped[:, gate]
    return out.astype(np.float32)
