"""A batch worker builds its default pipeline with one onnxruntime thread per model (`set_default_threads`), so that
two worker processes on a 2-core machine do not run four compute threads; the photo and batch code then read photos
through `default_pipeline`, which must be that pipeline."""

from __future__ import annotations

import os

from fanscan.vision import pipeline


def _threads(model) -> int:
    """The cores one call of the model may use: the detector's onnxruntime threads, the classifier's parts."""
    if hasattr(model, "parts"):
        assert model.session.get_session_options().intra_op_num_threads == 1  # each part on one thread
        return model.parts
    return model.session.get_session_options().intra_op_num_threads


def test_set_default_threads_rebuilds_the_default_pipeline_with_that_many_threads():
    try:
        pipeline.set_default_threads(None)
        shipped = pipeline.default_pipeline()
        pipeline.set_default_threads(1)
        worker = pipeline.default_pipeline()
        assert worker is not shipped
        assert _threads(worker.detector) == 1 and _threads(worker.classifier) == 1
        assert _threads(shipped.detector) == min(2, os.cpu_count() or 1) and _threads(shipped.classifier) == 1
        assert pipeline.default_pipeline() is worker  # loaded once, then reused
        # The one-thread pipeline serves threads reading one photo a core: each network one call at a time.
        from fanscan.vision.onnx_model import OneCallAtATime

        assert isinstance(worker.detector.session, OneCallAtATime)
        assert isinstance(worker.classifier.session, OneCallAtATime)
        assert not isinstance(shipped.detector.session, OneCallAtATime)
    finally:
        pipeline.set_default_threads(None)


def test_no_profile_is_one_pipeline_however_it_is_said():
    """`default_pipeline()`, `(None)` and `("")` must not load the models three times (each load costs a photo)."""
    assert pipeline.default_pipeline() is pipeline.default_pipeline(None) is pipeline.default_pipeline("")
