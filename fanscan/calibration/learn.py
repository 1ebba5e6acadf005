"""A profile's own data and history, so it can learn as you play (`--learn PROFILE`) and forget a bad confirmation.

Beside `my-set.npz` lies `my-set.learn/`: `history.jsonl`, one line per entry (a `fanscan calibrate` run or a
confirmed photo: its number, what it was, the photo's sha256, the time, its tiles, which of them the model had
read wrong), and one `entry-N.npz` per entry holding its tiles' embedded crops (`calibration.fit.Embedded`). A refit
joins every entry's crops and fits the profile again (`calibration.fit`), so removing an entry and refitting gives the
profile as if that photo had never been confirmed.

A fix always outranks the model: a tile whose confirmed reading the profile in use read otherwise is a hard
example. Its crops count `FIX_WEIGHT` times in the fit, and the refit moves further from the shipped head (to the next
weaker penalty, down to the free head) until every such tile's own crop reads as confirmed.

Every file is written whole (`fanscan.labels.atomic`): the entry's crops first, then the history, then the profile, so
a crash leaves at worst an entry file no history line names (ignored, and replaced by the next entry of its number).
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from fanscan.calibration.fit import (
    Embedded,
    FitSettings,
    embed,
    fit_delta,
    fit_embedded,
    moved_classes,
    pull_toward_prototypes,
    read_rows,
    reads_as_labelled,
    with_anchors,
)
from fanscan.calibration.profile_file import check_profile_path as check_profile_file
from fanscan.calibration.profile_file import save_profile
from fanscan.calibration.sources import CalibrationTile
from fanscan.labels.atomic import write_bytes, write_text
from fanscan.scoring.errors import FanscanError
from fanscan.vision.profile import GATE_CLASSES, SetProfile, file_sha256

HISTORY = "history.jsonl"
# One writer of a history at a time in this process (a server's requests run in threads).
HISTORY_LOCK = threading.RLock()
FIX_WEIGHT = 4.0  # how much more a tile the user fixed counts in the fit than one the model read right
LEARN_VIEWS = 16  # augmented views per tile of a confirmed photo (a hand has 14-18 tiles: the refit stays quick)
LEARN_SETTINGS = FitSettings(views=LEARN_VIEWS)
REFIT_SETTINGS = FitSettings()
ARRAYS = ("logits", "embeddings", "labels", "tile_index", "plain", "turned_logits", "turned_embeddings", "weights")


def data_folder(profile: str | Path) -> Path:
    """Where a profile's data and history live: `my-set.npz` -> `my-set.learn/`."""
    profile = Path(profile)
    return profile.with_name(f"{profile.stem}.learn")


@dataclass
class Entry:
    """One history line: a calibration run or a confirmed photo."""

    number: int
    kind: str  # "calibrate" or "photo"
    source: str
    time: str
    tiles: list[str]
    hard: list[int] = field(default_factory=list)  # indices into `tiles` the model had read wrong
    photo_sha256: str | None = None
    photos: list[str] = field(default_factory=list)  # the photo of each tile (cross-validation folds are photos)

    @property
    def file(self) -> str:
        return f"entry-{self.number}.npz"

    def line(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    def summary(self) -> str:
        hard = f", {len(self.hard)} fixed" if self.hard else ""
        sha = f" sha256 {self.photo_sha256[:12]}" if self.photo_sha256 else ""
        return f"{self.number}  {self.time}  {self.kind} {self.source}{sha}: {len(self.tiles)} tiles{hard}"


def check_profile_path(profile: str | Path) -> Path:
    profile = check_profile_file(profile)
    folder = data_folder(profile)
    if folder.exists() and not folder.is_dir():
        raise FanscanError(f"{folder}: not a folder (it holds the profile's data)")
    return profile


def read_history(profile: str | Path) -> list[Entry]:
    """The entries of a profile's history, oldest first (none for a profile without data); a bad line is a one-line
    error naming it."""
    path = data_folder(profile) / HISTORY
    if not path.exists():
        return []
    entries = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise FanscanError(f"{path}: cannot read the profile's history ({type(error).__name__})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values = json.loads(line)
            entry = Entry(int(values["number"]), str(values["kind"]), str(values["source"]), str(values["time"]),
                          [str(t) for t in values["tiles"]], [int(i) for i in values.get("hard", [])],
                          values.get("photo_sha256"), [str(p) for p in values.get("photos", [])])
        except (ValueError, KeyError, TypeError) as error:
            raise FanscanError(f"{path}:{number}: not a history line ({type(error).__name__})") from None
        entries.append(entry)
    return entries


def write_history(profile: str | Path, entries: Sequence[Entry]) -> None:
    write_text(data_folder(profile) / HISTORY, "".join(e.line() + "\n" for e in entries))


def save_entry_data(profile: str | Path, entry: Entry, data: Embedded) -> None:
    buffer = io.BytesIO()
    weights = data.weights if data.weights is not None else np.ones(len(data.labels), np.float32)
    extra = {"reader_right": data.reader_right} if data.reader_right is not None else {}
    np.savez(buffer, **{name: getattr(data, name) if name != "weights" else weights for name in ARRAYS},
             crop_zoom=np.float64(data.crop_zoom), **extra)
    write_bytes(data_folder(profile) / entry.file, buffer.getvalue())


def load_entry_data(profile: str | Path, entry: Entry) -> Embedded:
    path = data_folder(profile) / entry.file
    try:
        with np.load(path, allow_pickle=False) as stored:
            zoom = float(stored["crop_zoom"]) if "crop_zoom" in stored.files else 1.0  # older entries: 1
            reader = np.asarray(stored["reader_right"], bool) if "reader_right" in stored.files else None
            return Embedded(*(np.asarray(stored[name]) for name in ARRAYS), crop_zoom=zoom, reader_right=reader)
    except (OSError, ValueError, KeyError, EOFError) as error:
        raise FanscanError(f"{path}: the data of history entry {entry.number} cannot be read "
                           f"({type(error).__name__}); remove it with fanscan calibrate --remove {entry.number} "
                           f"{profile}") from None


def join(parts: Sequence[Embedded]) -> Embedded:
    """Several entries' crops as one set: tile numbers and plain-crop indices shifted. Their crops must have been
    read at one crop zoom (a profile keeps the zoom its calibration chose: `add_entry`)."""
    zooms = sorted({p.crop_zoom for p in parts})
    if len(zooms) > 1:
        listed = ", ".join(f"{z:g}" for z in zooms)
        raise FanscanError(f"the history's entries were read at different crop zooms ({listed}); remove the "
                           f"entries of one (fanscan calibrate --remove) or calibrate again")
    tile_offsets = np.cumsum([0] + [len(p.plain) for p in parts])[:-1]
    row_offsets = np.cumsum([0] + [len(p.labels) for p in parts])[:-1]
    return Embedded(np.concatenate([p.logits for p in parts]), np.concatenate([p.embeddings for p in parts]),
                    np.concatenate([p.labels for p in parts]),
                    np.concatenate([p.tile_index + t for p, t in zip(parts, tile_offsets, strict=True)]),
                    np.concatenate([p.plain + r for p, r in zip(parts, row_offsets, strict=True)]),
                    np.concatenate([p.turned_logits for p in parts]),
                    np.concatenate([p.turned_embeddings for p in parts]),
                    np.concatenate([p.weights if p.weights is not None else np.ones(len(p.labels), np.float32)
                                    for p in parts]), zooms[0] if zooms else 1.0,
                    # the shipped reader's figure only where every entry has it (entries stored before do not)
                    np.concatenate([p.reader_right for p in parts])
                    if parts and all(p.reader_right is not None for p in parts) else None)


def hard_tiles(classifier, data: Embedded) -> list[int]:
    """Tiles whose plain crop the classifier (with the profile it has) reads otherwise than their label."""
    rows = data.plain
    if classifier.profile is None:
        predicted = data.logits[rows].argmax(axis=1)
    else:
        predicted = read_rows(data, rows, (classifier.profile.delta_weight, classifier.profile.delta_bias),
                              tuple(classifier.classes), classifier.profile.moved_indices()).argmax(axis=1)
    return [int(i) for i in np.flatnonzero(predicted != data.labels[rows])]


def add_entry(profile: str | Path, classifier, tiles: Sequence[CalibrationTile], kind: str, source: str,
              photo_sha256: str | None = None, data: Embedded | None = None,
              settings: FitSettings = LEARN_SETTINGS) -> Entry:
    """Embed `tiles` (unless `data` is given: their crops, already embedded), mark the hard ones, store them and add a
    history line. Tiles read as `back` or `none` are not a set's faces and are left out."""
    profile = check_profile_path(profile)
    tiles = [t for t in tiles if t.tile not in GATE_CLASSES]
    if not tiles:
        raise FanscanError("no tiles to learn from (only backs or none)")
    if data is None:
        from fanscan.vision.classify import shipped_reader_beside

        data = embed(classifier, tiles, settings, crop_zoom=profile_zoom(profile, classifier),
                     reader=shipped_reader_beside(classifier))
    hard = hard_tiles(classifier, data)
    weights = np.ones(len(data.labels), np.float32)
    weights[np.isin(data.tile_index, hard)] = FIX_WEIGHT
    data.weights = weights
    with HISTORY_LOCK:
        return store_entry(profile, tiles, kind, source, photo_sha256, hard, data)


def profile_zoom(profile: Path, classifier) -> float:
    """The crop zoom a new entry's crops are read at: the profile file's own (its calibration chose it), else that of
    the profile the classifier reads with, else 1."""
    if profile.exists():
        from fanscan.vision.profile import load_profile

        try:
            return load_profile(profile).crop_zoom
        except FanscanError:
            pass
    return classifier.profile.crop_zoom if classifier.profile is not None else 1.0


def store_entry(profile: Path, tiles: Sequence[CalibrationTile], kind: str, source: str, photo_sha256: str | None,
                hard: list[int], data: Embedded) -> Entry:
    entries = read_history(profile)
    entry = Entry(max((e.number for e in entries), default=0) + 1, kind, source,
                  datetime.now(timezone.utc).isoformat(timespec="seconds"), [t.tile for t in tiles], hard,
                  photo_sha256, [t.photo for t in tiles])
    save_entry_data(profile, entry, data)
    write_history(profile, [*entries, entry])
    return entry


def remove_entry(profile: str | Path, number: int | None = None) -> Entry:
    """Remove history entry `number` (None: the last one); its data file goes too."""
    with HISTORY_LOCK:
        return drop_entry(profile, number)


def drop_entry(profile: str | Path, number: int | None) -> Entry:
    entries = read_history(profile)
    if not entries:
        raise FanscanError(f"{profile}: no history (nothing to remove)")
    if number is None:
        number = entries[-1].number
    found = [e for e in entries if e.number == number]
    if not found:
        raise FanscanError(f"{profile}: no history entry {number} (entries: "
                           f"{', '.join(str(e.number) for e in entries)})")
    write_history(profile, [e for e in entries if e.number != number])
    (data_folder(profile) / found[0].file).unlink(missing_ok=True)
    return found[0]


def fit_reading_hard_tiles(data: Embedded, tiles: Sequence[CalibrationTile], classes: tuple[str, ...],
                           settings: FitSettings, with_loo: bool = True) -> dict:
    """`fit_embedded`, then weaker penalties until every hard tile's own crop reads as its label (see the module
    doc)."""
    fitted = fit_embedded(data, tiles, classes, settings, with_loo)
    hard = np.unique(data.tile_index[data.weights > 1]) if data.weights is not None else np.array([], np.int64)
    if not len(hard):
        return fitted
    penalties = sorted(settings.penalties, reverse=True)
    chosen = fitted["penalty"]
    weaker = [p for p in penalties if chosen is None or p < chosen]
    moved = moved_classes(data, classes)
    for penalty in [chosen, *weaker]:
        if penalty != chosen:
            fitted["delta"] = fit_delta(data, np.arange(len(data.labels)), classes, penalty, settings,
                                        settings.steps, moved=moved)
            if fitted["prototype_pull"]:  # the pull the first fit chose goes with every weaker one
                fitted["delta"] = pull_toward_prototypes(data, fitted["delta"], classes, fitted["prototype_pull"])
            fitted["penalty"] = penalty
            fitted["moved_for_fixes"] = True
        if fitted["penalty"] is not None and reads_as_labelled(data, hard, fitted["delta"], classes, moved).all():
            break
    return fitted


def refit(profile: str | Path, classifier, name: str | None = None,
          settings: FitSettings = REFIT_SETTINGS) -> SetProfile:
    """Fit the profile from every entry of its history and write it (atomically); the new profile."""
    profile = Path(profile)
    entries = read_history(profile)
    if not entries:
        raise FanscanError(f"{profile}: its history is empty: nothing to fit (the profile is left as it was)")
    parts = [load_entry_data(profile, e) for e in entries]
    data = with_anchors(join(parts), classifier)  # anchors are the classifier's, never stored in an entry
    tiles = [CalibrationTile(np.zeros((1, 1, 3), np.uint8), np.zeros((4, 2), np.float32), tile,
                             f"{e.number}:{e.photos[i] if i < len(e.photos) else e.source}")
             for e in entries for i, tile in enumerate(e.tiles)]
    if len(tiles) != len(data.plain):
        raise FanscanError(f"{data_folder(profile)}: the history and the stored crops disagree "
                           f"({len(tiles)} tiles, {len(data.plain)} stored)")
    classes = tuple(classifier.classes)
    fitted = fit_reading_hard_tiles(data, tiles, classes, settings)
    loo = fitted["leave_one_out"]
    counts = fitted["tile_counts"]
    previous_name = None
    if profile.exists():
        from fanscan.vision.profile import load_profile

        try:
            previous_name = load_profile(profile).name
        except FanscanError:
            previous_name = None
    result = SetProfile(
        name=name or previous_name or profile.stem, source=f"{len(entries)} history entries ({data_folder(profile)})",
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"), base_model_sha256=classifier.sha256,
        classes=classes, delta_weight=fitted["delta"][0], delta_bias=fitted["delta"][1], moved=fitted["moved"],
        leave_one_out_accuracy=loo["accuracy"] if loo else None, crop_zoom=data.crop_zoom,
        details={"leave_one_out": loo, "penalty": fitted["penalty"],
                 "prototype_pull": fitted["prototype_pull"], "tiles": len(tiles),
                 "photos": fitted["photos"], "tile_counts": counts, "settings": fitted["settings"],
                 "crops_embedded": fitted["crops_embedded"], "history_entries": len(entries),
                 "moved_for_fixes": fitted.get("moved_for_fixes", False), "base_model": classifier.path.name})
    save_profile(result, profile)
    return result


def tiles_of_confirmed_photo(image: str | Path, proposal) -> list[CalibrationTile]:
    """The confirmed proposal's tiles (with the user's fixes) cut from the photo as calibration tiles."""
    from fanscan.calibration.sources import context_tile
    from fanscan.vision.load import load_image

    loaded = load_image(image)
    if tuple(loaded.original_size) != tuple(proposal.image_size):
        raise FanscanError(f"{image}: the photo is {loaded.original_size[0]}x{loaded.original_size[1]} pixels but "
                           f"the reading is for {proposal.image_size[0]}x{proposal.image_size[1]}")
    name = Path(image).name
    return [context_tile(loaded.image, np.asarray(t.quad, np.float32) * loaded.scale, t.tile, name)
            for t in proposal.tiles if t.tile not in GATE_CLASSES]


def classifier_to_learn_with(profile: str | Path, in_use: str | None):
    """The classifier a confirmed photo joins `profile` with (`photo --learn`, `POST /api/learn`): the loaded pipeline's
    when it reads with a profile (`in_use`, the profile's own file), else the file a new profile is built on
    (`vision.classify.learning_classifier`), not the shipped reader's."""
    from fanscan.vision.classify import learning_classifier
    from fanscan.vision.pipeline import default_pipeline

    return default_pipeline(in_use).classifier if in_use else learning_classifier(profile)


def learn_photo(profile: str | Path, image: str | Path, proposal, classifier, name: str | None = None) -> Entry:
    """Add a confirmed photo to the profile's data (`classifier`: the one that read it, with the profile in use, so
    that the tiles it read wrong count as fixes). The caller refits (`refit`), now or in the background."""
    tiles = tiles_of_confirmed_photo(image, proposal)
    return add_entry(profile, classifier, tiles, "photo", name or Path(image).name, file_sha256(image))


class BackgroundRefit:
    """Refits a profile in a thread after each confirmed photo, one refit at a time; a photo confirmed during a
    refit gets one more refit after it. `on_done(profile)` receives each new profile (the server swaps it in);
    `last_error` keeps the last failure's message (the server reports it on its next answer)."""

    def __init__(self, profile: str | Path, classifier_factory, on_done) -> None:
        import threading

        self.profile = Path(profile)
        self.classifier_factory = classifier_factory
        self.on_done = on_done
        self.lock = threading.Lock()
        self.pending = False
        self.running = False
        self.last_error: str | None = None
        self.refits = 0

    def request(self) -> None:
        import threading

        with self.lock:
            if self.running:
                self.pending = True
                return
            self.running = True
        threading.Thread(target=self._run, name="fanscan-refit", daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                self.on_done(refit(self.profile, self.classifier_factory()))
                self.last_error = None
                self.refits += 1
            except FanscanError as error:
                self.last_error = str(error)
            with self.lock:
                if not self.pending:
                    self.running = False
                    return
                self.pending = False

    def wait(self, timeout: float = 120.0) -> bool:
        """Block until no refit runs (tests, and a server shutting down); False on timeout."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if not self.running:
                    return True
            time.sleep(0.05)
        return False
