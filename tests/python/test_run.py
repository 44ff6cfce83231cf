import subprocess

import numpy as np
import pytest

import strata


def test_run_matches_the_expected_probabilities(root, tiny):
    image = str(root / "examples" / "pattern.ppm")
    outputs = strata.run(tiny, {"image": image})
    expected = np.load(root / "examples" / "tiny_resnet_expected" / "probabilities.npy")
    assert list(outputs) == ["probabilities"]
    got = outputs["probabilities"]
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-6)


def test_numpy_input_gives_the_same_as_the_file(root, tiny):
    image = strata.bind_inputs(tiny, {"image": str(root / "examples" / "pattern.ppm")})["image"]
    a = strata.run(tiny, {"image": image})["probabilities"]
    b = strata.run(strata.Model(tiny), {"image": image.copy()}, threads=2)["probabilities"]
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_random_inputs_follow_the_seed(tiny):
    a = strata.run(tiny, seed=1)["probabilities"]
    b = strata.run(tiny, seed=1)["probabilities"]
    c = strata.run(tiny, seed=2)["probabilities"]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert abs(float(a.sum()) - 1.0) < 1e-4  # softmax output


def test_model_describes_inputs_and_outputs(tiny):
    model = strata.Model(tiny)
    assert model.inputs[0]["name"] == "image"
    assert model.inputs[0]["dtype"] == "float32"
    assert model.inputs[0]["shape"] == [1, 3, 32, 32]
    assert model.outputs[0]["name"] == "probabilities"
    assert model.node_count > 0


def cli_error(cli, *args):
    done = subprocess.run([cli, *args], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("strata: error: ")
    return line[len("strata: error: "):]


def test_missing_model_raises_the_cli_message(cli, tmp_path):
    missing = str(tmp_path / "missing.onnx")
    with pytest.raises(strata.Error) as e:
        strata.run(missing)
    assert str(e.value) == cli_error(cli, "run", missing)


def test_unknown_input_raises_the_cli_message(cli, tiny):
    with pytest.raises(strata.Error) as e:
        strata.run(tiny, {"nope": np.zeros((1, 3, 32, 32), np.float32)})
    assert "nope" in str(e.value)
    assert str(e.value) == cli_error(cli, "run", tiny, "-i", "nope=[1]")


def test_wrong_dtype_and_shape_are_errors(tiny):
    with pytest.raises(strata.Error, match="image"):
        strata.run(tiny, {"image": np.zeros((1, 3, 32, 32), np.int32)})
    with pytest.raises(strata.Error, match="image"):
        strata.run(tiny, {"image": np.zeros((1, 3, 31, 32), np.float32)})
    with pytest.raises(strata.Error, match="layout"):
        strata.run(tiny, layout="diagonal")
