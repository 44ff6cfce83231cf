// Fast kernels: optional faster implementations of an op, tried before its reference kernel.
// A kernel family answers whether it supports a node (always with a reason), prepares a kernel for
// it once (primitives built, weights packed, scratch booked), and the prepared kernel's run only
// computes on the buffers it is given: it never allocates and never decides shapes.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/layout.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "ops/op.h"

namespace strata::kernels {

// Which activation layout fast kernels should use where they have a choice (--layout).
enum class LayoutPolicy {
  kPlain,         // nchw everywhere: no reorders
  kChannelsLast,  // nhwc for convolution activations
  kBlocked,       // nChw16c (AVX-512) or nChw8c (AVX2) for convolution activations
  kAuto,          // what oneDNN prefers for the convolutions on this CPU
};

// "nchw", "nhwc", "blocked", "auto" ↔ policy; parse fails (exit 2) naming the option's value.
const char* layout_policy_name(LayoutPolicy policy);
LayoutPolicy parse_layout_policy(const std::string& text);

// One node as a kernel family sees it at prepare time. Shapes are concrete.
struct NodeRequest {
  const ir::Graph& graph;
  const ir::Node& node;
  const ops::Op& op;
  std::vector<const ops::Meta*> inputs;  // nullptr for an omitted optional input
  std::vector<const ops::Meta*> outputs;
  std::vector<Layout> input_layouts;  // the layout each input has now (plain when omitted)
  // Per output: true when the value must be plain (a graph output, or read by a kernel that
  // needs plain data); the kernel then writes plain.
  std::vector<bool> output_needs_plain;
  LayoutPolicy layout_policy = LayoutPolicy::kAuto;
  int threads = 1;
  // Which of a family's implementations to build, in its library's order of preference (0: the one
  // the library prefers). Fast-run builds each in turn; past the last, prepare throws
  // NoSuchImplementation.
  int implementation = 0;

  bool has_input(size_t i) const { return i < inputs.size() && inputs[i]; }
  const ops::Meta& input(size_t i) const { return *inputs[i]; }
  const ops::Meta& output(size_t i) const { return *outputs[i]; }
};

// A family's answer to "can you run this node?": yes or no, and why.
struct Verdict {
  bool ok = false;
  std::string reason;
  static Verdict yes(std::string why) { return {true, std::move(why)}; }
  static Verdict no(std::string why) { return {false, std::move(why)}; }
};

// `bytes` rounded up to the 64-byte alignment the scratch memory and each part a kernel cuts from
// it keep (the session plans the scratch 64-byte aligned).
inline int64_t scratch_aligned(int64_t bytes) {
  return (bytes + 63) / 64 * 64;
}

// Buffers of one execution, in the layouts the kernel asked for. `scratch` holds
// scratch_bytes() bytes (64-byte aligned), planned by the session like an activation.
struct KernelArgs {
  const Tensor* const* inputs;  // nullptr entries for omitted optional inputs
  size_t num_inputs;
  Tensor* const* outputs;
  size_t num_outputs;
  void* scratch;
};

// A kernel prepared for one node and one set of shapes.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Implementation that runs, e.g. "onednn:brgconv:avx512_core".
  const std::string& name() const { return name_; }
  // The layout the kernel reads input i in (the session reorders to it) and writes output j in.
  Layout input_layout(size_t i) const {
    return i < input_layouts_.size() ? input_layouts_[i] : Layout::kPlain;
  }
  Layout output_layout(size_t j) const {
    return j < output_layouts_.size() ? output_layouts_[j] : Layout::kPlain;
  }
  int64_t scratch_bytes() const { return scratch_bytes_; }
  // The input whose buffer the kernel may write output 0 into (same layout and size), when the
  // session can give it up (its last reader); -1 for none. The kernel works either way.
  int inplace_input() const { return inplace_input_; }
  // The input whose bytes output 0 is, reinterpreted (Reshape, and Transposes that only relabel a
  // layout): the session lets the output share that input's buffer; -1 for none. The kernel copies
  // when they are apart.
  int view_of_input() const { return view_of_input_; }
  // Per input, the byte offset in output 0 where that input's bytes lie whole, when every input
  // is one contiguous part of the output (a concatenation with nothing laid out before its axis):
  // the session may place the inputs there, so that their producers write the output; the kernel
  // copies only the inputs that are elsewhere. Empty otherwise.
  const std::vector<int64_t>& input_parts() const { return input_parts_; }
  // Bytes of weights packed at prepare, held by the kernel (outside the arena).
  int64_t packed_bytes() const { return packed_bytes_; }
  // How the kernel arranged its work when that differs from the obvious one, and what it rejected
  // (e.g. "the addends run as a separate primitive: fused, oneDNN had only ref:any"); empty
  // otherwise. The session appends it to the step's reason.
  const std::string& note() const { return note_; }
  // Computes; never allocates.
  virtual void run(const KernelArgs& args) = 0;
  // What the runs so far did that depends on the data and costs time, when some did (an exact
  // int8 product falling back to a slower way on activations far from their zero point: "16-bit
  // pairs on 3 of 8 calls: ..."); empty otherwise. Reported by strata run and profile.
  virtual std::string run_note() const { return {}; }

 protected:
  std::string name_;
  std::string note_;
  std::vector<Layout> input_layouts_;
  std::vector<Layout> output_layouts_;
  int64_t scratch_bytes_ = 0;
  int64_t packed_bytes_ = 0;
  int inplace_input_ = -1;
  int view_of_input_ = -1;
  std::vector<int64_t> input_parts_;
};

// Thrown by a family's prepare when NodeRequest::implementation is past the end of its list.
struct NoSuchImplementation : std::runtime_error {
  NoSuchImplementation() : std::runtime_error("no such implementation") {}
};

// A family of fast kernels for some op types (e.g. oneDNN convolution for Conv and FusedConv).
struct KernelFamily {
  const char* name;
  // True when its kernels read their data inputs in whatever layout they come in (convolution,
  // pooling, element-wise): a value read only by such kernels need not be made plain.
  bool reads_any_layout;
  // True when the family is meant for this node's op type (others never hear of it).
  bool (*serves)(const ir::Node& node);
  // Whether it supports this node, and why (or why not).
  Verdict (*supports)(const NodeRequest& request);
  // Builds the kernel; called only after supports() said yes. Fails (throws) when the library
  // turns the configuration down after all; the session then falls back with that reason.
  std::unique_ptr<Kernel> (*prepare)(const NodeRequest& request);
  // True when prepare honours NodeRequest::implementation (oneDNN's list of implementations of a
  // primitive); families with one implementation ignore it.
  bool lists_implementations;
};

// Every family, best first (src/kernels/kernel_list.inc).
const std::vector<KernelFamily>& kernel_families();

// The outcome of choosing a fast kernel for a node: the kernel, or nullptr and the reasons the
// families that serve the node gave (empty when none serves it).
struct Choice {
  std::unique_ptr<Kernel> kernel;
  std::string reason;
  const KernelFamily* family = nullptr;  // the family that built the kernel
  int implementation = 0;                // its NodeRequest::implementation
  int threads = 1;                       // the OpenMP threads it was built for and must run on
  bool threads_timed =
      false;  // fast-run (now or in the algo cache) chose `threads`, not the request
  // No kernel because fast-run timed the op's reference kernel fastest (then `reason` says so).
  bool reference_won = false;
};
Choice choose_kernel(const NodeRequest& request);

// The families that serve and support the node, in the registry's order, each with its verdict's
// reason; `refusals` receives why the others that serve it declined ("family: reason").
struct SupportingFamily {
  const KernelFamily* family;
  std::string reason;
};
std::vector<SupportingFamily> supporting_families(const NodeRequest& request,
                                                  std::vector<std::string>& refusals);

// `family`'s kernel for the request, or nullptr when the library turns the configuration down
// (why is appended to `refusals`). NoSuchImplementation passes through.
std::unique_ptr<Kernel> prepare_or_refuse(const KernelFamily& family, const NodeRequest& request,
                                          std::vector<std::string>& refusals);

// How many times the fast kernels have called into their library (oneDNN primitive executions),
// over all threads. oneDNN's execute allocates a few small blocks per call for its argument map
// (inside the library, unavoidable through its API); tests tell those from strata's own this way.
int64_t library_calls();

// A kernel that converts one tensor between layouts (for the session's boundaries).
std::unique_ptr<Kernel> make_reorder(DType dtype, const std::vector<int64_t>& shape, Layout from,
                                     Layout to);

}  // namespace strata::kernels
