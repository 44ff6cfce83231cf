// TfIdfVectorizer (opset 9): counts the n-grams of a pool in each row of X ([C] or [N, C]; string,
// int32 or int64) and writes them as a vector of max(ngram_indexes) + 1 floats per row.
// The pool (pool_int64s or pool_strings) holds the 1-grams, then the 2-grams, ...: ngram_counts[k]
// is where the (k+1)-grams start; the i-th n-gram of the pool is counted in Y[ngram_indexes[i]].
// An n-gram takes every (skip + 1)-th item from a start, for skip in 0..max_skip_count; n runs over
// [min_gram_length, max_gram_length], and 1-grams are counted once (at skip 0), as ONNX's
// reference does. mode TF writes the counts, IDF weights[j] where the count is positive, TFIDF
// count * weights[j] (j the output coordinate; no weights: 1).
// Cost: per row, per skip and start, one lookup per n-gram length: 1 FLOP each (a compare), plus
// 1 per output value for the weighting.
#include <map>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class TfIdfVectorizerOp final : public Op {
 public:
  explicit TfIdfVectorizerOp(const NodeInfo& node)
      : min_n_(node.attr_int("min_gram_length", 0)),
        max_n_(node.attr_int("max_gram_length", 0)),
        max_skip_(node.attr_int("max_skip_count", 0)),
        mode_(node.attr_string("mode", "")),
        weights_(node.attr_floats("weights")) {
    if (min_n_ < 1 || max_n_ < min_n_)
      fail(
          "attributes 'min_gram_length' ({}) and 'max_gram_length' ({}) must satisfy 1 <= min <= "
          "max",
          min_n_, max_n_);
    if (max_skip_ < 0) fail("attribute 'max_skip_count' must be >= 0, not {}", max_skip_);
    if (mode_ != "TF" && mode_ != "IDF" && mode_ != "TFIDF")
      fail("attribute 'mode' must be TF, IDF or TFIDF, not '{}'", mode_);
    strings_ = node.has_attr("pool_strings");
    if (strings_ == node.has_attr("pool_int64s"))
      fail("exactly one of the attributes 'pool_int64s' and 'pool_strings' must be given");
    std::vector<std::string> pool = node.attr_strings("pool_strings");
    for (int64_t v : node.attr_ints("pool_int64s")) pool.push_back(std::to_string(v));
    const std::vector<int64_t> starts = node.attr_ints("ngram_counts");
    const std::vector<int64_t> indexes = node.attr_ints("ngram_indexes");
    if (indexes.empty()) fail("attribute 'ngram_indexes' must not be empty");
    for (int64_t i : indexes)
      if (i < 0) fail("attribute 'ngram_indexes' holds {}; indexes must be >= 0", i);
    for (int64_t i : indexes) width_ = std::max(width_, i + 1);
    if (!weights_.empty() && int64_t(weights_.size()) < width_)
      fail("attribute 'weights' has {} values; one per output coordinate ({}) is needed",
           weights_.size(), width_);
    // Split the pool into its n-grams, numbering them in pool order.
    size_t ordinal = 0;
    for (size_t k = 0; k < starts.size(); ++k) {
      const int64_t n = int64_t(k) + 1;
      const int64_t begin = starts[k];
      const int64_t end = k + 1 < starts.size() ? starts[k + 1] : int64_t(pool.size());
      if (begin < 0 || end < begin || end > int64_t(pool.size()) || (end - begin) % n != 0)
        fail("attribute 'ngram_counts' does not split the pool of {} items into {}-grams at {}",
             pool.size(), n, begin);
      for (int64_t at = begin; at < end; at += n, ++ordinal) {
        if (ordinal >= indexes.size())
          fail("attribute 'ngram_indexes' has {} entries, fewer than the pool's n-grams",
               indexes.size());
        grams_.emplace(std::vector<std::string>(pool.begin() + at, pool.begin() + at + n),
                       indexes[ordinal]);
      }
    }
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.dtype(0);
    if (strings_ ? t != DType::kString : (t != DType::kI32 && t != DType::kI64))
      fail("input 'X' has dtype {}; the pool needs {}", dtype_name(t),
           strings_ ? "string" : "int32 or int64");
    const Shape& x = ctx.shape(0);
    if (x.rank() != 1 && x.rank() != 2)
      fail("input 'X' must be [C] or [N, C], not rank {}", x.rank());
    ctx.set_output(0, DType::kF32, x.rank() == 1 ? Shape{Dim(width_)} : Shape{x[0], Dim(width_)});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const double lookups = ctx.numel_in(0) * double(max_skip_ + 1) * double(max_n_ - min_n_ + 1);
    c.flops = lookups + ctx.numel_out(0);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t c = x.rank() == 2 ? x.dim(1) : x.dim(0);
    const int64_t rows = c ? x.numel() / c : (x.rank() == 2 ? x.dim(0) : 1);
    float* y = ctx.output(0).data<float>();
    std::fill(y, y + rows * width_, 0.0f);
    const std::vector<std::string> items = texts(x);
    for (int64_t r = 0; r < rows; ++r) {
      const std::string* row = items.data() + r * c;
      float* out = y + r * width_;
      for (int64_t skip = 0; skip <= max_skip_; ++skip) {
        const int64_t step = skip + 1;
        // 1-grams are the same at every skip: count them at skip 0 only.
        const int64_t first_n = skip > 0 ? std::max<int64_t>(min_n_, 2) : min_n_;
        for (int64_t start = 0; start < c; ++start)
          for (int64_t n = first_n; n <= max_n_ && start + (n - 1) * step < c; ++n) {
            std::vector<std::string> gram;
            for (int64_t k = 0; k < n; ++k) gram.push_back(row[start + k * step]);
            if (auto hit = grams_.find(gram); hit != grams_.end()) out[hit->second] += 1;
          }
      }
      for (int64_t j = 0; j < width_; ++j) {
        const float w = weights_.empty() ? 1.0f : weights_[size_t(j)];
        if (mode_ == "IDF") out[j] = out[j] > 0 ? w : 0;
        if (mode_ == "TFIDF") out[j] *= w;
      }
    }
  }

 private:
  // X's items as text, the pool's form (integers in decimal).
  static std::vector<std::string> texts(const Tensor& x) {
    if (x.dtype() == DType::kString)
      return std::vector<std::string>(x.data<std::string>(), x.data<std::string>() + x.numel());
    std::vector<std::string> out;
    for (int64_t v : x.to_int64()) out.push_back(std::to_string(v));
    return out;
  }

  int64_t min_n_, max_n_, max_skip_;
  std::string mode_;
  std::vector<float> weights_;
  bool strings_ = false;
  int64_t width_ = 0;
  std::map<std::vector<std::string>, int64_t> grams_;  // n-gram -> output coordinate
};

}  // namespace

std::unique_ptr<Op> make_tfidf_vectorizer(const NodeInfo& node) {
  return std::make_unique<TfIdfVectorizerOp>(node);
}

}  // namespace strata::ops
