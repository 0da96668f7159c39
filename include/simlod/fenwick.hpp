// simlod::FenwickIndex: a Fenwick tree (binary indexed tree) over N elements of b bits, packed
// as in J. Schneider and P. Rautek, "A Versatile and Efficient GPU Data Structure for Spatial
// Indexing" (IEEE TVCG): level t holds the partial sums of 2^t elements in b + t bits, so the
// tree takes about b + 1 bits per element (N = 4096, b = 1: 1,036 bytes). Built in one pass;
// prefix sums and updates touch O(log N) entries, point queries about two on average.
// The layout is in simlod/detail/fenwick_math.hpp; CPU and CUDA builds are bit-identical.
//
// One to three dimensions: in d dimensions an entry sums a box and the tree takes about b + d
// bits per element (the paper's Table 1).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "simlod/backend.hpp"
#include "simlod/detail/fenwick_math.hpp"

namespace simlod {

/// What kernels need to query a tree: its layout and its words (device memory for a CUDA
/// index, host memory for a CPU one). Trivially copyable; valid while the index lives and is
/// not changed. Query with detail::fenwick_prefix / fenwick_value / fenwick_entry.
struct FenwickView {
  const std::uint32_t* words = nullptr;
  detail::FenwickLayout layout;
};

class FenwickIndex {
 public:
  /// Builds the tree of `values` (each below 2^bits) on `backend` (Auto: CUDA when a device is
  /// present). Throws InvalidInput for bits outside 1 .. 32, no values, more than 2^32 values
  /// or a value wider than `bits` (naming its index); CapacityError when memory runs out.
  static FenwickIndex build(std::span<const std::uint32_t> values, std::uint32_t bits,
                            Backend backend = Backend::Auto);
  /// A tree over a 1-3 dimensional array of `extents` (element (x, y, z) at index
  /// x + extents[0] (y + extents[1] z)); values.size() must be their product. Also
  /// InvalidInput for 0 or more than 3 extents, or an extent of 0.
  static FenwickIndex build(std::span<const std::uint32_t> values,
                            std::span<const std::uint64_t> extents, std::uint32_t bits,
                            Backend backend = Backend::Auto);
  /// A one-dimensional tree from values already in device memory (`device_values`, n of
  /// them), on the current CUDA device: no copy over PCIe. CUDA builds only.
  static FenwickIndex build_from_device(const std::uint32_t* device_values, std::uint64_t n,
                                        std::uint32_t bits);

  /// Bytes of the packed tree of n elements of `bits` bits: the sum over the levels of
  /// ceil(entries x (bits + t) / 32) x 4 (the two padding words not counted).
  [[nodiscard]] static std::uint64_t bytes_for(std::uint64_t n, std::uint32_t bits);
  /// The same for an array of 1-3 extents: the sum over the level combinations of
  /// ceil(entries x (bits + t0 + t1 + t2) / 32) x 4.
  [[nodiscard]] static std::uint64_t bytes_for(std::span<const std::uint64_t> extents,
                                               std::uint32_t bits);

  FenwickIndex(FenwickIndex&&) noexcept;
  FenwickIndex& operator=(FenwickIndex&&) noexcept;
  ~FenwickIndex();

  /// Elements (the product of the extents).
  [[nodiscard]] std::uint64_t size() const;
  [[nodiscard]] std::uint32_t dims() const;
  /// Extents of the axes used; 1 for the others.
  [[nodiscard]] std::array<std::uint64_t, 3> extents() const;
  [[nodiscard]] std::uint32_t bits() const;
  [[nodiscard]] Backend backend() const;
  /// bytes_for(size(), bits()).
  [[nodiscard]] std::uint64_t bytes() const;
  [[nodiscard]] FenwickView view() const;

  /// Sum of elements 0 .. k - 1 (k <= size()), element k (k < size()); InvalidInput for k out
  /// of range. On a CUDA index each call is a small kernel: use the batched forms for many.
  [[nodiscard]] std::uint64_t prefix(std::uint64_t k) const;
  [[nodiscard]] std::uint64_t value(std::uint64_t k) const;
  /// rank(k) of a 1-bit index: the elements set before k (prefix(k)).
  [[nodiscard]] std::uint64_t rank(std::uint64_t k) const { return prefix(k); }
  /// Batched queries of a one-dimensional index on the backend: out[i] = prefix(ks[i]) or
  /// value(ks[i]) (host spans; a CUDA index copies them to the device and back). InvalidInput
  /// for a key out of range, out.size() != ks.size(), or an index of 2 or 3 axes.
  void prefix(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const;
  void value(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const;
  /// Every element in order (the paper's reconstruction); out.size() must be size().
  void values(std::span<std::uint32_t> out) const;

  /// In 1-3 dimensions (coordinates of unused axes 0): the sum of the box [0, k0) x [0, k1) x
  /// [0, k2) (ka <= extent), of the box [lo, hi) (lo <= hi <= extent; by inclusion and
  /// exclusion of 2^d prefixes), and element k (ka < extent). InvalidInput naming the axis for
  /// coordinates out of range or lo > hi.
  [[nodiscard]] std::uint64_t prefix(const std::array<std::uint64_t, 3>& k) const;
  [[nodiscard]] std::uint64_t box_sum(const std::array<std::uint64_t, 3>& lo,
                                      const std::array<std::uint64_t, 3>& hi) const;
  [[nodiscard]] std::uint64_t value(const std::array<std::uint64_t, 3>& k) const;
  /// Batched box sums on the backend: out[i] = box_sum(boxes[i][0..2], boxes[i][3..5]).
  void box_sums(std::span<const std::array<std::uint64_t, 6>> boxes,
                std::span<std::uint64_t> out) const;
  void add(const std::array<std::uint64_t, 3>& k, std::int64_t delta);

  /// Adds `delta` to element k. InvalidInput when k is out of range or the element would
  /// leave 0 .. 2^bits - 1 (the index is unchanged then).
  void add(std::uint64_t k, std::int64_t delta);

  /// Time of the last build, batched query or values() without the copies to and from the
  /// host: CUDA events around the kernels on a CUDA index, the wall clock on a CPU one.
  [[nodiscard]] double last_ms() const;

  /// The packed words (a copy; the two padding words included), for comparing builds.
  [[nodiscard]] std::vector<std::uint32_t> words() const;

  struct Impl;

 private:
  explicit FenwickIndex(std::unique_ptr<Impl> impl);
  /// Batched prefix (`prefix`) or point queries of a one-dimensional index, checked.
  void keys(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out, bool prefix) const;
  /// Queries of `kind` (0 prefix, 1 value: 3 coordinates each; 2 box: 6; 3 prefix, 4 value of a
  /// one-dimensional index: 1 key each) on the backend.
  void run(std::span<const std::uint64_t> coords, std::span<std::uint64_t> out, int kind) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simlod
