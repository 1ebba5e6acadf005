"""The tile-proposal network and its losses (torch; training only — inference runs the exported ONNX).

CenterNet-style, one class: a small depthwise-separable backbone to stride 32, a top-down path back to stride 4,
and two heads on the stride-4 grid: a centre heatmap (logits) and left/top/right/bottom distances in input pixels.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

# Distances are predicted as softplus(x) * DISTANCE_SCALE pixels: tiles span ~8..200 px at the input.
DISTANCE_SCALE = 16.0


def conv_bn_relu(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


class SeparableBlock(nn.Module):
    """Depthwise k x k then pointwise 1 x 1; residual when the shape is unchanged."""

    def __init__(self, cin: int, cout: int, stride: int = 1, k: int = 3) -> None:
        super().__init__()
        self.depthwise = conv_bn_relu(cin, cin, k, stride, groups=cin)
        self.pointwise = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pointwise(self.depthwise(x))
        return F.relu(y + x if self.residual else y)


def stage(cin: int, cout: int, blocks: int, k: int = 3) -> nn.Sequential:
    layers = [SeparableBlock(cin, cout, stride=2, k=k)]
    layers += [SeparableBlock(cout, cout, k=k) for _ in range(blocks - 1)]
    return nn.Sequential(*layers)


class DetectorNet(nn.Module):
    """Input (N, 3, H, W) normalised RGB, H and W multiples of 32. Outputs on the stride-4 grid:
    heatmap logits (N, 1, H/4, W/4) and distances (N, 4, H/4, W/4) = left, top, right, bottom in input pixels."""

    strides = (4, 8, 16, 32)

    def __init__(self, width: tuple[int, int, int, int] = (24, 48, 192, 448), neck: int = 48) -> None:
        super().__init__()
        c4, c8, c16, c32 = width
        self.stem = nn.Sequential(conv_bn_relu(3, 16, 3, 2), SeparableBlock(16, c4, stride=2), SeparableBlock(c4, c4))
        self.s8 = stage(c4, c8, 3)
        self.s16 = stage(c8, c16, 4, k=5)
        self.s32 = stage(c16, c32, 3, k=5)
        self.lateral = nn.ModuleList(nn.Conv2d(c, neck, 1) for c in (c4, c8, c16, c32))
        self.smooth = nn.ModuleList(SeparableBlock(neck, neck) for _ in range(3))
        self.heat_head = nn.Sequential(SeparableBlock(neck, neck), nn.Conv2d(neck, 1, 1))
        self.box_head = nn.Sequential(SeparableBlock(neck, neck), nn.Conv2d(neck, 4, 1))
        # Start the heatmap near "no tile anywhere" (prior 0.01) so the focal loss does not swamp early steps.
        nn.init.constant_(self.heat_head[-1].bias, -4.6)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f4 = self.stem(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        p = self.lateral[3](f32)
        for level, feature in zip((2, 1, 0), (f16, f8, f4), strict=True):
            p = F.interpolate(p, scale_factor=2.0, mode="nearest") + self.lateral[level](feature)
            p = self.smooth[level](p)
        heat = self.heat_head(p)
        distances = F.softplus(self.box_head(p)) * DISTANCE_SCALE
        return heat, distances


def focal_loss(logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor, num_pos: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss; `weight` 0 removes ignored cells from the negatives."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = (1 - pos) * weight
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    return -(pos_loss.sum() + neg_loss.sum()) / num_pos.sum().clamp(min=1.0)


def grid_centres(height: int, width: int, stride: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Pixel coordinates of each stride cell's centre (continuous coordinates, pixel k spans [k, k+1))."""
    ys = (torch.arange(height, device=device, dtype=torch.float32) + 0.5) * stride
    xs = (torch.arange(width, device=device, dtype=torch.float32) + 0.5) * stride
    return ys.view(1, height, 1).expand(1, height, width), xs.view(1, 1, width).expand(1, height, width)


def giou_loss(distances: torch.Tensor, reg_box: torch.Tensor, reg_weight: torch.Tensor, stride: int) -> torch.Tensor:
    """Weighted GIoU loss between boxes predicted at each cell (centre minus l/t, plus r/b) and their targets."""
    _, _, h, w = distances.shape
    cy, cx = grid_centres(h, w, stride, distances.device)
    mask = reg_weight[:, 0] > 0
    if not bool(mask.any()):
        return distances.sum() * 0.0
    px0 = (cx - distances[:, 0])[mask]
    py0 = (cy - distances[:, 1])[mask]
    px1 = (cx + distances[:, 2])[mask]
    py1 = (cy + distances[:, 3])[mask]
    tx0, ty0, tx1, ty1 = (reg_box[:, i][mask] for i in range(4))
    wgt = reg_weight[:, 0][mask]
    area_p = (px1 - px0).clamp(min=0) * (py1 - py0).clamp(min=0)
    area_t = (tx1 - tx0) * (ty1 - ty0)
    iw = (torch.minimum(px1, tx1) - torch.maximum(px0, tx0)).clamp(min=0)
    ih = (torch.minimum(py1, ty1) - torch.maximum(py0, ty0)).clamp(min=0)
    inter = iw * ih
    union = area_p + area_t - inter + 1e-6
    iou = inter / union
    enclose = (torch.maximum(px1, tx1) - torch.minimum(px0, tx0)) * (torch.maximum(py1, ty1) - torch.minimum(py0, ty0))
    giou = iou - (enclose - union) / (enclose + 1e-6)
    return ((1 - giou) * wgt).sum() / (wgt.sum() + 1e-6)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
