"""The one way the project opens a model file: an onnxruntime session with its thread settings, and its metadata.

Both models (the tile detector and the tile classifier) carry what inference needs in their ONNX metadata (input
size, normalisation, class list, thresholds), never in code, so one reader serves both; each model turns the
metadata into its own info record (`detect.DetectorInfo`, `classify.ClassifierInfo`). What a user can get wrong, a
missing file, a file that is not ONNX, a model of the wrong kind or with garbled metadata, is a one-line
`FanscanError` naming the file.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from fanscan.scoring.errors import FanscanError

Info = TypeVar("Info")


@dataclass(frozen=True)
class OnnxModel:
    """An opened model: its file, its onnxruntime session, and its metadata (key → text)."""

    path: Path
    session: Any  # onnxruntime.InferenceSession (imported lazily: importing vision stays cheap)
    metadata: dict[str, str]

    def read_info(self, kind: str, required: Sequence[str], parse: Callable[[dict[str, str]], Info]) -> Info:
        """`parse(metadata)`, after checking that the `required` keys are there; `kind` ("tile detector", "tile
        classifier") names the model in errors. A value that does not parse, or that `parse` refuses with a
        `FanscanError` (which need not name the file), is a one-line error naming the file."""
        missing = [key for key in required if key not in self.metadata]
        if missing:
            raise FanscanError(f"{self.path}: not a fanscan {kind} (metadata lacks {', '.join(missing)})")
        try:
            return parse(self.metadata)
        except FanscanError as error:
            raise FanscanError(f"{self.path}: {error}") from None
        except (KeyError, ValueError, TypeError) as error:
            raise FanscanError(f"{self.path}: unreadable {kind} metadata ({error})") from None


class OneCallAtATime:
    """An onnxruntime session whose calls from several threads run one after another. A session may run calls side
    by side, but each holds its own activations; where one photo a core is read (a batch's threads), the threads
    still overlap, one detecting while another classifies, and each network's activations are held once (the
    batch's threads over the 20 samples x 9 on 2 cores: peak memory 156 -> 143 MB; over x 13, medians of 6 runs in
    two sets, the same with the memory plans off and one heap: 154-156 -> 130-131 MB, 1-7 % longer)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._lock = threading.Lock()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return self._session.run(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # inputs, outputs, metadata: the session's own
        return getattr(self._session, name)


def call_threads() -> int:
    """The cores one model call of a single photo uses by default: two where there are two (a third gains little
    for networks this small, and leaves the machine to other work)."""
    return min(2, os.cpu_count() or 1)


def open_model(path: Path, kind: str, threads: int | None, one_call_at_a_time: bool = False) -> OnnxModel:
    """The model at `path` in a CPU session with `threads` intra-op threads (None: onnxruntime's default, all cores)
    and one inter-op thread: both models run one small graph at a time, so there is nothing to run side by side.
    `one_call_at_a_time`: for a session that threads reading one photo each share (a batch): their calls wait for
    each other (`OneCallAtATime`) and keep no memory plan per input shape, so that memory is held once."""
    import onnxruntime as ort  # imported here so that importing vision stays cheap

    if not path.is_file():
        raise FanscanError(f"{path}: {kind} model file not found")
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    if one_call_at_a_time:
        # onnxruntime's memory pattern plans one block for a run's activations and keeps a plan per input shape;
        # the detector sees many shapes (the closer look, the scale pass, the squeezed-photo search) and the
        # classifier one per crop count, so in a batch the plans pile up (`fanscan batch` of the 20 samples x 3:
        # peak ~7 MB higher with them). A single photo's path keeps them: it is timed, not long-running.
        options.enable_mem_pattern = False
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for every kind of bad file
        text = str(error).strip()
        detail = text.splitlines()[0][:160] if text else type(error).__name__
        raise FanscanError(f"{path}: not a loadable ONNX model ({detail})") from None
    metadata = dict(session.get_modelmeta().custom_metadata_map)
    return OnnxModel(path, OneCallAtATime(session) if one_call_at_a_time else session, metadata)


def json_floats(text: str) -> tuple[float, ...]:
    """A metadata value written as a JSON list of numbers, e.g. a normalisation mean."""
    return tuple(float(v) for v in json.loads(text))
