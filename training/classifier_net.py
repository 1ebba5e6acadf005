"""The classifier network: a small ResNet for 64x80 tile crops (about 1 M parameters, a few MB as ONNX)."""

from __future__ import annotations

import torch
from torch import nn


class Block(nn.Module):
    """Basic residual block: two 3x3 convs; a 1x1 projection when the shape changes."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip: nn.Module = nn.Identity()
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.skip(x))


class ClassifierNet(nn.Module):
    """Stem at half resolution (32x40 for a 64x80 input), four stages, global average pool, linear head."""

    def __init__(self, num_classes: int, widths: tuple[int, ...] = (16, 32, 64, 160), depths=(1, 2, 2, 2)) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, 2, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        layers: list[nn.Module] = []
        cin = widths[0]
        for i, (width, depth) in enumerate(zip(widths, depths, strict=True)):
            for j in range(depth):
                layers.append(Block(cin, width, 2 if (j == 0 and i > 0) else 1))
                cin = width
        self.stages = nn.Sequential(*layers)
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(cin, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stages(self.stem(x))
        return self.head(self.dropout(x.mean(dim=(2, 3))))
