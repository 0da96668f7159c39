// SIM reader: records are simlod::Point already, so a batch is one pread into the caller's span
// followed by validation and the origin shift in place.
#include <fmt/format.h>

#include <cmath>
#include <span>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/sim_format.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

bool finite(const Point& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

// Header and size checks shared by read_sim_info and the reader; the origin is left at 0.
FileInfo parse_sim(const InputFile& file) {
  const std::string path = file.path().string();
  SimHeader header{};
  file.read_exact(0, bytes_of(header), "SIM header");

  const std::uint64_t body = file.size() - kSimHeaderBytes;
  if (body % kSimRecordBytes != 0) {
    const std::uint64_t complete = body / kSimRecordBytes;
    throw InvalidInput(fmt::format(
        "'{}' ends with a truncated record at byte offset {}: {} trailing bytes after {} "
        "complete 16-byte records",
        path, kSimHeaderBytes + complete * kSimRecordBytes, body % kSimRecordBytes, complete));
  }
  // body == 0: a valid file of no points (the writer's header of an empty cloud).

  FileInfo info;
  info.path = file.path();
  info.format = FileFormat::Sim;
  info.record_length = static_cast<std::uint32_t>(kSimRecordBytes);
  info.point_count = body / kSimRecordBytes;
  info.has_color = true;
  info.color_16bit = false;
  info.seek_step = 1;
  for (int a = 0; a < 3; ++a) {
    const float lo = header.min[a];
    const float hi = header.max[a];
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) {
      throw InvalidInput(fmt::format(
          "'{}' has an invalid SIM header: bounds min ({}, {}, {}) max ({}, {}, {}) must be "
          "finite with min <= max",
          path, header.min[0], header.min[1], header.min[2], header.max[0], header.max[1],
          header.max[2]));
    }
    info.bounds.min[static_cast<std::size_t>(a)] = lo;
    info.bounds.max[static_cast<std::size_t>(a)] = hi;
  }
  return info;
}

class SimReader final : public PointReader {
 public:
  SimReader(InputFile file, const ReaderOptions& options) : file_(std::move(file)) {
    info_ = parse_sim(file_);
    for (int a = 0; a < 3; ++a) {  // the header's floats, as the records hold them
      lo_[a] = static_cast<float>(info_.bounds.min[static_cast<std::size_t>(a)]);
      hi_[a] = static_cast<float>(info_.bounds.max[static_cast<std::size_t>(a)]);
    }
    info_.origin = options.origin.value_or(info_.bounds.min);
    shift_ = info_.origin != std::array<double, 3>{0.0, 0.0, 0.0};
    accept_attribute_request(options);  // SIM records hold no attributes
  }

 protected:
  std::size_t read_impl(std::span<Point> out, std::span<std::byte> /*records*/) override {
    const std::uint64_t first = points_read();
    const std::uint64_t offset = kSimHeaderBytes + first * kSimRecordBytes;
    file_.read_exact(offset, std::as_writable_bytes(out), "SIM point records");
    const auto& o = info_.origin;
    for (std::size_t i = 0; i < out.size(); ++i) {
      Point& p = out[i];
      // One test for both faults (NaN fails every comparison): a point that is not finite, or
      // outside the bounds the header declares (a header the writer never finished, or a
      // file whose records were changed).
      if (!(p.x >= lo_[0] && p.x <= hi_[0] && p.y >= lo_[1] && p.y <= hi_[1] && p.z >= lo_[2] &&
            p.z <= hi_[2])) {
        throw InvalidInput(
            finite(p)
                ? fmt::format("'{}': point {} at byte offset {} ({}, {}, {}) lies outside the "
                              "bounds its SIM header declares, min ({}, {}, {}) max ({}, {}, {})",
                              file_.path().string(), first + i, offset + i * kSimRecordBytes, p.x,
                              p.y, p.z, lo_[0], lo_[1], lo_[2], hi_[0], hi_[1], hi_[2])
                : fmt::format(
                      "'{}': point {} at byte offset {} has a non-finite coordinate ({}, {}, {})",
                      file_.path().string(), first + i, offset + i * kSimRecordBytes, p.x, p.y,
                      p.z));
      }
      // Shift in double so that the only rounding is the final one to float.
      if (shift_) {
        p.x = static_cast<float>(static_cast<double>(p.x) - o[0]);
        p.y = static_cast<float>(static_cast<double>(p.y) - o[1]);
        p.z = static_cast<float>(static_cast<double>(p.z) - o[2]);
      }
    }
    return out.size();
  }

 private:
  InputFile file_;
  bool shift_ = false;
  float lo_[3] = {}, hi_[3] = {};  ///< the header's bounds
};

}  // namespace

std::unique_ptr<PointReader> open_sim_reader(const std::filesystem::path& path,
                                             const ReaderOptions& options) {
  return std::make_unique<SimReader>(InputFile(path), options);
}

FileInfo read_sim_info(const std::filesystem::path& path) {
  const InputFile file(path);
  FileInfo info = parse_sim(file);
  info.origin = info.bounds.min;
  return info;
}

}  // namespace simlod::detail
