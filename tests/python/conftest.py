import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def tiny():
    return str(ROOT / "examples" / "tiny_resnet.onnx")


@pytest.fixture
def cli():
    """The `strata` command of the same build as the module (STRATA_BINARY, else build/strata)."""
    path = os.environ.get("STRATA_BINARY", str(ROOT / "build" / "strata"))
    if not os.path.exists(path):
        pytest.fail(f"no strata binary at {path}: build first or set STRATA_BINARY")
    return path
