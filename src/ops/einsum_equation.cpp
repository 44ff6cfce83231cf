#include "ops/einsum_equation.h"

#include <map>
#include <string_view>

#include "core/error.h"

namespace strata::ops {

namespace {

EinsumTerm parse_term(std::string_view text) {
  EinsumTerm t;
  for (size_t i = 0; i < text.size();) {
    const char ch = text[i];
    if (ch == '.') {
      if (text.substr(i, 3) != "...") fail("equation: '.' must be part of an ellipsis '...'");
      if (t.has_ellipsis()) fail("equation: a term has more than one ellipsis");
      t.ellipsis_at = int64_t(t.labels.size());
      i += 3;
      continue;
    }
    if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z'))
      fail("equation: invalid character '{}'", ch);
    t.labels += ch;
    ++i;
  }
  return t;
}

}  // namespace

EinsumEquation parse_einsum_equation(const std::string& text) {
  std::string s;
  for (char ch : text)
    if (ch != ' ') s += ch;
  const size_t arrow = s.find("->");
  const std::string lhs = s.substr(0, arrow);
  EinsumEquation eq;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    eq.inputs.push_back(parse_term(std::string_view(lhs).substr(begin, comma - begin)));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  std::map<char, int> uses;
  bool any_ellipsis = false;
  for (const EinsumTerm& t : eq.inputs) {
    for (char ch : t.labels) ++uses[ch];
    any_ellipsis = any_ellipsis || t.has_ellipsis();
  }
  if (arrow == std::string::npos) {  // implicit output: ellipsis, then labels used once, sorted
    for (const auto& [label, count] : uses)
      if (count == 1) eq.output.labels += label;
    if (any_ellipsis) eq.output.ellipsis_at = 0;
    return eq;
  }
  eq.output = parse_term(std::string_view(s).substr(arrow + 2));
  for (size_t i = 0; i < eq.output.labels.size(); ++i) {
    const char label = eq.output.labels[i];
    if (!uses.count(label)) fail("equation: output label '{}' is not in any input", label);
    if (eq.output.labels.find(label) != i) fail("equation: output label '{}' is repeated", label);
  }
  return eq;
}

}  // namespace strata::ops
