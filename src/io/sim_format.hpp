// The SIM file layout (SimLOD's own point format), shared by the SIM reader and writer.
//
//   offset  0  float32[3]  minimum corner (x, y, z) of all points
//   offset 12  float32[3]  maximum corner
//   offset 24  records of 16 bytes, exactly simlod::Point: float32 x, y, z; uint8 r, g, b, a
//
// Little-endian, no version field, no origin: coordinates are stored as given. The point count
// is implied by the file size, (size - 24) / 16.
#pragma once

#include <bit>
#include <cstdint>

#include "simlod/point.hpp"

namespace simlod::detail {

struct SimHeader {
  float min[3];
  float max[3];
};

inline constexpr std::uint64_t kSimHeaderBytes = 24;
inline constexpr std::uint64_t kSimRecordBytes = 16;

static_assert(sizeof(SimHeader) == kSimHeaderBytes, "SIM header is six packed floats");
static_assert(sizeof(Point) == kSimRecordBytes, "a SIM record is a simlod::Point");
// Records are copied byte for byte between the file and Point.
static_assert(std::endian::native == std::endian::little, "SIM I/O assumes a little-endian host");

}  // namespace simlod::detail
