// String ops (see docs/types.md, "Strings"):
//   StringConcat (opset 20):    X + Y element by element, numpy broadcasting;
//   RegexFullMatch (opset 20):  true where the whole string matches attribute `pattern`, in
//                               std::regex's ECMAScript syntax (ONNX names RE2's; the two agree
//                               on classes, groups, alternation, quantifiers and \b, not on RE2's
//                               named classes like [[:alpha:]] or Unicode \p{...});
//   StringSplit (opset 20):     each string split at `delimiter` (consecutive delimiters give
//                               empty strings) or, without one (or an empty one), at runs of
//                               whitespace (leading ones skipped), at most `maxsplit` times, as
//                               Python's str.split; Y pads the parts with "" to the largest count,
//                               Z holds each count;
//   StringNormalizer (opset 10): removes `stopwords` (compared ignoring ASCII case unless
//                               is_case_sensitive) from a [C] or [1, C] tensor, then changes ASCII
//                               case by case_change_action (LOWER, UPPER, NONE); nothing left
//                               gives one empty string.
// Cost: 0 FLOPs; strings have no fixed size, so their bytes count as 0.
#include "ops/string_ops.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

void require_strings(const Meta& m, const char* what) {
  if (m.dtype != DType::kString)
    fail("input '{}' has dtype {}; string is needed", what, dtype_name(m.dtype));
}

class StringConcatOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    require_strings(ctx.input(0), "X");
    require_strings(ctx.input(1), "Y");
    ctx.set_output(0, DType::kString, broadcast_input_shapes(ctx));
  }
  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }
  void run(KernelContext& ctx) const override {
    Tensor& z = ctx.output(0);
    broadcast_map(
        z.data<std::string>(), z.shape(),
        [](const std::string& a, const std::string& b) { return a + b; },
        operand<std::string>(ctx.input(0)), operand<std::string>(ctx.input(1)));
  }
};

class RegexFullMatchOp final : public Op {
 public:
  explicit RegexFullMatchOp(const NodeInfo& node) {
    if (!node.has_attr("pattern")) fail("required attribute 'pattern' is missing");
    try {
      regex_ = std::regex(node.attr_string("pattern"), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      fail("attribute 'pattern' is not a valid regular expression: {}", e.what());
    }
  }
  void infer(InferContext& ctx) const override {
    require_strings(ctx.input(0), "X");
    ctx.set_output(0, DType::kBool, ctx.input(0).shape);
  }
  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    bool* y = ctx.output(0).data<bool>();
    for (int64_t i = 0; i < x.numel(); ++i)
      y[i] = std::regex_match(x.data<std::string>()[i], regex_);
  }

 private:
  std::regex regex_;
};

class StringSplitOp final : public Op {
 public:
  explicit StringSplitOp(const NodeInfo& node)
      : delimiter_(node.attr_string("delimiter", "")),
        maxsplit_(node.has_attr("maxsplit") ? node.attr_int("maxsplit", 0) : -1) {
    if (node.has_attr("maxsplit") && maxsplit_ < 0)
      fail("attribute 'maxsplit' must not be negative, got {}", maxsplit_);
  }
  void infer(InferContext& ctx) const override {
    require_strings(ctx.input(0), "X");
    const Meta& x = ctx.input(0);
    Dim parts = Dim::unknown();
    if (x.value) parts = most_parts(*x.value);
    std::vector<Dim> y;
    for (int64_t d = 0; d < x.shape.rank(); ++d) y.push_back(x.shape[d]);
    y.push_back(parts);
    ctx.set_output(0, DType::kString, Shape(std::span<const Dim>(y)));
    ctx.set_output(1, DType::kI64, x.shape);
  }
  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t width = y.rank() ? y.dim(y.rank() - 1) : 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::vector<std::string> parts = split(x.data<std::string>()[i]);
      if (int64_t(parts.size()) > width) fail_internal("StringSplit output is too narrow");
      for (size_t p = 0; p < parts.size(); ++p)
        y.data<std::string>()[i * width + int64_t(p)] = parts[p];
      if (ctx.num_outputs() > 1) ctx.output(1).data<int64_t>()[i] = int64_t(parts.size());
    }
  }

 private:
  int64_t most_parts(const Tensor& x) const {
    size_t most = 0;
    for (int64_t i = 0; i < x.numel(); ++i)
      most = std::max(most, split(x.data<std::string>()[i]).size());
    return int64_t(most);
  }

  std::vector<std::string> split(const std::string& s) const {
    std::vector<std::string> parts;
    if (delimiter_
            .empty()) {  // runs of whitespace; the rest after maxsplit keeps its trailing ones
      const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
      size_t pos = 0;
      while (true) {
        while (pos < s.size() && space(s[pos])) ++pos;
        if (pos >= s.size()) break;
        if (maxsplit_ >= 0 && int64_t(parts.size()) == maxsplit_) {
          parts.push_back(s.substr(pos));
          break;
        }
        size_t end = pos;
        while (end < s.size() && !space(s[end])) ++end;
        parts.push_back(s.substr(pos, end - pos));
        pos = end;
      }
      return parts;
    }
    size_t pos = 0;
    while (true) {
      const size_t at = s.find(delimiter_, pos);
      if (at == std::string::npos || (maxsplit_ >= 0 && int64_t(parts.size()) == maxsplit_)) {
        parts.push_back(s.substr(pos));
        return parts;
      }
      parts.push_back(s.substr(pos, at - pos));
      pos = at + delimiter_.size();
    }
  }

  std::string delimiter_;
  int64_t maxsplit_;  // -1: no limit
};

std::string ascii_lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string ascii_upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class StringNormalizerOp final : public Op {
 public:
  explicit StringNormalizerOp(const NodeInfo& node)
      : action_(node.attr_string("case_change_action", "NONE")),
        case_sensitive_(node.attr_int("is_case_sensitive", 0) != 0) {
    if (action_ != "NONE" && action_ != "LOWER" && action_ != "UPPER")
      fail("attribute 'case_change_action' must be LOWER, UPPER or NONE, got '{}'", action_);
    if (node.has_attr("stopwords"))
      for (const std::string& w : node.attr_strings("stopwords"))
        stopwords_.insert(case_sensitive_ ? w : ascii_lower(w));
  }
  void infer(InferContext& ctx) const override {
    require_strings(ctx.input(0), "X");
    const Shape& x = ctx.input(0).shape;
    const bool two_dim = x.rank() == 2;
    if (!(x.rank() == 1 || (two_dim && x[0].is_static() && x[0].value() == 1)))
      fail("input 'X' must be [C] or [1, C], got {}", x.str());
    Dim kept = Dim::unknown();
    if (ctx.input(0).value) kept = int64_t(normalize(*ctx.input(0).value).size());
    ctx.set_output(0, DType::kString, two_dim ? Shape{1, kept} : Shape{kept});
  }
  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }
  void run(KernelContext& ctx) const override {
    const std::vector<std::string> kept = normalize(ctx.input(0));
    Tensor& y = ctx.output(0);
    if (y.numel() != int64_t(kept.size())) fail_internal("StringNormalizer output size differs");
    std::copy(kept.begin(), kept.end(), y.data<std::string>());
  }

 private:
  std::vector<std::string> normalize(const Tensor& x) const {
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::string& s = x.data<std::string>()[i];
      if (stopwords_.count(case_sensitive_ ? s : ascii_lower(s))) continue;
      kept.push_back(action_ == "LOWER" ? ascii_lower(s) : action_ == "UPPER" ? ascii_upper(s) : s);
    }
    if (kept.empty()) kept.emplace_back();  // the spec's one empty string
    return kept;
  }

  std::string action_;
  bool case_sensitive_;
  std::set<std::string> stopwords_;
};

}  // namespace

bool handles_strings(std::string_view op_type) {
  static const std::set<std::string_view> kOps = {
      "StringConcat", "RegexFullMatch", "StringSplit", "StringNormalizer", "Identity",
      "Equal",        "Cast",           "CastLike",    "LabelEncoder",     "TfIdfVectorizer",
  };
  return kOps.count(op_type) > 0;
}

std::unique_ptr<Op> make_string_ops(const NodeInfo& node) {
  const std::string& op = node.op_type();
  if (op == "StringConcat") return std::make_unique<StringConcatOp>();
  if (op == "RegexFullMatch") return std::make_unique<RegexFullMatchOp>(node);
  if (op == "StringSplit") return std::make_unique<StringSplitOp>(node);
  return std::make_unique<StringNormalizerOp>(node);
}

}  // namespace strata::ops
