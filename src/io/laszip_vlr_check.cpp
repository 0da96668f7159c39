// check_laszip_vlr (io/las_chunks.hpp): the LASzip VLR against the point format it claims to
// compress. LASzip builds its decoders from the item list and the compressor without checking
// either against the header, so a VLR that disagrees with the points makes it read out of
// bounds. The rules are LASzip's own (laszip_common_v3 / laszip.cpp, item sizes of the LAS
// specification):
//   formats 0-5: compressor 1 or 2; POINT10 (20 bytes, version 1-2), then GPSTIME11 (8) for
//                1, 3, 4, 5, RGB12 (6) for 2, 3, 5, WAVEPACKET13 (29) for 4, 5, then BYTE items
//                for the extra bytes;
//   formats 6-10: compressor 3; POINT14 (30, version 2-4), then RGB14 (6) for 7, RGBNIR14 (8)
//                for 8, 10, WAVEPACKET14 (29) for 9, 10, then BYTE14 items for the extra bytes;
//   the item sizes add up to the record length; the coder is 0 (arithmetic).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "io/las_chunks.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

enum ItemType : std::uint16_t {
  kByte = 0,
  kPoint10 = 6,
  kGpsTime11 = 7,
  kRgb12 = 8,
  kWavePacket13 = 9,
  kPoint14 = 10,
  kRgb14 = 11,
  kRgbNir14 = 12,
  kWavePacket14 = 13,
  kByte14 = 14,
};

struct Expected {
  std::uint16_t type, size;
};

std::vector<Expected> expected_items(int format) {
  const bool time = format == 1 || format == 3 || format == 4 || format == 5;
  const bool rgb = format == 2 || format == 3 || format == 5;
  const bool wave = format == 4 || format == 5;
  if (format <= 5) {
    std::vector<Expected> items{{kPoint10, 20}};
    if (time) items.push_back({kGpsTime11, 8});
    if (rgb) items.push_back({kRgb12, 6});
    if (wave) items.push_back({kWavePacket13, 29});
    return items;
  }
  std::vector<Expected> items{{kPoint14, 30}};
  if (format == 7) items.push_back({kRgb14, 6});
  if (format == 8 || format == 10) items.push_back({kRgbNir14, 8});
  if (format == 9 || format == 10) items.push_back({kWavePacket14, 29});
  return items;
}

bool version_known(std::uint16_t type, std::uint16_t version) {
  if (type <= kWavePacket13) return version >= 1 && version <= 2;  // LASzip 1.x-2.x schemes
  return version >= 2 && version <= 4;                             // the layered schemes
}

}  // namespace

void check_laszip_vlr(const InputFile& file, const LasHeader& header, const LaszipVlr& vlr) {
  const std::string path = file.path().string();
  const int format = header.point_format;
  auto bad = [&](std::uint64_t at, const std::string& what) {
    throw InvalidInput(fmt::format(
        "'{}': its LASzip VLR does not fit its points ({} at byte offset {}); the file is "
        "damaged or was written by a broken tool",
        path, what, at));
  };
  const bool layered = format >= 6;
  if (layered ? vlr.compressor != 3 : (vlr.compressor != 1 && vlr.compressor != 2)) {
    bad(vlr.offset, fmt::format("compressor {} for point format {}, which needs {}", vlr.compressor,
                                format, layered ? "3 (layered chunked)" : "1 or 2"));
  }
  if (vlr.coder != 0) bad(vlr.offset + 2, fmt::format("coder {} (only 0 exists)", vlr.coder));
  if (vlr.compressor != 1 && vlr.chunk_size == 0) {  // LASzip's seek then never ends
    bad(vlr.offset + 12, "chunk size 0 (chunked compressors need at least 1 point per chunk)");
  }
  const std::uint64_t items_at = vlr.offset + 34;
  if (vlr.items.empty()) bad(items_at - 2, "no item list, or one that runs past the VLR");
  const std::vector<Expected> expected = expected_items(format);
  std::uint32_t bytes = 0;
  for (std::size_t k = 0; k < vlr.items.size(); ++k) {
    const LaszipItem& item = vlr.items[k];
    const std::uint64_t at = items_at + 6 * k;
    if (k < expected.size()) {
      if (item.type != expected[k].type || item.size != expected[k].size) {
        bad(at, fmt::format("item {} is type {} of {} bytes where point format {} needs type {} "
                            "of {} bytes",
                            k, item.type, item.size, format, expected[k].type, expected[k].size));
      }
    } else if (item.type != (layered ? kByte14 : kByte) || item.size == 0) {
      bad(at, fmt::format("item {} is type {} of {} bytes where only extra bytes (type {}) may "
                          "follow",
                          k, item.type, item.size, layered ? int{kByte14} : int{kByte}));
    }
    if (!version_known(item.type, item.version)) {
      bad(at + 4,
          fmt::format("item {} (type {}) has the unknown version {}", k, item.type, item.version));
    }
    bytes += item.size;
  }
  if (vlr.items.size() < expected.size()) {
    bad(items_at - 2, fmt::format("{} items where point format {} needs at least {}",
                                  vlr.items.size(), format, expected.size()));
  }
  if (bytes != header.record_length) {
    bad(items_at - 2, fmt::format("items of {} bytes in all for records of {} bytes", bytes,
                                  header.record_length));
  }
}

}  // namespace simlod::detail
