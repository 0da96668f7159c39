// Leaf points in storage chunks: exact floats (PointEncoding::Float32) or 16 bits per axis
// within the leaf (PointEncoding::Quantized16).
//
// Float32: a chunk of `capacity` (OctreeConfig::chunk_capacity) Points, 16 bytes each, then
// the channel records (record k beside point k) at records_offset = 16 * capacity.
//
// Quantized16: the same bytes hold about 1.6 times as many points, structure of arrays, byte
// offsets from the chunk's start:
//   0                 uint32 rgba[capacity]
//   4 * capacity      uint16 code[3 * capacity]   x, y, z of point k at 3k, 3k + 1, 3k + 2
//   records_offset    channel records (record_bytes each), at a multiple of 16
// A point is its quantised position q (kQuantBits bits per axis, octree_math.hpp). In a leaf at
// level L the code of an axis is the 16 bits of q below the leaf's position bits, bits
// [kQuantBits - L - 16, kQuantBits - L) (deeper than level 15 a leaf spans fewer than 2^16
// units and the code is q's offset in it), so q is rebuilt from the leaf's position and the
// code with integers alone. q must therefore have no set bit below that range: a point is
// rounded to a multiple of the leaf's step, 2^(kQuantBits - L - 16) units (round_to_leaf),
// when it first goes into a leaf, before anything else reads its q (its voxel cells, its
// Random key). A split moves it one level deeper, where the step halves, so it keeps its q
// (and its precision) ever after. The position it reads back as is q's (decode_axis): within
// half a step of the input (a whole step at the leaf's upper faces, where rounding up would
// leave the leaf), i.e. within edge / 2^(L + 17) of the input for the level L of the leaf it
// first went into (plus the float arithmetic of quantising and decoding: about 2 parts in
// 10^7 of the coordinate, and the tree's integer unit, edge / 2^31).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simlod/detail/chunk_fit.hpp"
#include "simlod/detail/hd.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

/// Bits of a quantised point's code per axis.
inline constexpr std::uint32_t kPointCodeBits = 16;

struct PointLayout {
  std::uint32_t capacity = 0;        ///< points per chunk
  std::uint64_t records_offset = 0;  ///< of the channel records from the chunk's start
  bool quantized = false;            ///< Quantized16 (else Float32)
};

/// Bytes of a quantised point (its colour and three codes).
inline constexpr std::uint32_t kQuantizedPointBytes = 4 + 3 * (kPointCodeBits / 8);

/// The layout of a leaf's chunk of chunk_capacity * (16 + record_bytes) bytes (the payload
/// of every chunk of the store): Float32 holds chunk_capacity points, Quantized16 the largest
/// number whose colours, codes and 16-aligned records fit.
SIMLOD_HD constexpr PointLayout point_layout(std::uint32_t chunk_capacity,
                                             std::uint32_t record_bytes, bool quantized) {
  PointLayout l{};
  l.quantized = quantized;
  if (!quantized) {
    l.capacity = chunk_capacity;
    l.records_offset = std::uint64_t{16} * chunk_capacity;
    return l;
  }
  const std::uint64_t c = samples_that_fit(std::uint64_t{chunk_capacity} * (16 + record_bytes),
                                           kQuantizedPointBytes, record_bytes);
  l.capacity = static_cast<std::uint32_t>(c);
  l.records_offset = pad16(c * kQuantizedPointBytes);
  return l;
}

/// Shift of a level-`level` leaf's code within q: the code is q >> shift when shift >= 0.
SIMLOD_HD constexpr std::int32_t code_shift(std::uint32_t level) {
  return static_cast<std::int32_t>(kQuantBits - kPointCodeBits) - static_cast<std::int32_t>(level);
}

/// One axis of q rounded to the step of a level-`level` leaf, to the nearest multiple and
/// at most the leaf's last one (so that it stays in the leaf). Idempotent, and a value rounded
/// at a level is unchanged by rounding at a deeper level of the same leaf's subtree.
SIMLOD_HD constexpr std::uint32_t round_axis_to_leaf(std::uint32_t q, std::uint32_t level) {
  const std::int32_t shift = code_shift(level);
  if (shift <= 0) return q;
  const std::uint64_t step = std::uint64_t{1} << shift;
  const std::uint64_t span = std::uint64_t{1} << (kQuantBits - level);
  const std::uint64_t last = (std::uint64_t{q} / span + 1) * span - step;
  const std::uint64_t r = (std::uint64_t{q} + step / 2) & ~(step - 1);
  return static_cast<std::uint32_t>(r < last ? r : last);
}

SIMLOD_HD constexpr QuantPoint round_to_leaf(const QuantPoint& q, std::uint32_t level) {
  return {round_axis_to_leaf(q.x, level), round_axis_to_leaf(q.y, level),
          round_axis_to_leaf(q.z, level)};
}

/// The code of one axis of a rounded q in a level-`level` leaf.
SIMLOD_HD constexpr std::uint32_t encode_axis(std::uint32_t q, std::uint32_t level) {
  const std::int32_t shift = code_shift(level);
  if (shift >= 0) return (q >> shift) & 0xffffu;
  return q & ((1u << (kQuantBits - level)) - 1u);
}

/// One axis of q from the leaf's integer position on that axis and the code.
SIMLOD_HD constexpr std::uint32_t decode_axis_q(std::uint32_t node_pos, std::uint32_t code,
                                                std::uint32_t level) {
  const std::int32_t shift = code_shift(level);
  const auto base = static_cast<std::uint32_t>(std::uint64_t{node_pos} << (kQuantBits - level));
  return base | (shift >= 0 ? code << shift : code);
}

/// The octree coordinate of q on one axis (q * edge / 2^kQuantBits: one double multiply,
/// exact integers before it, so host and device give the same float).
SIMLOD_HD float decode_axis(std::uint32_t q, float cube_edge) {
  constexpr double kUnit = 1.0 / static_cast<double>(std::uint64_t{1} << kQuantBits);
  return static_cast<float>(static_cast<double>(q) * kUnit * static_cast<double>(cube_edge));
}

/// The colour of point `slot` of a Quantized16 chunk.
SIMLOD_HD std::uint32_t* quantized_rgba(std::byte* chunk, std::uint32_t slot) {
  return reinterpret_cast<std::uint32_t*>(chunk) + slot;
}
SIMLOD_HD const std::uint32_t* quantized_rgba(const std::byte* chunk, std::uint32_t slot) {
  return reinterpret_cast<const std::uint32_t*>(chunk) + slot;
}

/// The codes of point `slot` of a Quantized16 chunk (three uint16).
SIMLOD_HD std::uint16_t* quantized_codes(std::byte* chunk, const PointLayout& l,
                                         std::uint32_t slot) {
  return reinterpret_cast<std::uint16_t*>(chunk + std::uint64_t{4} * l.capacity) +
         std::uint64_t{3} * slot;
}
SIMLOD_HD const std::uint16_t* quantized_codes(const std::byte* chunk, const PointLayout& l,
                                               std::uint32_t slot) {
  return reinterpret_cast<const std::uint16_t*>(chunk + std::uint64_t{4} * l.capacity) +
         std::uint64_t{3} * slot;
}

/// A leaf's sample as its consumers need it: the point (decoded) and its quantised position.
struct LeafSample {
  Point point;
  QuantPoint q;
};

/// The node a leaf sample is read from or written to: its level and integer position.
struct LeafPlace {
  std::uint32_t level, x, y, z;
};

/// Writes point `slot` of a leaf's chunk: `p` itself (Float32), or the codes of `q` (rounded to
/// the leaf, round_to_leaf) and p's colour (Quantized16).
SIMLOD_HD void store_point(std::byte* chunk, const PointLayout& l, std::uint32_t slot,
                           const Point& p, const QuantPoint& q, std::uint32_t level) {
  if (!l.quantized) {
    reinterpret_cast<Point*>(chunk)[slot] = p;
    return;
  }
  *quantized_rgba(chunk, slot) = p.rgba;
  std::uint16_t* code = quantized_codes(chunk, l, slot);
  code[0] = static_cast<std::uint16_t>(encode_axis(q.x, level));
  code[1] = static_cast<std::uint16_t>(encode_axis(q.y, level));
  code[2] = static_cast<std::uint16_t>(encode_axis(q.z, level));
}

/// The quantised position stored for point `slot` of a Quantized16 chunk of leaf `at`.
SIMLOD_HD QuantPoint quantized_q(const std::byte* chunk, const PointLayout& l, std::uint32_t slot,
                                 const LeafPlace& at) {
  const std::uint16_t* code = quantized_codes(chunk, l, slot);
  return {decode_axis_q(at.x, code[0], at.level), decode_axis_q(at.y, code[1], at.level),
          decode_axis_q(at.z, code[2], at.level)};
}

/// The point a quantised position and colour read back as.
SIMLOD_HD Point quantized_point(const QuantPoint& q, std::uint32_t rgba, float cube_edge) {
  return Point{decode_axis(q.x, cube_edge), decode_axis(q.y, cube_edge),
               decode_axis(q.z, cube_edge), rgba};
}

/// Point `slot` of a chunk of leaf `at`, with its quantised position (Float32: quantize() of the
/// stored float with `scale`; Quantized16: the stored one).
SIMLOD_HD LeafSample load_point(const std::byte* chunk, const PointLayout& l, std::uint32_t slot,
                                const LeafPlace& at, float scale, float cube_edge) {
  if (!l.quantized) {
    const Point p = reinterpret_cast<const Point*>(chunk)[slot];
    return {p, quantize(p, scale)};
  }
  const QuantPoint q = quantized_q(chunk, l, slot, at);
  return {quantized_point(q, *quantized_rgba(chunk, slot), cube_edge), q};
}

/// Copies point `from_slot` of a leaf's chunk laid out as `from_layout` to `to_slot` of one
/// laid out as `to_layout` (the same encoding, another capacity), bits as stored; the channel
/// record is the caller's.
SIMLOD_HD void copy_point(const std::byte* from, const PointLayout& from_layout,
                          std::uint32_t from_slot, std::byte* to, const PointLayout& to_layout,
                          std::uint32_t to_slot) {
  if (!from_layout.quantized) {
    reinterpret_cast<Point*>(to)[to_slot] = reinterpret_cast<const Point*>(from)[from_slot];
    return;
  }
  *quantized_rgba(to, to_slot) = *quantized_rgba(from, from_slot);
  const std::uint16_t* a = quantized_codes(from, from_layout, from_slot);
  std::uint16_t* b = quantized_codes(to, to_layout, to_slot);
  b[0] = a[0];
  b[1] = a[1];
  b[2] = a[2];
}

}  // namespace simlod::detail
