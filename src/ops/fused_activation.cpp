#include "ops/fused_activation.h"

#include <cmath>
#include <numbers>

namespace strata::ops {

namespace {

struct ActivationEntry {
  ActivationKind kind;
  const char* name;
  double flops;  // as docs/cost-conventions.md counts the op(s) it replaced
};

constexpr ActivationEntry kActivationEntries[] = {
    {ActivationKind::kNone, "", 0},
    {ActivationKind::kRelu, "Relu", 1},
    {ActivationKind::kLeakyRelu, "LeakyRelu", 2},
    {ActivationKind::kClip, "Clip", 2},
    {ActivationKind::kSigmoid, "Sigmoid", 4},
    {ActivationKind::kTanh, "Tanh", 1},
    {ActivationKind::kSilu, "Silu", 5},  // Sigmoid's 4 and the Mul
    {ActivationKind::kGelu, "Gelu", 5},
    {ActivationKind::kGeluTanh, "GeluTanh", 9},
    {ActivationKind::kElu, "Elu", 4},
    {ActivationKind::kHardSigmoid, "HardSigmoid", 4},
    {ActivationKind::kHardSwish, "HardSwish", 5},
};

const ActivationEntry& entry(ActivationKind kind) {
  for (const ActivationEntry& e : kActivationEntries)
    if (e.kind == kind) return e;
  return kActivationEntries[0];
}

}  // namespace

const char* activation_name(ActivationKind kind) {
  return entry(kind).name;
}

double activation_flops(ActivationKind kind) {
  return entry(kind).flops;
}

Activation parse_activation(const NodeInfo& node) {
  const std::string name = node.attr_string("activation", "");
  Activation a;
  bool known = false;
  for (const ActivationEntry& e : kActivationEntries)
    if (name == e.name) {
      a.kind = e.kind;
      known = true;
    }
  if (!known) fail("attribute 'activation' has unknown value '{}'", name);
  a.alpha = node.attr_float("activation_alpha", 0);
  a.beta = node.attr_float("activation_beta", 0);
  if (a.kind == ActivationKind::kClip && a.alpha > a.beta)
    fail("attribute 'activation_alpha' (min {}) is above 'activation_beta' (max {})", a.alpha,
         a.beta);
  return a;
}

void set_activation(ir::Node& node, const Activation& activation) {
  ir::Attribute kind;
  kind.kind = ir::Attribute::Kind::kString;
  kind.s = activation_name(activation.kind);
  node.attributes["activation"] = kind;
  ir::Attribute alpha, beta;
  alpha.kind = beta.kind = ir::Attribute::Kind::kFloat;
  alpha.f = activation.alpha;
  beta.f = activation.beta;
  node.attributes["activation_alpha"] = alpha;
  node.attributes["activation_beta"] = beta;
}

double apply_activation(const Activation& a, double x) {
  const double alpha = a.alpha, beta = a.beta;
  switch (a.kind) {
    case ActivationKind::kNone: return x;
    case ActivationKind::kRelu: return x > 0 ? x : 0;
    case ActivationKind::kLeakyRelu: return x >= 0 ? x : alpha * x;
    case ActivationKind::kClip: return std::min(std::max(x, alpha), beta);
    case ActivationKind::kSigmoid: return 1 / (1 + std::exp(-x));
    case ActivationKind::kTanh: return std::tanh(x);
    case ActivationKind::kSilu: return x / (1 + std::exp(-x));
    case ActivationKind::kGelu: return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2));
    case ActivationKind::kGeluTanh: {
      const double inner = std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x);
      return 0.5 * x * (1 + std::tanh(inner));
    }
    case ActivationKind::kElu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
    case ActivationKind::kHardSigmoid: return std::max(0.0, std::min(1.0, alpha * x + beta));
    case ActivationKind::kHardSwish: return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  }
  return x;
}

void apply_activation(const Activation& activation, Tensor& t) {
  if (activation.kind == ActivationKind::kNone) return;
  const bool visited = visit_float(t.dtype(), [&]<class T>(Type<T>) {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = T(apply_activation(activation, double(p[i])));
  });
  if (!visited) fail("the fused activation does not support dtype {}", dtype_name(t.dtype()));
}

}  // namespace strata::ops
