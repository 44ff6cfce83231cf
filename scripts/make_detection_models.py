#!/usr/bin/python3
"""Makes small control-flow and detection models for tests/models/detection, exported by
torch.onnx (opset 11) as bench/export_models.py exports the torchvision detectors, with PyTorch's
outputs as the reference: CI has no torchvision, so these stand in for the real detectors there.
Each goes into tests/models/detection/NAME/ in ONNX's test-case layout (model.onnx,
test_data_set_0/input_0.pb, output_K.pb). tests/models/detection_models_test.cpp compares
detections as sets (the order among equal scores is not defined).

  /usr/bin/python3 scripts/make_detection_models.py    (Debian's python3-torch, -torchvision, -onnx)
"""
import os
import shutil
import sys

import onnx
import torch
import torchvision
from onnx import numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "tests", "models", "detection")
sys.path.insert(0, os.path.join(REPO, "bench"))
import export_models as em  # noqa: E402


@torch.jit.script
def mean_or_empty(pooled: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """Scripted, so that the trace of TinyDetector keeps this branch as an If."""
    if bool(scores.numel() > 0):
        features = pooled.mean((2, 3))
    else:
        features = torch.zeros(0, pooled.size(1))
    return features


class TinyDetector(nn.Module):
    """A detector's post-processing in miniature: a score map, NonZero over the positions above a
    threshold, boxes around them, NonMaxSuppression, RoiAlign pooling of the kept boxes and an If
    on whether any box was kept (as torchvision's heads branch on empty sets). Traced, as
    torchvision's detectors are exported; the branch is a scripted function."""

    def __init__(self, size=24):
        super().__init__()
        self.size = size
        self.features = nn.Conv2d(3, 8, 3, padding=1)
        self.score = nn.Conv2d(8, 1, 1)

    def forward(self, x):  # [1, 3, size, size]
        f = torch.relu(self.features(x))
        s = torch.sigmoid(self.score(f)).flatten()
        keep = torch.nonzero(s > 0.5).squeeze(1)
        ys = torch.div(keep, self.size, rounding_mode="floor").float()
        xs = (keep % self.size).float()
        boxes = torch.stack([xs - 2.5, ys - 1.5, xs + 2.5, ys + 3.5], 1)
        scores = s[keep]
        kept = torchvision.ops.nms(boxes, scores, 0.3)
        boxes, scores = boxes[kept], scores[kept]
        rois = torch.cat([torch.zeros_like(scores).unsqueeze(1), boxes], 1)
        pooled = torchvision.ops.roi_align(f, rois, (3, 3), 1.0, 2, aligned=False)
        return boxes, scores, mean_or_empty(pooled, scores)


def write_case(name, model, x, output_names):
    case = os.path.join(OUT, name)
    shutil.rmtree(case, ignore_errors=True)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data)
    with torch.no_grad():
        outputs = model(x)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    torch.onnx.export(model, (x,), os.path.join(case, "model.onnx"), opset_version=11,
                      input_names=["input"], output_names=output_names)
    onnx.save_tensor(numpy_helper.from_array(x.numpy(), "input"),
                     os.path.join(data, "input_0.pb"))
    for k, (n, t) in enumerate(zip(output_names, outputs)):
        onnx.save_tensor(numpy_helper.from_array(t.numpy(), n),
                         os.path.join(data, f"output_{k}.pb"))
    ops = sorted({n.op_type for n in onnx.load(os.path.join(case, "model.onnx")).graph.node})
    print(f"{name}: outputs {[list(t.shape) for t in outputs]}; ops {', '.join(ops)}")


def main():
    torch.manual_seed(em.SEED)
    write_case("loop_if_script", torch.jit.script(em.LoopIfScript().eval()), torch.randn(5, 16),
               ["output"])
    torch.manual_seed(em.SEED)
    detector = TinyDetector().eval()
    with torch.no_grad():  # about half the 576 positions score above 0.5; NMS keeps 52
        detector.score.bias.fill_(0.0)
    write_case("tiny_detector", detector, torch.rand(1, 3, 24, 24),
               ["boxes", "scores", "features"])


if __name__ == "__main__":
    main()
