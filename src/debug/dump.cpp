#include "debug/dump.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "debug/tensor_stats.h"
#include "io/file.h"
#include "io/npy.h"
#include "io/npz.h"
#include "io/sha256.h"
#include "kernels/kernel.h"
#include "runtime/test_data.h"

namespace strata::debug {

namespace fs = std::filesystem;

namespace {

constexpr const char* kIndexFile = "index.json";
constexpr const char* kFormat = "strata-dump";
constexpr int kFormatVersion = 1;

// Copies every output of each step as it finishes (its buffer may be reused by later steps).
class Recorder final : public runtime::RunHooks {
 public:
  explicit Recorder(const runtime::Session& session)
      : session_(session), values_(session.graph().values.size()) {}
  void before_node(size_t) override {}
  void after_node(size_t s) override {
    const ir::Node& node = session_.graph().nodes[session_.steps()[s].node_index];
    const std::vector<Tensor*>& outputs = session_.step_outputs(s);
    for (size_t j = 0; j < outputs.size() && j < node.outputs.size(); ++j)
      if (outputs[j] && outputs[j]->defined())
        values_[size_t(node.outputs[j])] = plain_copy(*outputs[j]);
  }
  std::vector<Tensor>& values() { return values_; }

 private:
  const runtime::Session& session_;
  std::vector<Tensor> values_;  // per graph value
};

bool writable_as_npy(DType dtype) {
  return dtype != DType::kBF16 && dtype_size(dtype) != 0;
}

nlohmann::json value_json(const std::string& name, const Tensor& t) {
  return {{"name", name},
          {"file", writable_as_npy(t.dtype()) ? runtime::tensor_file_stem(name) + ".npy" : ""},
          {"dtype", dtype_name(t.dtype())},
          {"shape", t.shape()}};
}

// Reads index.json's nodes and their files.
Dump read_index_dump(const fs::path& dir) {
  const fs::path index_path = dir / kIndexFile;
  std::ifstream in(index_path);
  if (!in) fail("{}: cannot read it", index_path.string());
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid JSON ({})", index_path.string(), e.what());
  }
  Dump dump;
  dump.source = dir.string();
  dump.ordered = true;
  try {
    if (index.value("format", "") != kFormat)
      fail("{}: not a strata dump index (no \"format\": \"{}\")", index_path.string(), kFormat);
    if (index.at("version").get<int>() > kFormatVersion)
      fail("{}: dump format version {} is newer than this strata reads ({})", index_path.string(),
           index.at("version").get<int>(), kFormatVersion);
    dump.model_signature = index.value("model_signature", "");
    auto load = [&](const nlohmann::json& v) {
      const std::string name = v.at("name").get<std::string>();
      const std::string file = v.at("file").get<std::string>();
      if (file.empty()) return name;  // a dtype .npy cannot hold
      const fs::path path = dir / file;
      if (!fs::exists(path))
        fail("{}: index.json lists '{}' for value '{}' but the file is missing", dir.string(), file,
             name);
      Tensor t = io::read_npy(path.string());
      const auto shape = v.at("shape").get<std::vector<int64_t>>();
      if (t.shape() != shape || dtype_name(t.dtype()) != v.at("dtype").get<std::string>())
        fail("{}: holds {}{} but index.json says {}{}", path.string(), dtype_name(t.dtype()),
             t.shape_str(), v.at("dtype").get<std::string>(), Shape::of(shape).str());
      dump.values[runtime::tensor_file_stem(name)] = std::move(t);
      return name;
    };
    for (const nlohmann::json& v : index.at("inputs")) dump.graph_inputs.push_back(load(v));
    for (const nlohmann::json& n : index.at("nodes")) {
      DumpNode node;
      node.name = n.at("name").get<std::string>();
      node.op_type = n.at("op_type").get<std::string>();
      node.fused_from = n.value("fused_from", std::vector<std::string>{});
      node.inputs = n.value("inputs", std::vector<std::string>{});
      node.folded = n.value("folded", false);
      for (const nlohmann::json& v : n.at("outputs")) node.outputs.push_back(load(v));
      dump.nodes.push_back(std::move(node));
    }
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not a valid strata dump index ({})", index_path.string(), e.what());
  }
  return dump;
}

}  // namespace

std::string model_signature(const ir::Graph& graph) {
  std::string text;
  auto names = [&](const std::vector<ir::ValueId>& ids) {
    for (ir::ValueId id : ids)
      text += (id == ir::kNoValue ? "" : graph.values[size_t(id)].name) + '\n';
    text += '\x1f';
  };
  names(graph.inputs);
  names(graph.outputs);
  for (const ir::Node& node : graph.nodes) {
    text += node.name + '\n' + node.op_type + '\n';
    names(node.inputs);
    names(node.outputs);
  }
  return io::sha256_hex(text);
}

const Tensor* Dump::find(const std::string& name) const {
  const auto it = values.find(runtime::tensor_file_stem(name));
  return it == values.end() ? nullptr : &it->second;
}

Tensor plain_copy(const Tensor& t) {
  // A view (Flatten, Reshape) keeps the layout of the buffer it shares, but the session shares
  // one only where both read the bytes in the same order: a rank the layout cannot hold is plain.
  if (t.layout() == Layout::kPlain || !layout_fits(t.layout(), t.rank()) ||
      same_memory_order(t.shape(), t.layout(), Layout::kPlain))
    return t.clone();
  Tensor plain = Tensor::zeros(t.dtype(), t.shape());
  const std::unique_ptr<kernels::Kernel> reorder =
      kernels::make_reorder(t.dtype(), t.shape(), t.layout(), Layout::kPlain);
  Tensor scratch = Tensor::zeros(DType::kU8, {std::max<int64_t>(reorder->scratch_bytes(), 1)});
  const Tensor* src[] = {&t};
  Tensor* dst[] = {&plain};
  reorder->run({src, 1, dst, 1, scratch.raw()});
  return plain;
}

Dump record_run(runtime::Session& session, const std::vector<const Tensor*>& inputs,
                const std::string& model_signature) {
  Recorder recorder(session);
  session.set_hooks(&recorder);
  try {
    session.run(inputs);
  } catch (...) {
    session.set_hooks(nullptr);
    throw;
  }
  session.set_hooks(nullptr);

  const ir::Graph& graph = session.graph();
  std::vector<Tensor>& values = recorder.values();
  Dump dump;
  dump.source = "this run";
  dump.model_signature = model_signature;
  dump.ordered = true;
  for (size_t i = 0; i < graph.inputs.size() && i < inputs.size(); ++i) {
    const std::string& name = graph.values[size_t(graph.inputs[i])].name;
    dump.graph_inputs.push_back(name);
    dump.values[runtime::tensor_file_stem(name)] = inputs[i]->clone();
  }
  // Steps run in graph order; folded nodes sit between them where the graph has them.
  std::vector<bool> ran(graph.nodes.size(), false);
  for (const runtime::StepInfo& step : session.steps()) ran[step.node_index] = true;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    DumpNode d{node.name, node.op_type, node.fused_from, {}, {}, !ran[n]};
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue) d.inputs.push_back(graph.values[size_t(id)].name);
    for (ir::ValueId id : node.outputs) {
      if (id == ir::kNoValue) continue;
      Tensor& t = values[size_t(id)];
      if (!ran[n]) {  // folded: its value is a constant of the session
        const ops::Meta& m = session.metas()[size_t(id)];
        if (!m.value) continue;
        t = m.value->clone();
      }
      if (!t.defined()) continue;
      const std::string& name = graph.values[size_t(id)].name;
      d.outputs.push_back(name);
      dump.values[runtime::tensor_file_stem(name)] = std::move(t);
    }
    dump.nodes.push_back(std::move(d));
  }
  return dump;
}

void write_dump(const Dump& dump, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("--dump-all: cannot create the folder '{}' ({})", dir, ec.message());
  auto write_value = [&](const std::string& name) {
    const Tensor* t = dump.find(name);
    if (!t) fail_internal("dump value '{}' has no tensor", name);
    nlohmann::json v = value_json(name, *t);
    if (!v["file"].get<std::string>().empty())
      io::write_npy((fs::path(dir) / v["file"].get<std::string>()).string(), *t);
    return v;
  };
  nlohmann::json index = {{"format", kFormat},
                          {"version", kFormatVersion},
                          {"model_signature", dump.model_signature},
                          {"inputs", nlohmann::json::array()},
                          {"nodes", nlohmann::json::array()}};
  for (const std::string& name : dump.graph_inputs) index["inputs"].push_back(write_value(name));
  for (const DumpNode& node : dump.nodes) {
    nlohmann::json outputs = nlohmann::json::array();
    for (const std::string& name : node.outputs) outputs.push_back(write_value(name));
    index["nodes"].push_back({{"name", node.name},
                              {"op_type", node.op_type},
                              {"fused_from", node.fused_from},
                              {"folded", node.folded},
                              {"inputs", node.inputs},
                              {"outputs", outputs}});
  }
  io::write_file((fs::path(dir) / kIndexFile).string(), index.dump(1) + "\n");
}

Dump read_dump(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    if (fs::path(path).extension() != ".npz")
      fail(
          "{}: not a dump (give a folder written by --dump-all, a folder of .npy files or an "
          ".npz file)",
          path);
    Dump dump;
    dump.source = path;
    for (auto& [name, tensor] : io::read_npz(path))
      dump.values[runtime::tensor_file_stem(name)] = std::move(tensor);
    if (dump.values.empty()) fail("{}: the archive holds no arrays", path);
    return dump;
  }
  if (!fs::is_directory(path, ec)) fail("{}: no such dump folder or .npz file", path);
  if (fs::exists(fs::path(path) / kIndexFile)) return read_index_dump(path);
  Dump dump;
  dump.source = path;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".npy")
      dump.values[e.path().stem().string()] = io::read_npy(e.path().string());
  if (ec) fail("{}: cannot list the folder ({})", path, ec.message());
  if (dump.values.empty())
    fail("{}: holds neither an index.json nor any .npy file (not a dump folder)", path);
  return dump;
}

std::string io_summary(const Dump& dump) {
  std::string out;
  auto line = [&](const std::string& name) {
    const Tensor* t = dump.find(name);
    if (!t) return;
    out += fmt::format("  {}: {}\n", name, format_stats(*t, tensor_stats(*t)));
  };
  if (!dump.graph_inputs.empty()) out += "inputs\n";
  for (const std::string& name : dump.graph_inputs) line(name);
  for (const DumpNode& node : dump.nodes) {
    out += fmt::format("{} '{}'{}{}\n", node.op_type, node.name,
                       node.fused_from.empty()
                           ? ""
                           : fmt::format(" (fused from {})", fmt::join(node.fused_from, ", ")),
                       node.folded ? " (folded at prepare)" : "");
    for (const std::string& name : node.outputs) line(name);
  }
  if (!dump.ordered)
    for (const auto& [name, t] : dump.values)
      out += fmt::format("  {}: {}\n", name, format_stats(t, tensor_stats(t)));
  return out;
}

}  // namespace strata::debug
