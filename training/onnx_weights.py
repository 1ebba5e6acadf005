"""Weights of an exported ONNX model back into its torch network (fine-tuning starts from the shipped files).

The export folds each batch norm into the convolution before it. Loading undoes nothing: the convolution gets
the folded weights and its batch norm becomes the identity (weight 1, running mean 0, running variance 1 - eps) plus
the folded bias, which is exact as long as the batch norm stays in eval mode (fine-tuning keeps it frozen).
ONNX node names carry the module path (`/stages/stages.6/conv1/Conv` is `stages.6.conv1`).
"""

from __future__ import annotations

from pathlib import Path

import onnx
import torch
from fanscan.scoring.errors import FanscanError
from onnx import numpy_helper
from torch import nn


def module_path(node_name: str, prefix: str = "") -> str:
    """'/stages/stages.6/conv1/Conv' -> 'stages.6.conv1'; `prefix` ('net.') is dropped from the front."""
    parts = node_name.strip("/").split("/")[:-1]
    # Each container appears as its own name and then as a dotted child ('stages', 'stages.6'): keep the leaves.
    kept = [p for i, p in enumerate(parts) if not (i + 1 < len(parts) and parts[i + 1].startswith(p + "."))]
    path = ".".join(kept)
    return path[len(prefix):] if prefix and path.startswith(prefix) else path


def batch_norm_after(path: str, modules: dict[str, nn.Module]) -> nn.BatchNorm2d | None:
    """The batch norm that followed the convolution at `path` (`x.0` -> `x.1`, `y.convN` -> `y.bnN`), if any."""
    head, _, last = path.rpartition(".")
    candidates = []
    if last.isdigit():
        candidates.append(f"{head}.{int(last) + 1}" if head else str(int(last) + 1))
    if last.startswith("conv"):
        candidates.append(f"{head}.bn{last[4:]}" if head else f"bn{last[4:]}")
    for name in candidates:
        if isinstance(modules.get(name), nn.BatchNorm2d):
            return modules[name]
    return None


def load_onnx_weights(model: nn.Module, onnx_path: Path, prefix: str = "") -> nn.Module:
    """Fill `model` (an untrained instance of the exported network) with the weights of `onnx_path`."""
    proto = onnx.load(str(onnx_path))
    weights = {t.name: numpy_helper.to_array(t).copy() for t in proto.graph.initializer}
    modules = dict(model.named_modules())
    loaded = 0
    with torch.no_grad():
        for node in proto.graph.node:
            if node.op_type not in ("Conv", "Gemm"):
                continue
            path = module_path(node.name, prefix) if node.op_type == "Conv" else None
            layer = modules.get(path) if path else next(m for m in model.modules() if isinstance(m, nn.Linear))
            if layer is None or tuple(layer.weight.shape) != weights[node.input[1]].shape:
                raise FanscanError(f"{onnx_path}: layer {node.name} does not fit the network; not its export")
            layer.weight.copy_(torch.from_numpy(weights[node.input[1]]))
            bias = torch.from_numpy(weights[node.input[2]]) if len(node.input) > 2 else None
            norm = batch_norm_after(path, modules) if path else None
            if norm is not None:
                norm.weight.fill_(1.0)
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
                norm.bias.copy_(bias if bias is not None else torch.zeros_like(norm.bias))
            elif bias is not None and layer.bias is not None:
                layer.bias.copy_(bias)
            loaded += 1
    expected = sum(isinstance(m, (nn.Conv2d, nn.Linear)) for m in model.modules())
    if loaded != expected:
        raise FanscanError(f"{onnx_path}: {loaded} layers found, the network has {expected}; not its export")
    return model


def freeze_batch_norms(model: nn.Module) -> None:
    """Batch norms in eval mode with fixed parameters (call again after anything sets the model to train mode)."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()
            for parameter in module.parameters():
                parameter.requires_grad_(False)
