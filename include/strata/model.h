// strata::Model: an ONNX model loaded, its ops checked and its shapes inferred.
//
//   strata::Model model = strata::Model::load("examples/tiny_resnet.onnx");
//   for (const strata::ValueInfo& in : model.inputs())
//     std::printf("%s %s\n", in.name.c_str(), in.type_string().c_str());
//   // image float32[1,3,32,32]
//
// A Model is cheap to copy (copies share the loaded graph) and is never modified: each Session
// optimises its own copy of the graph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/dtype.h"
#include "strata/progress.h"

namespace strata {

// A graph input or output as the model declares it.
struct ValueInfo {
  std::string name;
  DType dtype = DType::kUndefined;  // undefined when the model does not say
  bool shape_known = false;         // false: the model gives no shape at all
  std::vector<int64_t> shape;       // -1 for a dynamic dim
  std::vector<std::string> dims;    // per dim: its symbol ("N") or "" when static or unnamed
  // "float32[N,3,224,224]"
  std::string type_string() const;
};

class Model {
 public:
  // Parses the file, checks every op is supported and infers shapes. Throws strata::Error
  // (code kBadInput) naming the file for an unreadable or malformed file or unsupported ops.
  // `progress` is told of the phase "load" while it goes on.
  static Model load(const std::string& path, const ProgressFn& progress = {});

  const std::string& path() const;
  const std::vector<ValueInfo>& inputs() const;
  const std::vector<ValueInfo>& outputs() const;
  int64_t ir_version() const;
  int64_t opset() const;
  size_t node_count() const;
  std::string producer() const;  // "pytorch 2.1" ("" when not given)
  double load_ms() const;        // time the load took
  const std::vector<std::string>& warnings() const;

  struct Impl;  // the library's own (src/api/model_impl.h)
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace strata
