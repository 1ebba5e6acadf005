"""Training both models (optional extra `train`: torch CPU build, onnx); imported only by the commands that train.

Entry points: `python -m fanscan.training.train_classifier`, `python -m fanscan.training.train_detector`.

Modules: `classes` (the class list written into the model), `real_data` (crops from labelled photos, grouped by
source photo), `renders` (synthetic tiles from the artwork and fonts), `augment` (train-time jitter, numpy/OpenCV),
`model` (the small ResNet), `export` (ONNX with metadata), `train` (the loop: seed, progress, checkpoint, resume).
"""
