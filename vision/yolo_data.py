"""Reading YOLO-layout datasets: `data.yaml` class names, `images/`, `labels/` with one box per line.

Polygon lines (`class x1 y1 x2 y2 ...`) become their enclosing box: skipping them would teach a model that those
tiles are background.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from fanscan.scoring.errors import FanscanError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


@dataclass(frozen=True)
class LabelBox:
    """One labelled box, normalised to 0..1 of the image width and height."""

    class_index: int
    cx: float
    cy: float
    w: float
    h: float
    from_polygon: bool = False

    def is_finite(self, width: int, height: int) -> bool:
        """Whether the box is finite numbers in pixels (a 1e308 fraction is not, once multiplied by a width)."""
        return all(math.isfinite(v) for v in self.to_pixels(width, height))

    def to_pixels(self, width: int, height: int) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) in pixels."""
        return (
            (self.cx - self.w / 2) * width,
            (self.cy - self.h / 2) * height,
            (self.cx + self.w / 2) * width,
            (self.cy + self.h / 2) * height,
        )

    def clamped_pixels(self, width: int, height: int,
                       min_side: float = 4.0) -> tuple[float, float, float, float] | None:
        """(x0, y0, x1, y1) in pixels, cut to the image; None where less than `min_side` px a side is left."""
        x0, y0, x1, y1 = self.to_pixels(width, height)
        x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1)
        return (x0, y0, x1, y1) if x1 - x0 >= min_side and y1 - y0 >= min_side else None


@dataclass(frozen=True)
class LabelledImage:
    image_path: Path
    label_path: Path
    boxes: tuple[LabelBox, ...]


# A data.yaml holds a few paths and a list of class names (a few kB for a thousand classes): a larger file is not
# one, and is refused before it is parsed.
MAX_DATA_YAML_BYTES = 1 << 20


class _AliasRefused(yaml.MarkedYAMLError):
    pass


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases (`*name`): a data.yaml needs none, and nine lines of aliases of
    aliases ("billion laughs") stand for 10^9 strings, which took 12 s and 842 MB to import and a MemoryError
    in `calibrate`."""

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            raise _AliasRefused(problem="an alias (*name)", problem_mark=self.peek_event().start_mark)
        return super().compose_node(parent, index)


def read_text_file(path: Path, what: str, limit: int | None = None) -> str:
    """The UTF-8 text of `path`; a one-line `FanscanError` naming it when it is a folder, cannot be read, is over
    `limit` bytes or is not UTF-8. `what` says what the file should be."""
    path = Path(path)
    if path.is_dir():
        raise FanscanError(f"{path}: a folder, not {what}")
    try:
        with path.open("rb") as stream:
            data = stream.read() if limit is None else stream.read(limit + 1)
    except OSError as error:
        raise FanscanError(f"{path}: cannot be read ({error.strerror or type(error).__name__})") from None
    if limit is not None and len(data) > limit:
        raise FanscanError(f"{path}: too large for {what} (over {limit // 1024} kB)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FanscanError(f"{path}: not UTF-8 text (byte {error.start}); {what} is UTF-8") from None


def read_class_names(data_yaml: Path) -> list[str]:
    """The `names:` of a YOLO `data.yaml`, in class index order: a list, or a mapping from index to name."""
    path = Path(data_yaml)
    text = read_text_file(path, "a data.yaml", MAX_DATA_YAML_BYTES)
    try:
        data = yaml.load(text, Loader=_NoAliasLoader)  # a SafeLoader, less aliases
    except _AliasRefused as error:
        raise FanscanError(f"{path}:{error.problem_mark.line + 1}: a YAML alias (*name): refused, a data.yaml "
                           "needs none and aliases can stand for gigabytes") from None
    except RecursionError:
        raise FanscanError(f"{path}: not valid YAML (nested too deep)") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(error, "problem", None) or type(error).__name__
        raise FanscanError(f"{where}: not valid YAML ({problem})") from None
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, dict):
        if set(names) != set(range(len(names))):
            raise FanscanError(f"{path}: the keys of 'names:' are not the class indices 0..{len(names) - 1}")
        names = [names[i] for i in range(len(names))]
    if not isinstance(names, list) or not names:
        raise FanscanError(f"{path}: no 'names:' list of classes found")
    return [str(name) for name in names]


def parse_label_line(line: str, where: str) -> LabelBox | None:
    """One label line as a box; None for a blank line. Values that are not finite numbers (`nan`, `inf`, `1e999`)
    are kept (a polygon's become a NaN box): the readers refuse such a box with a line saying where."""
    fields = line.split()
    if not fields:
        return None
    try:
        class_index = int(fields[0])
        values = [float(v) for v in fields[1:]]
    except ValueError:
        raise FanscanError(f"{where}: not a YOLO label line: {line.strip()!r}") from None
    if len(values) == 4:
        cx, cy, w, h = values
        return LabelBox(class_index, cx, cy, w, h)
    if len(values) >= 6 and len(values) % 2 == 0:
        if not all(math.isfinite(v) for v in values):  # min and max would pass over a NaN corner
            return LabelBox(class_index, math.nan, math.nan, math.nan, math.nan, from_polygon=True)
        xs, ys = values[0::2], values[1::2]
        x0, x1 = max(0.0, min(xs)), min(1.0, max(xs))
        y0, y1 = max(0.0, min(ys)), min(1.0, max(ys))
        return LabelBox(class_index, (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, from_polygon=True)
    raise FanscanError(f"{where}: expected 4 box values or a polygon, got {len(values)} values")


def read_labels(label_path: Path) -> tuple[LabelBox, ...]:
    """All boxes of one label file (missing file = no boxes)."""
    path = Path(label_path)
    if not path.exists():
        return ()
    boxes = []
    for number, line in enumerate(read_text_file(path, "a YOLO label file").splitlines(), start=1):
        box = parse_label_line(line, f"{path}:{number}")
        if box is not None:
            boxes.append(box)
    return tuple(boxes)


def iter_split(split_dir: Path) -> Iterator[LabelledImage]:
    """Every image of a split folder (`images/`, `labels/`), sorted by name, with its boxes."""
    split = Path(split_dir)
    images_dir, labels_dir = split / "images", split / "labels"
    if not images_dir.is_dir():
        raise FanscanError(f"{split}: no images/ folder (expected a YOLO-layout split)")
    for image_path in sorted(images_dir.iterdir()):
        if image_path.suffix.lower() in IMAGE_SUFFIXES:
            label_path = labels_dir / (image_path.stem + ".txt")
            yield LabelledImage(image_path, label_path, read_labels(label_path))


def find_data_yaml(split_dir: Path) -> Path:
    """The data.yaml of a split: in the folder itself or its parent."""
    split = Path(split_dir)
    for candidate in (split / "data.yaml", split.parent / "data.yaml"):
        if candidate.exists():
            return candidate
    raise FanscanError(f"{split}: no data.yaml beside or above it (needed for class names)")
