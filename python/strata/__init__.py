"""strata from Python: run, profile, analyse and compare ONNX models (docs/python.md).

Every function takes a model as a path or a strata.Model, inputs as a dict of numpy arrays by input
name (inputs left out are random, as with `strata run`), and raises strata.Error with the one-line
message the `strata` command prints.
"""

import json as _json
import os as _os
import tempfile as _tempfile

import numpy as _np

from . import _strata
from ._strata import Error, Model

__version__ = _strata.__version__
__all__ = ["Error", "Model", "Profile", "run", "profile", "analyze", "compare",
           "profile_module", "bind_inputs"]

_DTYPES = {"float32": _np.float32, "float64": _np.float64, "float16": _np.float16,
           "int8": _np.int8, "int16": _np.int16, "int32": _np.int32, "int64": _np.int64,
           "uint8": _np.uint8, "uint16": _np.uint16, "uint32": _np.uint32,
           "uint64": _np.uint64, "bool": _np.bool_}


def _model(model):
    return model if isinstance(model, Model) else Model(_os.fspath(model))


def bind_inputs(model, inputs=None, *, shapes=None, dims=None, seed=0):
    """Every input of the model in graph order, as a dict name → numpy array.

    `inputs` maps names to arrays (lists and scalars are converted to the model's dtype) or to
    sources as `strata run -i` takes them (a .npy/.pb/.json/image path, "[1,2]"). The others are
    random (seeded), with `shapes` {name: [dims]} or `dims` {"N": 8} for dynamic dimensions.
    """
    model = _model(model)
    declared = {i["name"]: i["dtype"] for i in model.inputs}
    arrays, sources = {}, []
    for name, value in (inputs or {}).items():
        if isinstance(value, (str, _os.PathLike)):
            sources.append(f"{name}={_os.fspath(value)}")
        elif isinstance(value, _np.ndarray):
            arrays[name] = value
        else:  # a list or scalar: the dtype the model declares
            arrays[name] = _np.asarray(value, dtype=_DTYPES.get(declared.get(name)))
    return _strata.bind_inputs(model, arrays, sources, dict(shapes or {}), dict(dims or {}), seed)


def run(model, inputs=None, *, threads=1, optimize=True, fast_kernels=True, layout="auto",
        timeout=0.0, shapes=None, dims=None, seed=0):
    """Runs the model once; returns its outputs as a dict name → numpy array, in graph order."""
    model = _model(model)
    bound = bind_inputs(model, inputs, shapes=shapes, dims=dims, seed=seed)
    return _strata.run(model, bound, threads, optimize, fast_kernels, layout, timeout)


class Profile:
    """A measured profile: `summary` (dict), `nodes` (list of flat dicts, one per executed node,
    ready for pandas.DataFrame), `json` (the file `strata profile -o` writes, as a dict)."""

    def __init__(self, native):
        self._native = native
        self.summary = native.summary()
        self.nodes = native.nodes()

    @classmethod
    def load(cls, path):
        """Reads a profile written by save_json or `strata profile -o`."""
        return cls(_strata.Profile.load(_os.fspath(path)))

    @property
    def json(self):
        return _json.loads(self._native.to_json())

    def save_json(self, path):
        """Writes docs/profile-format.md's JSON (readable by `strata report` and `strata diff`)."""
        self._native.save_json(_os.fspath(path))

    def save_trace(self, path):
        """Writes a Chrome trace (open it in https://ui.perfetto.dev)."""
        self._native.save_trace(_os.fspath(path))

    def save_html(self, path):
        """Writes the self-contained HTML report `strata profile --html` writes (charts, tables)."""
        self._native.save_html(_os.fspath(path))

    def html(self):
        """The HTML report as a string (for IPython.display.HTML)."""
        return self._native.html()

    def __str__(self):
        return self._native.render()

    def __repr__(self):
        s = self.summary
        return (f"<strata.Profile {s['model']}: median {s['median_ms']:.3f} ms over "
                f"{s['iterations']} iterations, {len(self.nodes)} nodes>")


def profile(model, inputs=None, *, iterations=20, warmup=1, threads=1, optimize=True,
            fast_kernels=True, layout="auto", isolate=False, roofline=False, shapes=None,
            dims=None, seed=0):
    """Profiles the model as `strata profile` does; returns a strata.Profile."""
    model = _model(model)
    bound = bind_inputs(model, inputs, shapes=shapes, dims=dims, seed=seed)
    return Profile(_strata.profile(model, bound, iterations, warmup, threads, optimize,
                                   fast_kernels, layout, isolate, roofline))


class Analysis(dict):
    """`strata analyze --json` as a dict: "totals", "nodes" (per-node figures), "inputs",
    "symbols"...; str() gives the tables `strata analyze` prints, save_html its HTML report."""

    def __init__(self, native):
        super().__init__(_json.loads(native.to_json()))
        self._native = native
        self.text = native.render()

    def save_html(self, path):
        """Writes the self-contained HTML report `strata analyze --html` writes."""
        self._native.save_html(_os.fspath(path))

    def html(self):
        """The HTML report as a string (for IPython.display.HTML)."""
        return self._native.html()

    def __str__(self):
        return self.text


def analyze(model, *, dims=None, shapes=None):
    """Shapes, parameters, FLOPs and memory without running (weights are not read).

    `dims` sizes symbolic dimensions ({"N": 8}); `shapes` replaces input shapes, symbols allowed
    ({"input": "Nx3xHxW"}).
    """
    path = model.path if isinstance(model, Model) else _os.fspath(model)
    return Analysis(_strata.analyze(path, dict(shapes or {}), dict(dims or {})))


def compare(a, b=None, *, against=None, inputs=None, threads=1, layout="auto", rtol=1e-3,
            atol=1e-7, elementwise=False, seed=0):
    """Compares every value of two runs and names the first divergent node (`strata compare`).

    compare(dump_a, dump_b): two dumps (`strata run --dump-all` folders, folders of .npy, .npz).
    compare(model, against="reference" | "nchw" | "nhwc" | "blocked" | "threads=4" | DUMP):
    runs the model twice. Returns a dict: "agree", "first_divergent_node", "values" (per value),
    "report" (the text `strata compare` prints).
    """
    if against is None:
        if b is None:
            raise Error("compare takes two dumps, or a model with against=")
        return _strata.compare_dumps(_os.fspath(a), _os.fspath(b), rtol, atol, elementwise)
    if b is not None:
        raise Error("compare with against= takes one model, not two paths")
    model = _model(a)
    bound = bind_inputs(model, inputs, seed=seed)
    return _strata.compare_runs(model, bound, against, threads, True, True, layout, rtol, atol,
                                elementwise)


def profile_module(module, example_inputs, *, iterations=20, threads=1, opset=None, path=None,
                   **options):
    """Exports a torch.nn.Module with torch.onnx and profiles the export.

    The exported node names carry the module tree ("/layer1/layer1.0/conv1/Conv"), so the
    profile's scopes are the module's submodules. `path` keeps the .onnx file (else a temporary
    file is used and removed). Other options go to strata.profile.
    """
    import torch

    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    names = [f"input_{i}" for i in range(len(example_inputs))]
    with _tempfile.TemporaryDirectory() as tmp:
        onnx_path = _os.fspath(path) if path else _os.path.join(tmp, "module.onnx")
        was_training = module.training
        module.eval()
        try:
            with torch.no_grad():
                kwargs = {} if opset is None else {"opset_version": opset}
                torch.onnx.export(module, example_inputs, onnx_path, input_names=names, **kwargs)
        finally:
            module.train(was_training)
        inputs = {n: t.detach().cpu().numpy() for n, t in zip(names, example_inputs)}
        return profile(onnx_path, inputs, iterations=iterations, threads=threads, **options)
