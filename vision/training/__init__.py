"""Training the tile classifier (optional extra `train`: torch CPU build, onnx). Entry point: `vision.train_classifier`.

Modules: `classes` (the class list written into the model), `real_data` (crops from labelled photos, grouped by
source photo), `renders` (synthetic tiles from the artwork and fonts), `augment` (train-time jitter, numpy/OpenCV),
`model` (the small ResNet), `export` (ONNX with metadata), `train` (the loop: seed, progress, checkpoint, resume).
"""
