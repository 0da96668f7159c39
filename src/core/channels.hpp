// Attribute channels between the public PointAttributes (structure of arrays) and the packed
// records the tree stores keep beside their samples (detail/channels.hpp).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "simlod/attributes.hpp"
#include "simlod/detail/channels.hpp"

namespace simlod::detail {

/// Throws InvalidInput when an octree keeping the channels `mask` gets no attributes
/// (nullptr), or `attributes` lacks an attribute of `mask` or holds fewer than `n` values of
/// it; `what` names the call ("insert").
void check_channel_attributes(const PointAttributes* attributes, AttributeMask mask, std::size_t n,
                              std::string_view what);

/// Packs the attributes of points [first, first + n) into n records of layout.record_bytes
/// at `out` (the arrays checked by check_channel_attributes()).
void pack_records(const PointAttributes& attributes, const ChannelLayout& layout, std::size_t first,
                  std::size_t n, std::byte* out);

/// Appends the values of n records at `records` to the arrays of the layout's attributes.
void unpack_records(const std::byte* records, std::size_t n, const ChannelLayout& layout,
                    PointAttributes& out);

}  // namespace simlod::detail
