// simlod::RankBitmap: bits with a 32-bit count of the set bits before every 128-bit block, about
// 1.25 bits per element (layout in simlod/detail/rank_bitmap_math.hpp). rank(k) reads one count
// and one 16-byte block: the plain alternative to a 1-bit FenwickIndex when the bits are built
// once and queried often (an update shifts every later count, O(n / 128), where the Fenwick
// tree adds in O(log n)). CPU and CUDA builds are bit-identical.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "simlod/backend.hpp"
#include "simlod/detail/rank_bitmap_math.hpp"

namespace simlod {

class RankBitmap {
 public:
  /// The bitmap of `values` (each 0 or 1) on `backend` (Auto: CUDA when a device is present).
  /// InvalidInput for no values, more than 2^32, or a value above 1 (naming its index);
  /// CapacityError when memory runs out.
  static RankBitmap build(std::span<const std::uint32_t> values, Backend backend = Backend::Auto);

  /// Bytes of the words and counts of n bits: 4 (n / 128 + 1) words + (n / 128 + 1) counts.
  [[nodiscard]] static std::uint64_t bytes_for(std::uint64_t n);

  RankBitmap(RankBitmap&&) noexcept;
  RankBitmap& operator=(RankBitmap&&) noexcept;
  ~RankBitmap();

  [[nodiscard]] std::uint64_t size() const;
  [[nodiscard]] Backend backend() const;
  [[nodiscard]] std::uint64_t bytes() const;
  [[nodiscard]] RankBitmapView view() const;

  /// Set bits before k (k <= size()); InvalidInput for k out of range. On a CUDA bitmap each
  /// call is a small kernel: use the batched form for many.
  [[nodiscard]] std::uint64_t rank(std::uint64_t k) const;
  /// Batched on the backend: out[i] = rank(ks[i]) (host spans; a CUDA bitmap copies them to
  /// the device and back). InvalidInput for a key out of range or out.size() != ks.size().
  void rank(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const;
  /// Every bit in order as 0 or 1 (out.size() must be size()).
  void values(std::span<std::uint32_t> out) const;

  /// Time of the last build or batched call without the copies to and from the host: CUDA
  /// events around the kernels on a CUDA bitmap, the wall clock on a CPU one.
  [[nodiscard]] double last_ms() const;
  /// The words, then the counts (copies), for comparing builds.
  [[nodiscard]] std::vector<std::uint32_t> words() const;
  [[nodiscard]] std::vector<std::uint32_t> counts() const;

  struct Impl;

 private:
  explicit RankBitmap(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace simlod
