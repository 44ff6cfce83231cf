// TreeEnsemble (ai.onnx.ml opset 5): sums (or averages, min, max) the leaves a batch of feature
// rows reaches in a forest of decision trees. X [N, F] -> Y [N, n_targets].
// Each tree starts at a node of tree_roots. Node i compares X[row, nodes_featureids[i]] with
// nodes_splits[i] by nodes_modes[i] (0 <=, 1 <, 2 >=, 3 >, 4 ==, 5 !=, 6 member of the node's
// set in membership_values, sets separated by NaN and taken in the order of the member nodes); a
// NaN feature goes the true way when nodes_missing_value_tracks_true[i]. The true branch is
// nodes_truenodeids[i], a leaf index when nodes_trueleafs[i] (likewise false). Leaf j adds
// leaf_weights[j] to target leaf_targetids[j]. aggregate_function: 0 average, 1 sum (default),
// 2 min, 3 max; post_transform: 0 none, 1 softmax, 2 logistic, 3 softmax_zero, 4 probit.
// Cost: per row and tree, 1 FLOP per node compared, and the comparisons' depth is taken as the
// tree's node count (the worst case); 1 per leaf added.
#include <cmath>
#include <limits>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

enum NodeMode : int64_t { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember };
enum Aggregate : int64_t { kAverage, kSum, kMin, kMax };

class TreeEnsembleOp final : public Op {
 public:
  explicit TreeEnsembleOp(const NodeInfo& node)
      : n_targets_(node.required_int("n_targets")),
        aggregate_(node.attr_int("aggregate_function", kSum)),
        post_(node.attr_int("post_transform", 0)),
        roots_(node.required_ints("tree_roots")),
        features_(node.required_ints("nodes_featureids")),
        true_ids_(node.required_ints("nodes_truenodeids")),
        false_ids_(node.required_ints("nodes_falsenodeids")),
        true_leafs_(node.required_ints("nodes_trueleafs")),
        false_leafs_(node.required_ints("nodes_falseleafs")),
        leaf_targets_(node.required_ints("leaf_targetids")),
        missing_true_(node.attr_ints("nodes_missing_value_tracks_true")) {
    modes_ = tensor_values<int64_t>(node, "nodes_modes", true);
    splits_ = tensor_values<double>(node, "nodes_splits", true);
    leaf_weights_ = tensor_values<double>(node, "leaf_weights", true);
    const std::vector<double> members = tensor_values<double>(node, "membership_values", false);
    const size_t nodes = features_.size();
    for (const auto* v : {&true_ids_, &false_ids_, &true_leafs_, &false_leafs_})
      if (v->size() != nodes) fail("the nodes_* attributes must all have {} values", nodes);
    if (modes_.size() != nodes || splits_.size() != nodes)
      fail("nodes_modes and nodes_splits must have {} values", nodes);
    if (!missing_true_.empty() && missing_true_.size() != nodes)
      fail("nodes_missing_value_tracks_true must have {} values", nodes);
    if (leaf_weights_.size() != leaf_targets_.size())
      fail("leaf_weights ({}) and leaf_targetids ({}) must have the same length",
           leaf_weights_.size(), leaf_targets_.size());
    if (n_targets_ < 1) fail("attribute 'n_targets' must be positive");
    if (aggregate_ < kAverage || aggregate_ > kMax)
      fail("attribute 'aggregate_function' must be 0 to 3, got {}", aggregate_);
    if (post_ < 0 || post_ > 4) fail("attribute 'post_transform' must be 0 to 4, got {}", post_);
    for (int64_t t : leaf_targets_)
      if (t < 0 || t >= n_targets_) fail("leaf target {} is outside [0, {})", t, n_targets_);
    // Member sets, in member-node order.
    sets_.resize(nodes);
    size_t at = 0;
    for (size_t i = 0; i < nodes; ++i) {
      if (modes_[i] < kLeq || modes_[i] > kMember) fail("node {} has mode {}", i, modes_[i]);
      if (modes_[i] != kMember) continue;
      for (; at < members.size() && !std::isnan(members[at]); ++at) sets_[i].push_back(members[at]);
      ++at;  // the NaN separator
    }
    for (size_t i = 0; i < nodes; ++i) {
      check_link(true_ids_[i], true_leafs_[i] != 0);
      check_link(false_ids_[i], false_leafs_[i] != 0);
    }
    for (int64_t r : roots_) check_link(r, false);
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() != 2) fail("input 'X' must be [N, features], got {}", x.shape.str());
    if (x.shape[1].is_static())
      for (int64_t f : features_)
        if (f < 0 || f >= x.shape[1].value())
          fail("feature id {} is outside X's {} features", f, x.shape[1].value());
    ctx.set_output(0, x.dtype, Shape{x.shape[0], Dim(n_targets_)});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const double rows = double(ctx.input(0).shape[0].value());
    c.flops = rows * (double(features_.size()) + double(roots_.size()));
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rows = x.dim(0), cols = x.dim(1);
    for (int64_t f : features_)
      if (f >= cols) fail("feature id {} is outside X's {} features", f, cols);
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* in = x.data<T>();
      T* out = ctx.output(0).data<T>();
      std::vector<double> acc(static_cast<size_t>(n_targets_));
      std::vector<bool> reached(static_cast<size_t>(n_targets_));
      for (int64_t r = 0; r < rows; ++r) {
        std::fill(acc.begin(), acc.end(), 0.0);
        std::fill(reached.begin(), reached.end(), false);
        for (int64_t root : roots_) {
          const size_t leaf = leaf_of(in + r * cols, root);
          const size_t target = size_t(leaf_targets_[leaf]);
          const double w = leaf_weights_[leaf];
          if (!reached[target]) {
            acc[target] = w;
            reached[target] = true;
          } else if (aggregate_ == kMin) {
            acc[target] = std::min(acc[target], w);
          } else if (aggregate_ == kMax) {
            acc[target] = std::max(acc[target], w);
          } else {
            acc[target] += w;
          }
        }
        if (aggregate_ == kAverage)
          for (double& v : acc) v /= double(roots_.size());
        post_transform(acc);
        for (int64_t t = 0; t < n_targets_; ++t)
          out[r * n_targets_ + t] = from_acc<T>(acc[size_t(t)]);
      }
    });
  }

 private:
  template <class V>
  static std::vector<V> tensor_values(const NodeInfo& node, const char* name, bool required) {
    const Tensor* t = node.attr_tensor(name);
    if (!t) {
      if (required) fail("required attribute '{}' is missing", name);
      return {};
    }
    if constexpr (std::is_same_v<V, double>)
      return t->to_double();
    else
      return t->to_int64();
  }

  void check_link(int64_t id, bool leaf) const {
    const size_t limit = leaf ? leaf_weights_.size() : features_.size();
    if (id < 0 || size_t(id) >= limit)
      fail("{} index {} is outside [0, {})", leaf ? "leaf" : "node", id, limit);
  }

  template <class T>
  size_t leaf_of(const T* row, int64_t node) const {
    // Each step moves to another node or a leaf; a forest without cycles ends within `nodes` steps.
    for (size_t steps = 0; steps <= features_.size(); ++steps) {
      const size_t i = size_t(node);
      const double v = double(row[features_[i]]), s = splits_[i];
      bool go_true = false;
      if (std::isnan(v) && !missing_true_.empty() && missing_true_[i]) {
        go_true = true;
      } else {
        switch (modes_[i]) {
          case kLeq: go_true = v <= s; break;
          case kLt: go_true = v < s; break;
          case kGte: go_true = v >= s; break;
          case kGt: go_true = v > s; break;
          case kEq: go_true = v == s; break;
          case kNeq: go_true = v != s; break;
          case kMember:
            for (double m : sets_[i]) go_true = go_true || v == m;
            break;
        }
      }
      const int64_t next = go_true ? true_ids_[i] : false_ids_[i];
      if ((go_true ? true_leafs_[i] : false_leafs_[i]) != 0) return size_t(next);
      node = next;
    }
    fail("a tree does not reach a leaf (its nodes form a cycle)");
  }

  void post_transform(std::vector<double>& v) const {
    switch (post_) {
      case 0: return;
      case 2:
        for (double& e : v) e = 1 / (1 + std::exp(-e));
        return;
      case 4:  // probit: sqrt(2) · erfinv(2p - 1)
        for (double& e : v) e = std::sqrt(2.0) * erfinv(2 * e - 1);
        return;
      default: {  // softmax; softmax_zero leaves zeros at zero
        double top = -std::numeric_limits<double>::infinity(), sum = 0;
        for (double e : v) top = std::max(top, e);
        for (double& e : v) {
          e = post_ == 3 && e == 0 ? 0 : std::exp(e - top);
          sum += e;
        }
        for (double& e : v) e = sum > 0 ? e / sum : 0;
      }
    }
  }

  // Inverse error function by Newton's method on erf (enough for a post transform).
  static double erfinv(double y) {
    if (y <= -1) return -std::numeric_limits<double>::infinity();
    if (y >= 1) return std::numeric_limits<double>::infinity();
    double x = 0;
    for (int i = 0; i < 60; ++i)
      x -= (std::erf(x) - y) / (2 / std::sqrt(3.14159265358979323846) * std::exp(-x * x));
    return x;
  }

  int64_t n_targets_, aggregate_, post_;
  std::vector<int64_t> roots_, features_, true_ids_, false_ids_, true_leafs_, false_leafs_,
      leaf_targets_, missing_true_, modes_;
  std::vector<double> splits_, leaf_weights_;
  std::vector<std::vector<double>> sets_;
};

}  // namespace

std::unique_ptr<Op> make_tree_ensemble(const NodeInfo& node) {
  return std::make_unique<TreeEnsembleOp>(node);
}

}  // namespace strata::ops
