// Settings of the benchmark programs from environment variables.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace simlod::bench {

/// The positive integer in environment variable `name`, or `fallback` when it is unset, empty
/// or not a positive number.
inline std::uint64_t env_points(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  const std::uint64_t n = std::strtoull(text, nullptr, 10);
  return n > 0 ? n : fallback;
}

}  // namespace simlod::bench
