// Locating the shared real-file test data (see its README): the folder named by the
// environment variable SIMLOD_TEST_DATA. Tests that need it skip, saying why, when it is unset:
//
//   TEST(Las, Lion) {
//     SIMLOD_REQUIRE_TEST_DATA(data);   // declares `const std::filesystem::path data`
//     auto reader = simlod::open_reader(data / "lion_takanawa.las");
//   }
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace simlod::test {

/// The test data folder from SIMLOD_TEST_DATA, or nullopt when the variable is unset or empty.
inline std::optional<std::filesystem::path> test_data_dir() {
  const char* dir = std::getenv("SIMLOD_TEST_DATA");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  return std::filesystem::path(dir);
}

}  // namespace simlod::test

/// Declares `const std::filesystem::path var` = the test data folder, or skips the test.
#define SIMLOD_REQUIRE_TEST_DATA(var)                                                       \
  const auto var##_or_none = ::simlod::test::test_data_dir();                               \
  if (!var##_or_none) {                                                                     \
    GTEST_SKIP() << "SIMLOD_TEST_DATA is not set; point it at the shared test data folder " \
                    "to run this test";                                                     \
  }                                                                                         \
  const std::filesystem::path var = *var##_or_none
