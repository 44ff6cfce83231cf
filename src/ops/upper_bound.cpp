#include "ops/upper_bound.h"

#include <fmt/format.h>

namespace strata::ops {

namespace {

struct UpperBoundState {
  bool active = false;
  std::string note;
};

thread_local UpperBoundState t_state;

}  // namespace

Dim data_dependent(Dim bound, std::string_view how) {
  if (!t_state.active || !bound.is_static()) return Dim::unknown();
  if (!t_state.note.empty()) t_state.note += "; ";
  t_state.note += fmt::format("{} = {}", how, bound.value());
  return bound;
}

UpperBoundScope::UpperBoundScope() {
  t_state.active = true;
  t_state.note.clear();
}

UpperBoundScope::~UpperBoundScope() {
  t_state.active = false;
  t_state.note.clear();
}

std::string UpperBoundScope::take_note() {
  std::string note;
  note.swap(t_state.note);
  return note;
}

}  // namespace strata::ops
