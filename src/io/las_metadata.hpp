// LAS metadata (simlod::LasMetadata): reading the header fields and (extended) VLRs of a file,
// and encoding them for the LAS and LAZ writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simlod/io.hpp"

namespace simlod::detail {

/// Bytes of a VLR's header (LAS 1.4 R15 table 4) and of an extended VLR's (table 23).
inline constexpr std::uint64_t kVlrHeaderSize = 54, kEvlrHeaderSize = 60;

/// The VLR (54-byte header and payload) as a file stores it. Throws InvalidInput when its
/// payload exceeds the 65,535 bytes a VLR can hold.
void append_vlr(std::vector<std::byte>& out, const LasVlr& vlr);
/// The extended VLRs (60-byte headers and payloads) as a file stores them from byte offset
/// `start` on; `waveform_start` gets the offset of the waveform data packet record (user
/// "LASF_Spec", record 65535; the LAS 1.3/1.4 header holds it at byte 227) when one is it.
[[nodiscard]] std::vector<std::byte> encode_evlrs(const std::vector<LasVlr>& evlrs,
                                                  std::uint64_t start,
                                                  std::uint64_t& waveform_start);

}  // namespace simlod::detail
