// Conversion of simlod points to the 32-bit integer coordinates of LAS records, shared by the
// LAS and LAZ writers, with the checks that keep a written file faithful.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "simlod/bounds.hpp"
#include "simlod/io.hpp"

namespace simlod::detail {

class LasQuantizer {
 public:
  /// Validates the writer options (point format 0-10 and a record length that holds it, finite
  /// positive scale, finite origin and offset) and picks the header offset: las_offset, else
  /// the origin rounded to whole units, so that coordinates near the origin use the middle of
  /// the int32 range. Throws InvalidInput naming the file.
  LasQuantizer(const std::filesystem::path& path, const WriterOptions& options);

  [[nodiscard]] const std::array<double, 3>& scale() const { return scale_; }
  [[nodiscard]] const std::array<double, 3>& offset() const { return offset_; }

  /// Integer coordinates of p + origin. Throws InvalidInput naming the file and `index` (the
  /// point's position among all points written) for non-finite coordinates or ones outside the
  /// int32 range at this scale.
  [[nodiscard]] std::array<std::int32_t, 3> operator()(const Point& p, std::uint64_t index) const;

 private:
  std::string path_;
  std::array<double, 3> scale_{};
  std::array<double, 3> offset_{};
  std::array<double, 3> origin_{};
  std::array<double, 3> origin_minus_offset_{};
};

/// Bounding box of written integer coordinates; the header bounds are derived from it so that
/// they match the stored points exactly.
struct IntBox {
  std::array<std::int32_t, 3> min{std::numeric_limits<std::int32_t>::max(),
                                  std::numeric_limits<std::int32_t>::max(),
                                  std::numeric_limits<std::int32_t>::max()};
  std::array<std::int32_t, 3> max{std::numeric_limits<std::int32_t>::min(),
                                  std::numeric_limits<std::int32_t>::min(),
                                  std::numeric_limits<std::int32_t>::min()};
  bool empty = true;

  void add(const std::array<std::int32_t, 3>& q) {
    for (std::size_t a = 0; a < 3; ++a) {
      min[a] = q[a] < min[a] ? q[a] : min[a];
      max[a] = q[a] > max[a] ? q[a] : max[a];
    }
    empty = false;
  }
  /// File coordinates (X * scale + offset); an empty Bounds when nothing was added.
  [[nodiscard]] Bounds to_bounds(const std::array<double, 3>& scale,
                                 const std::array<double, 3>& offset) const;
};

/// What a LAS header says of the records written (LAS and LAZ writers): the integer box and
/// the points per return number (1-15; formats 0-5 store it in 3 bits, 6-10 in 4).
struct RecordTally {
  IntBox box;
  std::array<std::uint64_t, 15> by_return{};

  void add(const std::byte* record, int point_format) {
    std::array<std::int32_t, 3> q{};
    std::memcpy(q.data(), record, 12);
    box.add(q);
    const auto bits = static_cast<std::uint8_t>(record[14]);
    const unsigned r = point_format > 5 ? bits & 15u : bits & 7u;
    if (r >= 1) by_return[r - 1] += 1;
  }
};

}  // namespace simlod::detail
