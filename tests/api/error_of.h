// The message of the strata::Error (code kBadInput) that `f` throws; a test failure otherwise.
#pragma once

#include <gtest/gtest.h>
#include <strata/errors.h>

#include <string>

namespace strata {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "no strata::Error thrown";
  return "";
}

}  // namespace strata
