// Packing attributes into channel records and back (core/channels.hpp).
#include "core/channels.hpp"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "io/attribute_arrays.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
void check_channel_attributes(const PointAttributes* attributes, AttributeMask mask, std::size_t n,
                              std::string_view what) {
  if (mask == 0) return;
  if (attributes == nullptr) {
    throw InvalidInput(fmt::format(
        "{0}: this octree keeps the attribute channels {1}; pass the batch with its attributes "
        "({0}(points, attributes)); nothing of the batch went in",
        what, attribute_names(mask)));
  }
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    const auto a = static_cast<Attribute>(i);
    if (!has_attribute(mask, a) || attributes->size_of(a) >= n) continue;
    throw InvalidInput(fmt::format(
        "{}: the octree keeps the attribute channel {}, but the batch of {} points has {} "
        "values of it (read the file with ReaderOptions::attributes = OctreeConfig::channels); "
        "nothing of the batch went in",
        what, to_string(a), n, attributes->size_of(a)));
  }
}

void pack_records(const PointAttributes& attributes, const ChannelLayout& layout, std::size_t first,
                  std::size_t n, std::byte* out) {
  const std::size_t stride = layout.record_bytes;
  if (stride == 0 || n == 0) return;
  std::memset(out, 0, n * stride);  // padding bytes are defined
  for_each_array(attributes, [&](Attribute a, const auto& values) {
    if (!layout.has(a)) return;
    using T = typename std::decay_t<decltype(values)>::value_type;
    std::byte* at = out + layout.offset_of(a);
    for (std::size_t i = 0; i < n; ++i, at += stride) {
      std::memcpy(at, &values[first + i], sizeof(T));
    }
  });
}

void unpack_records(const std::byte* records, std::size_t n, const ChannelLayout& layout,
                    PointAttributes& out) {
  const std::size_t stride = layout.record_bytes;
  if (stride == 0 || n == 0) return;
  for_each_array(out, [&](Attribute a, auto& values) {
    if (!layout.has(a)) return;
    using T = typename std::decay_t<decltype(values)>::value_type;
    const std::byte* at = records + layout.offset_of(a);
    const std::size_t old = values.size();
    values.resize(old + n);
    for (std::size_t i = 0; i < n; ++i, at += stride) std::memcpy(&values[old + i], at, sizeof(T));
  });
}

}  // namespace simlod::detail
