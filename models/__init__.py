"""The shipped ONNX models and their cards (data only: `vision.detect` and `vision.classify` load them by path).

A package so that a regular (non-editable) install carries the model files beside `vision/`.
"""
