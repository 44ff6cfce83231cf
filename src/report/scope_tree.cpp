#include "report/scope_tree.h"

#include <algorithm>
#include <map>

#include "core/error.h"

namespace strata::report {

namespace {

constexpr const char* kUnnamed = "(unnamed)";

struct TrieNode {
  std::string name;
  std::string path;
  int depth = 0;
  std::vector<size_t> children;          // trie indices, in first appearance order
  std::map<std::string, size_t> lookup;  // child name → trie index
  std::vector<size_t> own;
  size_t inputs = 0;
  std::vector<double> values;
  bool filled = false;  // values hold at least one row (kMax needs a first value)
};

class Builder {
 public:
  Builder(size_t columns, const ScopeTreeOptions& options) : columns_(columns), options_(options) {
    nodes_.push_back({});  // the root: not printed
    nodes_[0].depth = -1;
  }

  void add(size_t index, const ScopeInput& row) {
    std::vector<std::string> parts = split_scope_path(row.path);
    if (parts.empty()) parts.push_back(kUnnamed);
    if (options_.max_depth > 0 && parts.size() > size_t(options_.max_depth))
      parts.resize(size_t(options_.max_depth));
    size_t at = 0;
    for (const std::string& part : parts) at = child(at, part);
    nodes_[at].own.push_back(index);
    // Every scope on the way down receives the row.
    for (size_t n = at;; n = parent_[n]) {
      combine_into(nodes_[n], row.values);
      ++nodes_[n].inputs;
      if (n == 0) break;
    }
  }

  std::vector<ScopeRow> flatten() {
    std::vector<ScopeRow> out;
    emit_children(0, out);
    return out;
  }

 private:
  size_t child(size_t at, const std::string& part) {
    auto it = nodes_[at].lookup.find(part);
    if (it != nodes_[at].lookup.end()) return it->second;
    const size_t index = nodes_.size();
    TrieNode node;
    node.name = part;
    node.path = nodes_[at].path + "/" + part;
    node.depth = nodes_[at].depth + 1;
    node.values.assign(columns_, 0.0);
    nodes_.push_back(std::move(node));
    parent_.resize(nodes_.size());
    parent_[index] = at;
    nodes_[at].children.push_back(index);
    nodes_[at].lookup.emplace(part, index);
    return index;
  }

  Combine combine_of(size_t column) const {
    return column < options_.combine.size() ? options_.combine[column] : Combine::kSum;
  }

  void combine_into(TrieNode& node, const std::vector<double>& values) {
    if (node.values.size() != columns_) node.values.assign(columns_, 0.0);
    for (size_t c = 0; c < columns_; ++c) {
      if (combine_of(c) == Combine::kSum)
        node.values[c] += values[c];
      else
        node.values[c] = node.filled ? std::max(node.values[c], values[c]) : values[c];
    }
    node.filled = true;
  }

  void emit_children(size_t at, std::vector<ScopeRow>& out) {
    std::vector<size_t> order = nodes_[at].children;
    const int col = options_.order_column;
    if (col >= 0 && size_t(col) < columns_)
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return nodes_[a].values[size_t(col)] > nodes_[b].values[size_t(col)];
      });
    for (size_t n : order) {
      const TrieNode& node = nodes_[n];
      out.push_back({node.name, node.path, node.depth, node.inputs, node.own,
                     !node.children.empty(), node.values});
      emit_children(n, out);
    }
  }

  size_t columns_;
  const ScopeTreeOptions& options_;
  std::vector<TrieNode> nodes_;
  std::vector<size_t> parent_ = {0};
};

}  // namespace

std::vector<std::string> split_scope_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    if (end > begin) parts.push_back(path.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

std::vector<ScopeRow> build_scope_tree(const std::vector<ScopeInput>& rows,
                                       const ScopeTreeOptions& options) {
  const size_t columns = rows.empty() ? 0 : rows.front().values.size();
  Builder builder(columns, options);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].values.size() != columns)
      fail_internal("scope tree: row '{}' has {} figures, the first row {}", rows[i].path,
                    rows[i].values.size(), columns);
    builder.add(i, rows[i]);
  }
  return builder.flatten();
}

}  // namespace strata::report
