// Every value one inference computes, kept to find the layer that goes wrong: recorded from a
// session run, written as a folder of .npy files with index.json (`strata run --dump-all`), read
// back, or read from .npz files and .npy folders that Python scripts write.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "runtime/session.h"

namespace strata::debug {

// A node as a dump lists it, in execution order.
struct DumpNode {
  std::string name;
  std::string op_type;
  std::vector<std::string> fused_from;  // the model's nodes a fused node stands for
  std::vector<std::string> inputs;      // value names read (omitted optional inputs left out)
  std::vector<std::string> outputs;     // value names written
  bool folded = false;                  // computed once at prepare (constants, shape arithmetic)
};

struct Dump {
  std::string source;  // the folder or file, for messages
  // model_signature() of the model as loaded; "" when unknown (dumps made by other tools).
  std::string model_signature;
  // True for strata dumps (index.json): nodes and graph_inputs are known. False for a folder of
  // .npy files or an .npz archive: values only.
  bool ordered = false;
  std::vector<std::string> graph_inputs;
  std::vector<DumpNode> nodes;
  // Plain tensors by file stem (runtime::tensor_file_stem of the value name), so names match
  // however a script spelled the '/' and ':' of exported names.
  std::map<std::string, Tensor> values;

  // The value named `name`, or nullptr.
  const Tensor* find(const std::string& name) const;
};

// SHA-256 of a model's structure as loaded, before the graph passes: its inputs, outputs and
// nodes (names, op types, the values they read and write), not its weights. Dumps of one model
// under any options share it, as do dumps of a model whose weights were edited.
std::string model_signature(const ir::Graph& graph);

// A plain (row-major) copy of `t`, converted from the blocked or channels-last layout a fast
// kernel wrote it in.
Tensor plain_copy(const Tensor& t);

// Runs `session` once on `inputs`, keeping the graph inputs and every node's outputs (plain),
// nodes in execution order; nodes folded at prepare are listed with their constant values.
// `model_signature` identifies the model (model_signature()).
Dump record_run(runtime::Session& session, const std::vector<const Tensor*>& inputs,
                const std::string& model_signature);

// Writes DIR/NAME.npy per value (names through runtime::tensor_file_stem) and DIR/index.json,
// creating DIR. bfloat16 and string values, which .npy cannot hold, are listed without a file.
void write_dump(const Dump& dump, const std::string& dir);

// Reads a `write_dump` folder, a folder of NAME.npy files, or an .npz archive. Fails (exit 2)
// with one sentence naming the path: missing, unreadable or inconsistent files, empty folders.
Dump read_dump(const std::string& path);

// Per value in execution order: name, shape, dtype, min, max, mean, sd, NaN and Inf counts and
// the first values (`strata run --io-dump FILE`).
std::string io_summary(const Dump& dump);

}  // namespace strata::debug
