// One LASzip decoder opened on a LAZ file. Several handles on the same file decode different
// chunks concurrently (LASzip keeps no shared state between handles).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string_view>

#include "io/las_format.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

/// Where a file's points end: after the last of `points` points the decoder must have read
/// exactly up to byte offset `data_end` (the chunk table), or the count is a lie and the last
/// points are invented from the bytes behind them. data_end = 0: not checked.
struct LazEnd {
  std::uint64_t points = 0;
  std::uint64_t data_end = 0;
  std::uint64_t count_offset = 0;  ///< of the header's point count, for messages
};

class LazHandle {
 public:
  /// Opens a decoder that only decompresses what simlod uses (XY, Z, intensity, RGB; layered
  /// LAS 1.4 files skip the other layers), or every layer (`all_layers`: for records). Throws
  /// InvalidInput with LASzip's message.
  LazHandle(const std::filesystem::path& path, const LazEnd& end, bool all_layers = false);
  ~LazHandle();
  LazHandle(const LazHandle&) = delete;
  LazHandle& operator=(const LazHandle&) = delete;

  /// Index of the next point this handle decodes.
  [[nodiscard]] std::uint64_t position() const { return position_; }

  /// Moves to point `index` (no-op when already there). LASzip jumps to the start of the
  /// containing chunk and decodes up to `index`, so callers seek to chunk starts.
  void seek(std::uint64_t index);

  /// Decodes the next out.size() points, and when `records` is not empty their LAS records
  /// (point format `format`, `record_length` bytes each; needs a handle of all layers).
  void decode(std::span<Point> out, const PointDecoder& decoder, std::span<std::byte> records = {},
              int format = 0, std::size_t record_length = 0);

  /// Decodes the next `count` points only to collect their colour statistics.
  void sample(std::uint64_t count, ColorStats& stats);

 private:
  [[noreturn]] void fail(std::string_view what) const;
  void read_point();
  void check_end();

  std::filesystem::path path_;
  LazEnd end_;
  std::ifstream stream_;    // what LASzip reads (byte by byte): its position is the decoder's
  void* laszip_ = nullptr;  // laszip_POINTER
  void* point_ = nullptr;   // laszip_point_struct*, owned by laszip_
  std::uint64_t position_ = 0;
};

}  // namespace simlod::detail
