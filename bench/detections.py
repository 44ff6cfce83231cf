"""Compares two sets of detections (torchvision's boxes, labels, scores and, for Mask R-CNN, masks)
regardless of order: the order among equal scores is not defined, and engines round differently.

Each reference detection, best score first, is matched to an unmatched detection of the other
engine with the same label, a score within SCORE_ATOL and every box corner within BOX_ATOL pixels
(the closest such box); matched masks must agree within MASK_ATOL per pixel. A detection left
unmatched on either side is allowed only at the edge of the set: when its score is within
SCORE_ATOL of the lowest reference score (the score threshold or the per-image cap decides
there, and a rounding difference may tip a detection in or out).

  /usr/bin/python3 bench/detections.py GOT_DIR REFERENCE_DIR     (folders of NAME.npy)
"""
import os
import sys

import numpy as np

SCORE_ATOL = 1e-4
BOX_ATOL = 5e-2  # pixels, on 320x320 images
MASK_ATOL = 1e-3


def compare(got, ref):
    """{'ok', 'matched', 'unmatched', 'edge', 'max_box', 'max_score', 'max_mask', 'problem'}."""
    for name in ("boxes", "labels", "scores"):
        if name not in got or name not in ref:
            return {"ok": False, "problem": f"output '{name}' missing"}
    n_ref, n_got = len(ref["scores"]), len(got["scores"])
    if got["boxes"].shape != (n_got, 4) or got["labels"].shape != (n_got,):
        return {"ok": False, "problem": f"boxes {got['boxes'].shape} and labels "
                                        f"{got['labels'].shape} do not fit {n_got} scores"}
    masks = "masks" in ref
    if masks and ("masks" not in got or got["masks"].shape[1:] != ref["masks"].shape[1:]
                  or len(got["masks"]) != n_got):
        return {"ok": False, "problem": "masks missing or of another shape"}
    edge = float(ref["scores"].min()) + SCORE_ATOL if n_ref else np.inf
    taken = np.zeros(n_got, dtype=bool)
    result = {"matched": 0, "unmatched": 0, "edge": 0, "max_box": 0.0, "max_score": 0.0,
              "max_mask": 0.0}
    gb, gs, gl = (got[k].astype(np.float64) for k in ("boxes", "scores", "labels"))
    for i in np.argsort(-ref["scores"], kind="stable"):
        box_diff = np.abs(gb - ref["boxes"][i]).max(axis=1) if n_got else np.zeros(0)
        score_diff = np.abs(gs - float(ref["scores"][i]))
        fits = ~taken & (gl == ref["labels"][i]) & (score_diff <= SCORE_ATOL) & \
            (box_diff <= BOX_ATOL)
        if not fits.any():
            result["edge" if ref["scores"][i] <= edge else "unmatched"] += 1
            continue
        j = int(np.flatnonzero(fits)[np.argmin(box_diff[fits])])
        taken[j] = True
        result["matched"] += 1
        result["max_box"] = max(result["max_box"], float(box_diff[j]))
        result["max_score"] = max(result["max_score"], float(score_diff[j]))
        if masks:
            mask_diff = float(np.abs(got["masks"][j].astype(np.float64) - ref["masks"][i]).max())
            result["max_mask"] = max(result["max_mask"], mask_diff)
    for j in np.flatnonzero(~taken):
        result["edge" if gs[j] <= edge else "unmatched"] += 1
    result["ok"] = result["unmatched"] == 0 and result["max_mask"] <= MASK_ATOL
    return result


def describe(r):
    if "problem" in r:
        return "MISMATCH: " + r["problem"]
    head = "ok" if r["ok"] else f"{r['unmatched']} unmatched"
    text = (f"{head}: {r['matched']} detections matched as a set (box {r['max_box']:.1e} px, "
            f"score {r['max_score']:.1e}")
    text += f", mask {r['max_mask']:.1e})" if r["max_mask"] else ")"
    return text + (f", {r['edge']} at the score edge" if r["edge"] else "")


def load(folder):
    return {f[:-4]: np.load(os.path.join(folder, f)) for f in os.listdir(folder)
            if f.endswith(".npy")}


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    r = compare(load(sys.argv[1]), load(sys.argv[2]))
    print(describe(r))
    sys.exit(0 if r["ok"] else 1)
