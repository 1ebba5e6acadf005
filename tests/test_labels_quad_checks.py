"""A quad that is not four finite corners enclosing an area is one FanscanError (issue 20 item 8), and a saved
photo takes its type's suffix, not its name's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from fanscan.scoring.errors import FanscanError

from fanscan.labels.model import Box
from fanscan.labels.save import save_labelled_photo

NAN = float("nan")


@pytest.mark.parametrize("quad", [[[5, 5]], [[5, 5]] * 4, [[NAN, 0], [10, 0], [10, 10], [0, 10]],
                                  [[-1e308, 0], [1e308, 0], [1e308, 10], [-1e308, 10]]])
def test_bad_quads_are_one_line_errors(quad):
    with pytest.raises(FanscanError):
        Box.from_quad("5m", quad)


def test_saved_photo_has_its_types_suffix_and_unknown_ids_are_refused(tmp_path):
    photo = tmp_path / "x.txt"
    photo.write_bytes(cv2.imencode(".png", np.zeros((100, 200, 3), np.uint8))[1].tobytes())
    square = [[10, 10], [50, 10], [50, 60], [10, 60]]
    assert save_labelled_photo(tmp_path / "ds", photo, [("5m", square)], (200, 100)).name == "x.png"
    with pytest.raises(FanscanError, match="not a tile id"):
        save_labelled_photo(tmp_path / "ds", photo, [("zz", square)], (200, 100))
