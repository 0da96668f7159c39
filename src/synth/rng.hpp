// Counter-based random numbers: every random decision of the generator is keyed by what it
// decides (seed, stream, tile, point index), never by the order in which work is done. That is
// what makes the output independent of batch sizes and thread counts.
#pragma once

#include <cstdint>

namespace simlod::synth::detail {

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective, well-mixing 64-bit hash.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Hash of an ordered pair; mix(mix(a, b), c) keys three values.
constexpr std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  return splitmix64(a ^ (splitmix64(b) + 0x632BE59BD9B4E019ull));
}

/// Independent random streams of one seed (values are part of the output: never renumber).
enum class Stream : std::uint64_t {
  TerrainShape = 1,
  Town = 2,
  Farms = 3,
  Forest = 4,
  Density = 5,
  Points = 6,
  Noise = 7,
};

constexpr std::uint64_t stream_key(std::uint64_t seed, Stream stream) {
  return mix(seed, static_cast<std::uint64_t>(stream));
}

/// SplitMix64 generator started from a key; cheap to create per point.
class Rng {
 public:
  explicit constexpr Rng(std::uint64_t key) : state_(key) {}

  constexpr std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return splitmix64(state_);
  }
  /// Uniform in [0, 1) with 53 random bits.
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  constexpr double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n) (n > 0); the bias of the multiply-shift is below 2^-32.
  constexpr std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32);
  }
  constexpr bool chance(double p) { return uniform() < p; }

 private:
  std::uint64_t state_;
};

}  // namespace simlod::synth::detail
