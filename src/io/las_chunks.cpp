// VLR header (54 bytes): uint16 reserved, char[16] user id, uint16 record id, uint16 length
// after header, char[32] description. LASzip payload: uint16 compressor, uint16 coder,
// uint8 version major, uint8 version minor, uint16 revision, uint32 options, uint32 chunk size,
// int64 special EVLR count, int64 special EVLR offset, uint16 item count, items.
//
// Chunked point data starts with an int64 pointer to the chunk table (-1: the pointer is in the
// last 8 bytes of the file); the table starts with uint32 version 0 and uint32 chunk count,
// followed by the arithmetic-coded chunk sizes.
//
// A layered chunk (compressor 3, LAS 1.4) describes itself: its first point raw (the record
// length), uint32 points in the chunk, a uint32 byte count per layer (POINT14: 9 layers, RGB14:
// 1, RGBNIR14: 2, WAVEPACKET14: 1, BYTE14: one per byte), then the layers, back to back.
#include "io/las_chunks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "io/las_format.hpp"
#include "io/laz_chunk_table.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

constexpr std::size_t kVlrHeaderBytes = 54;
constexpr std::uint16_t kLaszipRecordId = 22204;
constexpr std::uint32_t kVariableChunks = 0xFFFFFFFFu;
constexpr std::size_t kItemsAt = 32;  ///< byte offset of the item count in the payload

/// Layers per chunk of a layered item (0: not a layered item).
std::uint64_t layers_of(const LaszipItem& item) {
  switch (item.type) {
    case 10:
      return 9;                 // POINT14: XY and returns, Z, classification, flags, intensity,
                                // scan angle, user data, point source, GPS time
    case 11: return 1;          // RGB14
    case 12: return 2;          // RGBNIR14
    case 13: return 1;          // WAVEPACKET14
    case 14: return item.size;  // BYTE14: a layer per extra byte
    default: return 0;
  }
}

/// An arithmetic decoder started at `offset` must not begin in a state no encoder makes
/// (LASzip's decoders then index their tables out of bounds).
void check_decoder_start(const InputFile& file, std::uint64_t offset, const std::string& what) {
  std::array<std::byte, 4> four{};
  if (file.read_some(offset, four) < four.size()) return;  // LASzip stops at the end itself
  if (arithmetic_start_is_damaged(four)) {
    throw InvalidInput(
        fmt::format("'{}' is damaged: the compressed data of {} (byte offset {}) "
                    "starts with four bytes of all ones, which no LAZ encoder "
                    "writes",
                    file.path().string(), what, offset));
  }
}

/// Decodes the chunk table at `table` (its entries start 8 bytes in) and checks them against
/// the point data: every chunk has bytes, they end exactly at the table, variable-size chunks
/// hold the declared points, and every pointwise chunk's decoder starts in a valid state.
LazChunkEntries check_chunk_entries(const InputFile& file, const LasHeader& header,
                                    const LaszipVlr& vlr, std::uint64_t table,
                                    std::uint32_t chunks) {
  const std::string path = file.path().string();
  const bool variable = vlr.chunk_size == kVariableChunks;
  // A value takes at most about 7 bytes (its bit length and up to 32 bits of corrector, each
  // under a model no cheaper than 2^-15): 8 per value covers any table LASzip writes.
  const std::uint64_t room = file.size() - table - 8;
  std::vector<std::byte> coded(
      std::min<std::uint64_t>(room, std::uint64_t{chunks} * (variable ? 2 : 1) * 8 + 16));
  file.read_exact(table + 8, coded, "LAZ chunk table");
  const std::optional<LazChunkEntries> entries = decode_laz_chunk_table(coded, chunks, variable);
  if (!entries) {
    throw InvalidInput(fmt::format(
        "'{}' is damaged: its LAZ chunk table (byte offset {}) cannot be decoded: its {} "
        "entries need more than the {} bytes behind it, or its coded data starts in a state no "
        "encoder writes",
        path, table, chunks, coded.size()));
  }
  const std::uint64_t chunks_start = header.offset_to_point_data + 8;
  std::uint64_t at = chunks_start, points = 0;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    if (entries->bytes[c] == 0 || (variable && entries->points[c] == 0)) {
      throw InvalidInput(fmt::format(
          "'{}': its LAZ chunk table (byte offset {}) lists chunk {} with {} bytes and {} points",
          path, table, c, entries->bytes[c], variable ? entries->points[c] : vlr.chunk_size));
    }
    if (vlr.compressor == 2) {
      check_decoder_start(file, at + header.record_length, fmt::format("LAZ chunk {}", c));
    }
    at += entries->bytes[c];
    if (variable) points += entries->points[c];
  }
  if (at != table || (variable && points != header.point_count)) {
    throw InvalidInput(fmt::format(
        "'{}' is damaged or its header is wrong: its LAZ chunk table (byte offset {}) lists {} "
        "chunks ending at byte offset {}{}, but the points run from byte offset {} to the "
        "table{}",
        path, table, chunks, at, variable ? fmt::format(" with {} points", points) : "",
        chunks_start,
        variable ? fmt::format(" and the header declares {} points", header.point_count) : ""));
  }
  return *entries;
}

/// Walks the layered chunks from the first to the chunk table: each chunk's layers must lie
/// before the table (LASzip allocates a buffer of each layer's declared size before reading
/// it), every chunk but the last must be full, and the chunks must end at the table holding
/// exactly the declared points.
void check_layered_chunks(const InputFile& file, const LasHeader& header, const LaszipVlr& vlr,
                          std::uint64_t table, const LazChunkEntries& entries) {
  const auto chunks = static_cast<std::uint32_t>(entries.bytes.size());
  std::uint64_t layers = 0;
  for (const LaszipItem& item : vlr.items) layers += layers_of(item);
  const std::uint64_t head_bytes = header.record_length + 4 + 4 * layers;
  const std::string path = file.path().string();
  const bool fixed = vlr.chunk_size != 0 && vlr.chunk_size != kVariableChunks;
  std::vector<std::byte> head(head_bytes);
  std::uint64_t at = header.offset_to_point_data + 8, points = 0;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    if (at + head_bytes > table) {
      throw InvalidInput(fmt::format(
          "'{}': LAZ chunk {} of {} would start at byte offset {}, but its {} header bytes do "
          "not fit before the chunk table at byte offset {}",
          path, c, chunks, at, head_bytes, table));
    }
    file.read_exact(at, head, "LAZ chunk header");
    const auto count = load_le<std::uint32_t>(head.data(), header.record_length);
    std::uint64_t bytes = 0;
    for (std::uint64_t k = 0; k < layers; ++k) {
      bytes += load_le<std::uint32_t>(head.data(), header.record_length + 4 + 4 * k);
    }
    if (bytes > table - at - head_bytes) {
      throw InvalidInput(fmt::format(
          "'{}': LAZ chunk {} (byte offset {}) declares layers of {} bytes, more than the {} "
          "bytes before the chunk table at byte offset {}",
          path, c, at, bytes, table - at - head_bytes, table));
    }
    const bool last = c + 1 == chunks;
    if (count == 0 || (fixed && (count > vlr.chunk_size || (!last && count != vlr.chunk_size)))) {
      throw InvalidInput(fmt::format(
          "'{}': LAZ chunk {} of {} (byte offset {}) holds {} points, but the chunks hold {} "
          "points each, the last one at most that",
          path, c, chunks, at, count, vlr.chunk_size));
    }
    if (head_bytes + bytes != entries.bytes[c]) {
      throw InvalidInput(fmt::format(
          "'{}': LAZ chunk {} (byte offset {}) holds {} bytes, but the chunk table says {}", path,
          c, at, head_bytes + bytes, entries.bytes[c]));
    }
    // Each layer gets its own arithmetic decoder, started on the layer's first four bytes.
    std::uint64_t layer_at = at + head_bytes;
    for (std::uint64_t k = 0; k < layers; ++k) {
      const auto size = load_le<std::uint32_t>(head.data(), header.record_length + 4 + 4 * k);
      if (size >= 4)
        check_decoder_start(file, layer_at, fmt::format("layer {} of LAZ chunk {}", k, c));
      layer_at += size;
    }
    points += count;
    at += head_bytes + bytes;
  }
  // `at` is the table's offset here: every chunk matched its table entry, and the entries end
  // at the table (check_chunk_entries).
  if (points != header.point_count) {
    throw InvalidInput(fmt::format(
        "'{}' is damaged or its header is wrong: its {} LAZ chunks hold {} points and end at "
        "byte offset {}, but the header declares {} points (byte offset {}) and the chunk table "
        "starts at byte offset {}",
        path, chunks, points, at, header.point_count, header.point_count_offset, table));
  }
}

}  // namespace

std::optional<LaszipVlr> find_laszip_vlr(const InputFile& file, const LasHeader& header) {
  std::uint64_t pos = header.header_size;
  for (std::uint32_t i = 0; i < header.vlr_count; ++i) {
    if (pos + kVlrHeaderBytes > header.offset_to_point_data) break;
    std::array<std::byte, kVlrHeaderBytes> vlr{};
    file.read_exact(pos, vlr, "LAS variable length record header");
    const auto length = load_le<std::uint16_t>(vlr.data(), 20);
    const bool laszip = std::memcmp(vlr.data() + 2, "laszip encoded", 14) == 0 &&
                        load_le<std::uint16_t>(vlr.data(), 18) == kLaszipRecordId;
    if (laszip && length < 16) {  // too short to be one: check_laszip_vlr refuses compressor 0
      LaszipVlr v;
      v.offset = pos + kVlrHeaderBytes;
      return v;
    }
    if (laszip) {
      std::vector<std::byte> payload(length);
      file.read_exact(pos + kVlrHeaderBytes, payload, "LASzip VLR");
      LaszipVlr v{load_le<std::uint16_t>(payload.data(), 0),
                  load_le<std::uint32_t>(payload.data(), 12),
                  load_le<std::uint16_t>(payload.data(), 2),
                  {},
                  pos + kVlrHeaderBytes};
      if (length >= kItemsAt + 2) {
        const auto count = load_le<std::uint16_t>(payload.data(), kItemsAt);
        for (std::size_t k = 0; k < count && kItemsAt + 2 + 6 * (k + 1) <= length; ++k) {
          const std::byte* item = payload.data() + kItemsAt + 2 + 6 * k;
          v.items.push_back({load_le<std::uint16_t>(item, 0), load_le<std::uint16_t>(item, 2),
                             load_le<std::uint16_t>(item, 4)});
        }
        if (v.items.size() != count) v.items.clear();  // the list runs past the VLR: refused
      }
      return v;
    }
    pos += kVlrHeaderBytes + length;
  }
  return std::nullopt;
}

void check_las_vlr_lists(const InputFile& file, const LasHeader& header) {
  const std::string path = file.path().string();
  std::uint64_t pos = header.header_size;
  const std::uint64_t end = header.offset_to_point_data;
  if (std::uint64_t{header.vlr_count} * kVlrHeaderBytes > end - std::min<std::uint64_t>(pos, end)) {
    throw InvalidInput(fmt::format(
        "'{}': the header declares {} variable length records (byte offset 100), more than the "
        "{} bytes between the header and the point data (byte offset {}) can hold",
        path, header.vlr_count, end - std::min<std::uint64_t>(pos, end), end));
  }
  for (std::uint32_t i = 0; i < header.vlr_count; ++i) {
    std::array<std::byte, kVlrHeaderBytes> vlr{};
    file.read_exact(pos, vlr, "LAS variable length record header");
    const std::uint64_t next = pos + kVlrHeaderBytes + load_le<std::uint16_t>(vlr.data(), 20);
    if (next > end) {
      throw InvalidInput(fmt::format(
          "'{}': variable length record {} at byte offset {} runs to byte offset {}, past the "
          "start of the point data at byte offset {}",
          path, i, pos, next, end));
    }
    pos = next;
  }
  if (header.version_minor < 4 || file.size() < 247) return;
  std::array<std::byte, 12> evlrs{};
  file.read_exact(235, evlrs, "LAS 1.4 extended VLR fields");
  const auto start = load_le<std::uint64_t>(evlrs.data(), 0);
  const auto count = load_le<std::uint32_t>(evlrs.data(), 8);
  if (count == 0) return;
  constexpr std::uint64_t kEvlrHeaderBytes = 60;
  if (start > file.size() || std::uint64_t{count} * kEvlrHeaderBytes > file.size() - start) {
    throw InvalidInput(fmt::format(
        "'{}': the header declares {} extended variable length records from byte offset {} "
        "(fields at byte offsets 235 and 243), more than the {}-byte file can hold",
        path, count, start, file.size()));
  }
  pos = start;
  for (std::uint32_t i = 0; i < count; ++i) {
    std::array<std::byte, kEvlrHeaderBytes> evlr{};
    file.read_exact(pos, evlr, "LAS extended variable length record header");
    const auto length = load_le<std::uint64_t>(evlr.data(), 20);
    if (length > file.size() - pos - kEvlrHeaderBytes) {
      throw InvalidInput(fmt::format(
          "'{}': extended variable length record {} at byte offset {} declares {} bytes, past "
          "the end of the file at {} bytes",
          path, i, pos, length, file.size()));
    }
    pos += kEvlrHeaderBytes + length;
  }
}

std::uint64_t laz_parallel_chunk_size(const std::optional<LaszipVlr>& vlr,
                                      std::uint64_t point_count) {
  if (!vlr || (vlr->compressor != 2 && vlr->compressor != 3)) return 0;
  if (vlr->chunk_size == 0 || vlr->chunk_size == kVariableChunks) return 0;
  if (point_count > std::numeric_limits<std::uint32_t>::max()) return 0;
  return vlr->chunk_size;
}

LazChunks check_laz_chunk_table(const InputFile& file, const LasHeader& header,
                                const std::optional<LaszipVlr>& vlr) {
  if (vlr && vlr->compressor == 1) {  // one stream, no chunks: its decoder starts once
    check_decoder_start(file, header.offset_to_point_data + header.record_length, "the points");
    return {};
  }
  if (!vlr || (vlr->compressor != 2 && vlr->compressor != 3)) return {};
  const std::string path = file.path().string();
  std::array<std::byte, 8> pointer{};
  file.read_exact(header.offset_to_point_data, pointer, "LAZ chunk table pointer");
  auto table = load_le<std::int64_t>(pointer.data(), 0);
  std::uint64_t pointer_offset = header.offset_to_point_data;
  if (table == -1 && file.size() >= 8) {
    pointer_offset = file.size() - 8;
    file.read_exact(pointer_offset, pointer, "LAZ chunk table pointer");
    table = load_le<std::int64_t>(pointer.data(), 0);
  }
  // A writer that stopped before writing the table leaves the pointer aimed at itself;
  // LASzip then finds the chunks while decoding sequentially.
  if (table == static_cast<std::int64_t>(header.offset_to_point_data)) return {};
  const std::uint64_t chunks_start = header.offset_to_point_data + 8;
  if (table < static_cast<std::int64_t>(chunks_start) ||
      static_cast<std::uint64_t>(table) + 8 > file.size()) {
    throw InvalidInput(fmt::format(
        "'{}' is truncated or damaged: its LAZ chunk table should start at byte offset {} "
        "(pointer at byte offset {}) but the point data runs from byte offset {} to the end of "
        "the file at {} bytes",
        path, table, pointer_offset, chunks_start, file.size()));
  }
  std::array<std::byte, 8> head{};
  file.read_exact(static_cast<std::uint64_t>(table), head, "LAZ chunk table");
  const auto version = load_le<std::uint32_t>(head.data(), 0);
  const auto chunks = load_le<std::uint32_t>(head.data(), 4);
  if (version != 0) {
    throw InvalidInput(fmt::format("'{}': unknown LAZ chunk table version {} at byte offset {}",
                                   path, version, table));
  }
  // Every chunk holds at least one point and one byte: a larger count is a damaged table
  // (LASzip would allocate its entries before reading any).
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(table) - chunks_start;
  if (chunks > data_bytes || chunks > std::max<std::uint64_t>(header.point_count, 1) ||
      (chunks == 0 && header.point_count > 0)) {
    throw InvalidInput(fmt::format(
        "'{}': its LAZ chunk table (byte offset {}) lists {} chunks, which its {} points in {} "
        "bytes of point data cannot make",
        path, table, chunks, header.point_count, data_bytes));
  }
  // Fixed-size chunks bound the point count, whatever its size (the 64-bit count of LAS 1.4
  // included): a count the chunks cannot hold is a header that lies.
  const bool fixed = vlr->chunk_size != 0 && vlr->chunk_size != kVariableChunks;
  if (fixed && header.point_count > std::uint64_t{chunks} * vlr->chunk_size) {
    throw InvalidInput(fmt::format(
        "'{}' is truncated or its header is wrong: the header declares {} points (byte offset "
        "{}) but the LAZ chunk table (byte offset {}) lists {} chunks of {} points",
        path, header.point_count, header.point_count_offset, table, chunks, vlr->chunk_size));
  }
  const LazChunkEntries entries =
      check_chunk_entries(file, header, *vlr, static_cast<std::uint64_t>(table), chunks);
  if (vlr->compressor == 3) {
    check_layered_chunks(file, header, *vlr, static_cast<std::uint64_t>(table), entries);
  }
  return {laz_parallel_chunk_size(vlr, header.point_count), static_cast<std::uint64_t>(table)};
}

std::vector<PointRange> plan_decode_ranges(std::uint64_t begin, std::uint64_t end,
                                           std::uint64_t chunk_size, unsigned threads) {
  if (chunk_size == 0 || threads <= 1 || end - begin <= chunk_size) return {{begin, end}};
  // Chunk starts strictly inside (begin, end) are the possible cuts.
  const std::uint64_t first_cut = (begin / chunk_size + 1) * chunk_size;
  if (first_cut >= end) return {{begin, end}};
  const std::uint64_t last_cut = (end - 1) / chunk_size * chunk_size;
  const std::uint64_t cuts_available = (last_cut - first_cut) / chunk_size + 1;
  const std::uint64_t parts = std::min<std::uint64_t>(threads, cuts_available + 1);

  std::vector<PointRange> ranges;
  ranges.reserve(parts);
  std::uint64_t start = begin;
  for (std::uint64_t k = 1; k < parts; ++k) {
    // Ideal even split, moved to the nearest chunk start that keeps the ranges non-empty.
    const double ideal = static_cast<double>(begin) + static_cast<double>(end - begin) *
                                                          static_cast<double>(k) /
                                                          static_cast<double>(parts);
    auto cut = static_cast<std::uint64_t>(std::llround(ideal / static_cast<double>(chunk_size))) *
               chunk_size;
    cut = std::clamp(cut, first_cut, last_cut);
    if (cut <= start) continue;
    ranges.push_back({start, cut});
    start = cut;
  }
  ranges.push_back({start, end});
  return ranges;
}

}  // namespace simlod::detail
