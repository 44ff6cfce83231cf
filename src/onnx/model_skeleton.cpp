#include "onnx/model_skeleton.h"

#include <google/protobuf/io/coded_stream.h>

#include <string>

#include "onnx/wire_reader.h"

namespace strata::onnx_import {

namespace {

// Field numbers from onnx.proto.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;

bool is_message(const WireField& f, uint32_t number) {
  return f.number == number && f.type == WireField::kBytes;
}

// Protobuf's default recursion limit (100) allows about 33 levels of subgraphs (graph → node →
// attribute → graph); this one lets the loader see deeper nesting and refuse it past
// ir::kMaxSubgraphDepth with a message naming the depth rather than "corrupt".
constexpr int kRecursionLimit = 1024;

bool parse(const std::string& bytes, google::protobuf::MessageLite& message) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            int(bytes.size()));
  in.SetRecursionLimit(kRecursionLimit);
  return message.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// A TensorProto without raw_data, whose bytes are returned as a view. As in protobuf, the last
// occurrence of a repeated singular field wins.
bool parse_tensor(std::string_view bytes, InitializerSkeleton& out) {
  std::string rest;
  WireReader reader(bytes);
  WireField f;
  while (reader.next(f)) {
    if (is_message(f, kTensorRawData))
      out.raw_data = f.payload;
    else
      rest.append(f.whole);
  }
  return parse(rest, out.proto);
}

}  // namespace

bool parse_model_skeleton(std::string_view bytes, ModelSkeleton& out,
                          const std::function<void(std::string_view)>& walked_past) {
  try {
    // A message field given several times is merged by protobuf, which for GraphProto amounts
    // to concatenating the occurrences: the graph's other fields are gathered in order, and so
    // are its initializers.
    std::string model_rest, graph_rest;
    bool has_graph = false;
    WireReader model(bytes);
    WireField f;
    while (model.next(f)) {
      if (!is_message(f, kModelGraph)) {
        model_rest.append(f.whole);
        continue;
      }
      has_graph = true;
      WireReader graph(f.payload);
      WireField g;
      while (graph.next(g)) {
        if (!is_message(g, kGraphInitializer)) {
          graph_rest.append(g.whole);
          continue;
        }
        if (!parse_tensor(g.payload, out.initializers.emplace_back())) return false;
        if (walked_past) walked_past(g.whole);
      }
    }
    if (!parse(model_rest, out.model)) return false;
    return !has_graph || parse(graph_rest, *out.model.mutable_graph());
  } catch (const WireError&) {
    return false;
  }
}

}  // namespace strata::onnx_import
