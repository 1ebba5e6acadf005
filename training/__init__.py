"""Training both models (optional extra `train`: torch CPU build, onnx); imported only by the commands that train.

Installs as `fanscan.training`, not as a top-level `training`: the design's top-level folders (`scoring/`, `vision/`,
`models/`, `training/`) are sub-packages of the one import name `fanscan` (pyproject.toml,
`[tool.setuptools.package-dir]`), so that no generic `training` lands in site-packages. Import it as
`fanscan.training` (an editor or a grep for `fanscan.training` finds this folder).

Entry points: `python -m fanscan.training.train_classifier`, `python -m fanscan.training.train_detector`.

Modules: `classes` (the class list written into the model), `real_data` (crops from labelled photos, grouped by
source photo), `renders` (synthetic tiles from the artwork and fonts), `augment` (train-time jitter, numpy/OpenCV),
`model` (the small ResNet), `export` (ONNX with metadata), `train` (the loop: seed, progress, checkpoint, resume).
"""
