#include "common/ground_records.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <string>

#include "common/extra_bytes.hpp"
#include "common/raster_writers.hpp"
#include "simlod/error.hpp"

namespace simlod::examples {

void set_class(std::byte* record, int format, std::uint8_t cls) {
  if (format <= 5) {
    record[15] = static_cast<std::byte>((static_cast<unsigned>(record[15]) & 0xE0u) | cls);
  } else {
    record[16] = static_cast<std::byte>(cls);
  }
}

std::uint8_t get_class(const std::byte* record, int format) {
  return format <= 5 ? static_cast<std::uint8_t>(static_cast<unsigned>(record[15]) & 0x1Fu)
                     : static_cast<std::uint8_t>(record[16]);
}

std::uint8_t get_class_flags(const std::byte* record, int format) {
  const auto b = static_cast<unsigned>(record[15]);
  return static_cast<std::uint8_t>(format <= 5 ? b >> 5 : b & 0x0Fu);
}

std::uint8_t new_class(bool skipped, bool ground, std::uint8_t old, bool keep) {
  if (skipped) return old;
  if (ground) return 2;
  return keep && old > 2 ? old : 1;
}

std::optional<std::size_t> described_extra_bytes(const LasVlr& vlr) {
  static constexpr std::size_t kSize[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  std::size_t total = 0;
  for (std::size_t at = 0; at + 192 <= vlr.data.size(); at += 192) {
    const auto type = static_cast<unsigned>(vlr.data[at + 2]);
    if (type > 10) return std::nullopt;
    total += type == 0 ? static_cast<unsigned>(vlr.data[at + 3]) : kSize[type];
  }
  return total;
}

std::vector<float> heights_above(std::span<const Point> points, const terrain::Raster& dtm) {
  std::vector<float> h(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double d = terrain::dtm_height(dtm, points[i].x, points[i].y);
    h[i] = std::isnan(d) ? static_cast<float>(kRasterNodata) : static_cast<float>(points[i].z - d);
  }
  return h;
}

std::vector<std::byte> with_heights(std::span<const std::byte> records, std::size_t count,
                                    std::size_t length, int format,
                                    const std::vector<float>& heights, LasMetadata& metadata,
                                    const std::string& path, std::size_t& new_length) {
  const std::size_t extra = length - static_cast<std::size_t>(las_min_record_length(format));
  LasVlr& vlr = extra_bytes_vlr(metadata);
  if (described_extra_bytes(vlr) != extra) {
    throw InvalidInput(fmt::format(
        "{}: its records carry {} extra bytes that its extra-bytes VLR does not describe field "
        "by field; --hag cannot add a field after them",
        path, extra));
  }
  new_length = length + sizeof(float);
  if (new_length > 65535) throw InvalidInput("--hag: the records would exceed 65,535 bytes");
  add_extra_bytes_field(vlr, kHagName, kExtraFloat, kHagDescription, kRasterNodata);
  std::vector<std::byte> out(count * new_length);
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(out.data() + i * new_length, records.data() + i * length, length);
    std::memcpy(out.data() + i * new_length + length, &heights[i], sizeof(float));
  }
  return out;
}

}  // namespace simlod::examples
