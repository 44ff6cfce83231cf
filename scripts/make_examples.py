#!/usr/bin/env python3
"""Makes the example model shipped in examples/: a small residual CNN with random weights,
exported from PyTorch, plus a sample image and PyTorch's output for it (for --verify).

Run with Debian's python3-torch and python3-onnx:  /usr/bin/python3 scripts/make_examples.py
"""
import os

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "examples")


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class TinyResNet(nn.Module):
    """Stem, two residual stages, pooling and a classifier: the shape of a real image model."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=1, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = nn.Sequential(Block(16), Block(16))
        self.down = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.layer2 = nn.Sequential(Block(32), Block(32))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.layer2(self.down(self.layer1(torch.max_pool2d(self.stem(x), 2))))
        return torch.softmax(self.fc(torch.flatten(self.pool(x), 1)), dim=1)


def main():
    torch.manual_seed(0)
    model = TinyResNet()
    model.train()
    with torch.no_grad():  # give BatchNorm non-trivial running statistics
        for _ in range(3):
            model(torch.randn(8, 3, 32, 32))
    model.eval()

    # A 32x32 colour test pattern saved as binary PPM (P6).
    yy, xx = np.mgrid[0:32, 0:32]
    image = np.stack([xx * 8, yy * 8, (xx + yy) * 4], axis=-1).clip(0, 255).astype(np.uint8)
    with open(os.path.join(OUT, "pattern.ppm"), "wb") as f:
        f.write(b"P6\n32 32\n255\n" + image.tobytes())
    x = torch.from_numpy(image.transpose(2, 0, 1)[None].astype(np.float32) / 255.0)

    path = os.path.join(OUT, "tiny_resnet.onnx")
    torch.onnx.export(model, x, path, input_names=["image"], output_names=["probabilities"],
                      opset_version=13, do_constant_folding=True)
    os.makedirs(os.path.join(OUT, "tiny_resnet_expected"), exist_ok=True)
    with torch.no_grad():
        np.save(os.path.join(OUT, "tiny_resnet_expected", "probabilities.npy"), model(x).numpy())
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
