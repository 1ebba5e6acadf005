"""data.yaml class names through PyYAML: every form YOLO exports write, and one-line errors for a broken file."""

from __future__ import annotations

from pathlib import Path

import pytest
from fanscan.scoring.errors import FanscanError
from fanscan.vision.yolo_data import read_class_names

SAMPLES_YAML = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "data.yaml"


@pytest.mark.parametrize("text", [
    "nc: 3\nnames: ['sc1', \"sd2\", sb3]\n",
    "nc: 3\nnames:\n  - sc1\n  - 'sd2'\n  - sb3\ntrain: train/images\n",
    "names:\n  2: sb3\n  0: sc1\n  1: sd2\n",  # a mapping, written out of order: index order counts
])
def test_the_three_ways_of_writing_names(tmp_path: Path, text: str) -> None:
    path = tmp_path / "data.yaml"
    path.write_text(text)
    assert read_class_names(path) == ["sc1", "sd2", "sb3"]


def test_the_shipped_samples() -> None:
    names = read_class_names(SAMPLES_YAML)
    assert len(names) == 42 and names[:3] == ["bs1", "sc1", "sd1"] and names[-1] == "sb9"


@pytest.mark.parametrize(("text", "message"), [
    ("nc: 2\nnames: ['a', 'b'\ntrain: x\n", r"data\.yaml:\d+: not valid YAML"),
    ("nc: 2\ntrain: x\n", "no 'names:' list"),
    ("just text\n", "no 'names:' list"),
    ("names:\n  0: a\n  2: b\n", "not the class indices 0..1"),
])
def test_a_broken_data_yaml_is_one_line_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "data.yaml"
    path.write_text(text)
    with pytest.raises(FanscanError, match=message) as caught:
        read_class_names(path)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)
