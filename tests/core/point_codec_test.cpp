// The point codec (include/simlod/detail/point_codec.hpp) against brute force: layouts,
// rounding to a leaf's step, codes that rebuild the rounded position at every depth, and the
// precision a point keeps.
#include "simlod/detail/point_codec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace simlod {
namespace {

using detail::kQuantBits;

TEST(PointCodec, ALayoutIsTheLargestThatFits) {
  for (const std::uint32_t cap : {8u, 500u, 1000u, 4096u}) {
    const detail::PointLayout f = detail::point_layout(cap, 4, false);
    EXPECT_FALSE(f.quantized);
    EXPECT_EQ(f.capacity, cap);
    EXPECT_EQ(f.records_offset, 16u * cap);
    for (const std::uint32_t record : {0u, 4u, 8u, 12u, 40u}) {
      const std::uint64_t bytes = std::uint64_t{cap} * (16 + record);
      const auto fits = [&](std::uint64_t n) {
        return (n * 10 + 15) / 16 * 16 + n * record <= bytes;
      };
      const detail::PointLayout q = detail::point_layout(cap, record, true);
      EXPECT_TRUE(q.quantized);
      EXPECT_TRUE(fits(q.capacity)) << cap << " " << record;
      EXPECT_FALSE(fits(q.capacity + 1)) << cap << " " << record;
      EXPECT_EQ(q.records_offset % 16, 0u);
      EXPECT_GE(q.records_offset, std::uint64_t{q.capacity} * 10);
      EXPECT_LE(q.records_offset + std::uint64_t{q.capacity} * record, bytes);
    }
  }
  EXPECT_EQ(detail::point_layout(1000, 0, true).capacity, 1600u);
}

TEST(PointCodec, RoundingGoesToTheNearestStepInsideTheLeaf) {
  std::mt19937_64 rng(5);
  for (std::uint32_t level = 0; level <= 24; ++level) {
    const std::int32_t shift =
        static_cast<std::int32_t>(kQuantBits) - 16 - static_cast<std::int32_t>(level);
    const std::uint64_t step = shift > 0 ? std::uint64_t{1} << shift : 1;
    const std::uint32_t span_bits = kQuantBits - level;
    for (int i = 0; i < 4000; ++i) {
      std::uint32_t q = static_cast<std::uint32_t>(rng()) & detail::kQuantMax;
      if (i % 4 == 1) q |= (1u << span_bits) - 1;                  // the leaf's last unit
      if (i % 4 == 2) q &= ~static_cast<std::uint32_t>(step - 1);  // on a step already
      const std::uint32_t r = detail::round_axis_to_leaf(q, level);
      ASSERT_EQ(r % step, 0u) << level << " " << q;
      ASSERT_EQ(r >> span_bits, q >> span_bits) << "left the leaf: " << level << " " << q;
      // Brute force: the nearest multiple of the step in the leaf (ties upward).
      const std::uint64_t leaf_lo = std::uint64_t{q >> span_bits} << span_bits;
      const std::uint64_t leaf_last = leaf_lo + (std::uint64_t{1} << span_bits) - step;
      std::uint64_t want = (std::uint64_t{q} - leaf_lo + step / 2) / step * step + leaf_lo;
      if (want > leaf_last) want = leaf_last;
      ASSERT_EQ(r, want) << level << " " << q;
      ASSERT_EQ(detail::round_axis_to_leaf(r, level), r) << "not idempotent";
      // Deeper levels (a split later) keep it.
      for (std::uint32_t deeper = level + 1; deeper <= 24; deeper += 3) {
        ASSERT_EQ(detail::round_axis_to_leaf(r, deeper), r) << level << " -> " << deeper;
      }
    }
  }
}

TEST(PointCodec, CodesRebuildTheRoundedPositionAtEveryDepth) {
  std::mt19937_64 rng(9);
  for (std::uint32_t level = 0; level <= 24; ++level) {
    for (int i = 0; i < 2000; ++i) {
      const std::uint32_t q = static_cast<std::uint32_t>(rng()) & detail::kQuantMax;
      const std::uint32_t r = detail::round_axis_to_leaf(q, level);
      for (std::uint32_t at = level; at <= 24; ++at) {  // where splits take it
        const std::uint32_t code = detail::encode_axis(r, at);
        ASSERT_LT(code, 1u << 16);
        const std::uint32_t pos = at == 0 ? 0u : r >> (kQuantBits - at);
        ASSERT_EQ(detail::decode_axis_q(pos, code, at), r) << level << " at " << at << " " << q;
      }
    }
  }
}

TEST(PointCodec, APointComesBackWithinHalfAStepOfItsLeaf) {
  const float edge = 2000.0f;
  const float scale = detail::quant_scale(edge);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> coord(0.0f, edge);
  for (std::uint32_t level = 0; level <= 20; ++level) {
    const double step = edge / std::ldexp(1.0, static_cast<int>(level) + 16);
    const double unit = edge / std::ldexp(1.0, 31);  // the tree's integer unit
    for (int i = 0; i < 2000; ++i) {
      const Point p{coord(rng), coord(rng), coord(rng), 0x11223344u};
      const detail::QuantPoint q = detail::round_to_leaf(detail::quantize(p, scale), level);
      const Point back = detail::quantized_point(q, p.rgba, edge);
      EXPECT_EQ(back.rgba, p.rgba);
      const float in[3] = {p.x, p.y, p.z};
      const float out[3] = {back.x, back.y, back.z};
      const std::uint32_t qa[3] = {q.x, q.y, q.z};
      for (int a = 0; a < 3; ++a) {
        const std::uint32_t span_bits = kQuantBits - level;
        const bool top_face =
            level <= 15 &&
            (qa[a] + (std::uint64_t{1} << (15 - level))) % (std::uint64_t{1} << span_bits) == 0;
        // Plus float rounding: the quantising multiply, its float scale and the decoded float
        // (each half a unit in the last place, 2^-24 of the value).
        const double bound = (top_face ? step : step / 2) + 2 * unit + std::abs(in[a]) * 2e-7;
        ASSERT_LE(std::abs(double{out[a]} - double{in[a]}), bound) << level << " axis " << a;
        ASSERT_GE(out[a], 0.0f);
        ASSERT_LE(out[a], edge);
      }
    }
  }
}

TEST(PointCodec, AChunkKeepsColoursCodesAndPlaces) {
  const float edge = 64.0f;
  const float scale = detail::quant_scale(edge);
  const detail::PointLayout q = detail::point_layout(100, 4, true);
  const detail::PointLayout f = detail::point_layout(100, 4, false);
  std::vector<std::byte> chunk(100 * 20);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> coord(0.0f, edge);
  for (std::uint32_t level : {0u, 3u, 15u, 16u, 22u}) {
    std::vector<detail::LeafSample> want;
    std::vector<detail::LeafPlace> places;
    for (std::uint32_t slot = 0; slot < q.capacity; ++slot) {
      const Point p{coord(rng), coord(rng), coord(rng), static_cast<std::uint32_t>(rng())};
      const detail::QuantPoint r = detail::round_to_leaf(detail::quantize(p, scale), level);
      const std::uint32_t sh = kQuantBits - level;
      const detail::LeafPlace at{level, level == 0 ? 0 : r.x >> sh, level == 0 ? 0 : r.y >> sh,
                                 level == 0 ? 0 : r.z >> sh};
      detail::store_point(chunk.data(), q, slot, p, r, level);
      want.push_back({detail::quantized_point(r, p.rgba, edge), r});
      places.push_back(at);
    }
    for (std::uint32_t slot = 0; slot < q.capacity; ++slot) {
      const detail::LeafSample s =
          detail::load_point(chunk.data(), q, slot, places[slot], scale, edge);
      ASSERT_EQ(s.point, want[slot].point) << level << " " << slot;
      ASSERT_EQ(s.q.x, want[slot].q.x);
      ASSERT_EQ(s.q.y, want[slot].q.y);
      ASSERT_EQ(s.q.z, want[slot].q.z);
    }
  }
  // Float32 keeps the point itself and quantises it when read.
  const Point p{1.5f, 2.25f, 63.0f, 7u};
  detail::store_point(chunk.data(), f, 3, p, detail::QuantPoint{}, 2);
  const detail::LeafSample s = detail::load_point(chunk.data(), f, 3, {2, 0, 0, 3}, scale, edge);
  EXPECT_EQ(s.point, p);
  EXPECT_EQ(s.q.z, detail::quantize(p, scale).z);
}

}  // namespace
}  // namespace simlod
