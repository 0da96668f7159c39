// expect_refused: the check of the bad-input tests that `call` throws InvalidInput saying so.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "simlod/error.hpp"

namespace simlod::test {

/// Expects `call` to throw InvalidInput whose message holds `says`.
template <class Call>
void expect_refused(Call&& call, const char* says) {
  try {
    call();
    ADD_FAILURE() << "accepted: " << says;
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

}  // namespace simlod::test
