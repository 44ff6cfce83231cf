// Checks that a call fails the way users are told: a bad-input Error naming what is wrong.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace strata::test {

// Expects f() to throw a bad-input Error whose message contains every one of `details`.
template <class F>
void expect_error(F&& f, const std::vector<std::string>& details) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kBadInput) << message;
    for (const std::string& d : details)
      EXPECT_NE(message.find(d), std::string::npos) << "missing '" << d << "' in: " << message;
  }
}

}  // namespace strata::test
