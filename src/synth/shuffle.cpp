// synth::shuffle: a seeded random order that is the same on every machine (std::shuffle's
// algorithm and std::uniform_int_distribution are left to the implementation).
#include <utility>

#include "simlod/synth.hpp"

namespace simlod::synth {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform in [0, n) without modulo bias (draws above the last whole multiple of n are
/// rejected).
std::uint64_t below(std::uint64_t n, std::uint64_t& state) {
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  for (;;) {
    const std::uint64_t r = splitmix64(state);
    if (r < limit) return r % n;
  }
}

}  // namespace

void shuffle(std::span<Point> points, std::uint64_t seed) {
  std::uint64_t state = seed ^ 0x5D588B656C078965ull;
  for (std::size_t i = points.size(); i > 1; --i) {
    const std::size_t j = below(i, state);
    std::swap(points[i - 1], points[j]);
  }
}

}  // namespace simlod::synth
