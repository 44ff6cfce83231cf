// strata._strata: the public C++ API (include/strata/) for Python, numpy arrays in and out.
// python/strata/__init__.py builds the documented functions (docs/python.md) on top of it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <strata/strata.h>

#include <cstring>

namespace py = pybind11;

namespace {

// numpy's dtype for a strata dtype; bfloat16 has none and comes out as float32.
py::dtype numpy_dtype(strata::DType dtype) {
  switch (dtype) {
    case strata::DType::kF32: return py::dtype::of<float>();
    case strata::DType::kF64: return py::dtype::of<double>();
    case strata::DType::kF16: return py::dtype("float16");
    case strata::DType::kBF16: return py::dtype::of<float>();
    case strata::DType::kI8: return py::dtype::of<int8_t>();
    case strata::DType::kI16: return py::dtype::of<int16_t>();
    case strata::DType::kI32: return py::dtype::of<int32_t>();
    case strata::DType::kI64: return py::dtype::of<int64_t>();
    case strata::DType::kU8: return py::dtype::of<uint8_t>();
    case strata::DType::kU16: return py::dtype::of<uint16_t>();
    case strata::DType::kU32: return py::dtype::of<uint32_t>();
    case strata::DType::kU64: return py::dtype::of<uint64_t>();
    case strata::DType::kBool: return py::dtype::of<bool>();
    default:
      throw strata::Error(strata::ErrorCode::kBadInput,
                          "no numpy dtype for " + std::string(strata::dtype_name(dtype)));
  }
}

strata::DType strata_dtype(const py::dtype& dtype, const std::string& what) {
  const char kind = dtype.kind();
  const size_t size = size_t(dtype.itemsize());
  using D = strata::DType;
  if (kind == 'f' && size == 4) return D::kF32;
  if (kind == 'f' && size == 8) return D::kF64;
  if (kind == 'f' && size == 2) return D::kF16;
  if (kind == 'b' && size == 1) return D::kBool;
  const D signed_types[] = {D::kI8,        D::kI16,       D::kUndefined, D::kI32,
                            D::kUndefined, D::kUndefined, D::kUndefined, D::kI64};
  const D unsigned_types[] = {D::kU8,        D::kU16,       D::kUndefined, D::kU32,
                              D::kUndefined, D::kUndefined, D::kUndefined, D::kU64};
  if (kind == 'i' && size >= 1 && size <= 8 && signed_types[size - 1] != D::kUndefined)
    return signed_types[size - 1];
  if (kind == 'u' && size >= 1 && size <= 8 && unsigned_types[size - 1] != D::kUndefined)
    return unsigned_types[size - 1];
  throw strata::Error(
      strata::ErrorCode::kBadInput,
      what + ": numpy dtype " + std::string(py::str(py::handle(dtype))) + " has no strata dtype");
}

strata::Array to_array(const py::handle& object, const std::string& what) {
  py::array a = py::array::ensure(object, py::array::c_style);
  if (!a) throw strata::Error(strata::ErrorCode::kBadInput, what + " is not an array");
  const strata::DType dtype = strata_dtype(a.dtype(), what);
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  return strata::Array::copy_of(dtype, std::move(shape), a.data(), size_t(a.nbytes()));
}

py::array to_numpy(const strata::Array& array) {
  // Sequences, optionals and strings have no numpy array of numbers.
  if (!array.is_tensor() || array.dtype() == strata::DType::kString)
    throw strata::Error(strata::ErrorCode::kBadInput,
                        "a value of type " + array.type_string() +
                            " has no numpy array: the module returns numeric tensors only");
  std::vector<py::ssize_t> shape(array.shape().begin(), array.shape().end());
  if (array.dtype() != strata::DType::kBF16)
    return py::array(numpy_dtype(array.dtype()), shape, array.raw());  // copies
  py::array_t<float> out(shape);
  const uint16_t* bits = array.data<uint16_t>();
  float* f = out.mutable_data();
  for (int64_t i = 0; i < array.numel(); ++i) {
    const uint32_t u = uint32_t(bits[i]) << 16;
    std::memcpy(&f[i], &u, sizeof u);
  }
  return out;
}

strata::NamedArrays named_arrays(const py::dict& inputs) {
  strata::NamedArrays named;
  for (const auto& [key, value] : inputs) {
    const std::string name = py::str(key);
    named.push_back({name, to_array(value, "input '" + name + "'")});
  }
  return named;
}

py::dict to_dict(const strata::NamedArrays& arrays) {
  py::dict out;
  for (const strata::NamedArray& n : arrays) out[py::str(n.name)] = to_numpy(n.array);
  return out;
}

py::dict value_info(const strata::ValueInfo& v) {
  py::dict d;
  d["name"] = v.name;
  d["dtype"] = std::string(strata::dtype_name(v.dtype));
  d["shape"] = v.shape_known ? py::object(py::cast(v.shape)) : py::object(py::none());
  d["dims"] = v.dims;
  d["type"] = v.type_string();
  return d;
}

strata::SessionOptions session_options(int threads, bool optimize, bool fast_kernels,
                                       const std::string& layout, double timeout) {
  strata::SessionOptions o;
  o.threads = threads;
  o.optimize = optimize;
  o.fast_kernels = fast_kernels;
  o.layout = layout;
  o.timeout_seconds = timeout;
  return o;
}

py::dict record(const strata::NodeRecord& r) {
  py::dict d;
  d["name"] = r.name;
  d["op_type"] = r.op_type;
  d["kernel"] = r.kernel;
  d["layout"] = r.layout;
  d["input_shapes"] = r.input_shapes;
  d["output_shapes"] = r.output_shapes;
  d["median_ms"] = r.median_ms;
  d["mean_ms"] = r.mean_ms;
  d["min_ms"] = r.min_ms;
  d["max_ms"] = r.max_ms;
  d["share_pct"] = r.share_pct;
  d["first_run_ms"] = r.first_run_ms;
  d["isolated_median_ms"] = r.isolated_median_ms;
  d["has_cost"] = r.has_cost;
  d["macs"] = r.macs;
  d["flops"] = r.flops;
  d["bytes_read"] = r.bytes_read;
  d["bytes_written"] = r.bytes_written;
  d["gflops_per_s"] = r.gflops_per_s;
  d["heap_allocations"] = r.heap_allocations;
  d["heap_bytes"] = r.heap_bytes;
  return d;
}

py::dict summary(const strata::ProfileSummary& s) {
  py::dict d;
  d["model"] = s.model;
  d["threads"] = s.threads;
  d["iterations"] = s.iterations;
  d["min_ms"] = s.min_ms;
  d["median_ms"] = s.median_ms;
  d["mean_ms"] = s.mean_ms;
  d["p90_ms"] = s.p90_ms;
  d["max_ms"] = s.max_ms;
  d["cv"] = s.cv;
  d["first_iteration_ms"] = s.first_iteration_ms;
  d["overhead_pct"] = s.overhead_pct;
  d["load_ms"] = s.load_ms;
  d["prepare_ms"] = s.prepare_ms;
  d["arena_bytes"] = s.arena_bytes;
  d["peak_rss_bytes"] = s.peak_rss_bytes;
  return d;
}

py::dict comparison(const strata::Comparison& c) {
  py::list values;
  for (const strata::ValueComparison& v : c.values) {
    py::dict d;
    d["value"] = v.value;
    d["node"] = v.node;
    d["op_type"] = v.op_type;
    d["ok"] = v.ok;
    d["problem"] = v.problem;
    d["max_abs_error"] = v.max_abs_error;
    d["max_rel_error"] = v.max_rel_error;
    d["cosine"] = v.cosine;
    d["mismatches"] = v.mismatches;
    d["max_ulp"] = v.max_ulp;
    values.append(d);
  }
  py::dict d;
  d["agree"] = c.agree();
  d["out_of_tolerance"] = c.out_of_tolerance;
  d["only_a"] = c.only_a;
  d["only_b"] = c.only_b;
  d["first_divergent_node"] = c.first_divergent_node.empty()
                                  ? py::object(py::none())
                                  : py::object(py::str(c.first_divergent_node));
  d["first_divergent_op"] = c.first_divergent_op;
  d["values"] = values;
  d["report"] = c.report;
  return d;
}

}  // namespace

PYBIND11_MODULE(_strata, m) {
  m.doc() = "strata's C++ API (include/strata/); use the strata package, not this module";
  m.attr("__version__") = strata::version();
  py::register_exception<strata::Error>(m, "Error");

  py::class_<strata::Model>(m, "Model")
      .def(py::init([](const std::string& path) { return strata::Model::load(path); }),
           py::arg("path"))
      .def_property_readonly("path", &strata::Model::path)
      .def_property_readonly("inputs",
                             [](const strata::Model& model) {
                               py::list l;
                               for (const auto& v : model.inputs()) l.append(value_info(v));
                               return l;
                             })
      .def_property_readonly("outputs",
                             [](const strata::Model& model) {
                               py::list l;
                               for (const auto& v : model.outputs()) l.append(value_info(v));
                               return l;
                             })
      .def_property_readonly("opset", &strata::Model::opset)
      .def_property_readonly("ir_version", &strata::Model::ir_version)
      .def_property_readonly("node_count", &strata::Model::node_count)
      .def_property_readonly("producer", &strata::Model::producer)
      .def_property_readonly("warnings", &strata::Model::warnings)
      .def("__repr__", [](const strata::Model& model) {
        return "<strata.Model '" + model.path() + "', " + std::to_string(model.node_count()) +
               " nodes>";
      });

  m.def(
      "bind_inputs",
      [](const strata::Model& model, const py::dict& arrays,
         const std::vector<std::string>& sources,
         const std::map<std::string, std::vector<int64_t>>& shapes,
         const std::map<std::string, int64_t>& dims, uint64_t seed) {
        strata::InputOptions o;
        for (strata::NamedArray& n : named_arrays(arrays)) o.arrays[n.name] = std::move(n.array);
        o.sources = sources;
        o.shapes = shapes;
        o.dims = dims;
        o.seed = seed;
        strata::NamedArrays bound;
        {
          py::gil_scoped_release release;
          bound = strata::bind_inputs(model, o);
        }
        return to_dict(bound);
      },
      py::arg("model"), py::arg("arrays"), py::arg("sources"), py::arg("shapes"), py::arg("dims"),
      py::arg("seed"));

  m.def(
      "run",
      [](const strata::Model& model, const py::dict& inputs, int threads, bool optimize,
         bool fast_kernels, const std::string& layout, double timeout) {
        const strata::NamedArrays named = named_arrays(inputs);
        strata::NamedArrays outputs;
        {
          py::gil_scoped_release release;
          strata::Session session(
              model, named, session_options(threads, optimize, fast_kernels, layout, timeout));
          outputs = session.run(named);
        }
        return to_dict(outputs);
      },
      py::arg("model"), py::arg("inputs"), py::arg("threads"), py::arg("optimize"),
      py::arg("fast_kernels"), py::arg("layout"), py::arg("timeout"));

  py::class_<strata::Profile>(m, "Profile")
      .def_static("load", &strata::Profile::load, py::arg("path"))
      .def("summary", [](const strata::Profile& p) { return summary(p.summary()); })
      .def("nodes",
           [](const strata::Profile& p) {
             py::list l;
             for (const strata::NodeRecord& r : p.nodes()) l.append(record(r));
             return l;
           })
      .def("to_json", &strata::Profile::to_json)
      .def("trace_json", &strata::Profile::trace_json)
      .def("render", [](const strata::Profile& p) { return p.render(); })
      .def("save_json", &strata::Profile::save_json, py::arg("path"))
      .def("save_trace", &strata::Profile::save_trace, py::arg("path"))
      .def("html", &strata::Profile::html)
      .def("save_html", &strata::Profile::save_html, py::arg("path"));

  py::class_<strata::Analysis>(m, "Analysis")
      .def("to_json", &strata::Analysis::to_json)
      .def("render", [](const strata::Analysis& a) { return a.render(); })
      .def("html", &strata::Analysis::html)
      .def("save_html", &strata::Analysis::save_html, py::arg("path"));

  m.def(
      "profile",
      [](const strata::Model& model, const py::dict& inputs, int iterations, int warmup,
         int threads, bool optimize, bool fast_kernels, const std::string& layout, bool isolate,
         bool roofline) {
        const strata::NamedArrays named = named_arrays(inputs);
        strata::ProfileOptions o;
        o.session = session_options(threads, optimize, fast_kernels, layout, 0);
        o.iterations = iterations;
        o.warmup = warmup;
        o.isolate = isolate;
        o.roofline = roofline;
        py::gil_scoped_release release;
        return strata::profile(model, named, o);
      },
      py::arg("model"), py::arg("inputs"), py::arg("iterations"), py::arg("warmup"),
      py::arg("threads"), py::arg("optimize"), py::arg("fast_kernels"), py::arg("layout"),
      py::arg("isolate"), py::arg("roofline"));

  m.def(
      "analyze",
      [](const std::string& path, const std::map<std::string, std::string>& shapes,
         const std::map<std::string, int64_t>& dims) {
        strata::AnalysisOptions o;
        o.shapes = shapes;
        o.dims = dims;
        py::gil_scoped_release release;
        return strata::analyze(path, o);
      },
      py::arg("path"), py::arg("shapes"), py::arg("dims"));

  m.def(
      "compare_dumps",
      [](const std::string& a, const std::string& b, double rtol, double atol, bool elementwise) {
        strata::Comparison c;
        {
          py::gil_scoped_release release;
          c = strata::compare_dumps(a, b, {rtol, atol, elementwise});
        }
        return comparison(c);
      },
      py::arg("a"), py::arg("b"), py::arg("rtol"), py::arg("atol"), py::arg("elementwise"));

  m.def(
      "compare_runs",
      [](const strata::Model& model, const py::dict& inputs, const std::string& against,
         int threads, bool optimize, bool fast_kernels, const std::string& layout, double rtol,
         double atol, bool elementwise) {
        const strata::NamedArrays named = named_arrays(inputs);
        strata::Comparison c;
        {
          py::gil_scoped_release release;
          c = strata::compare_runs(model, named, against,
                                   session_options(threads, optimize, fast_kernels, layout, 0),
                                   {rtol, atol, elementwise});
        }
        return comparison(c);
      },
      py::arg("model"), py::arg("inputs"), py::arg("against"), py::arg("threads"),
      py::arg("optimize"), py::arg("fast_kernels"), py::arg("layout"), py::arg("rtol"),
      py::arg("atol"), py::arg("elementwise"));
}
