// simlod-ground's record edits: classes, and the height above ground as an extra-bytes field.
#include "common/ground_records.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "common/extra_bytes.hpp"
#include "simlod/error.hpp"

namespace simlod::examples {
namespace {

TEST(GroundRecords, NewClass) {
  EXPECT_EQ(new_class(true, true, 7, false), 7);   // noise keeps its class
  EXPECT_EQ(new_class(false, true, 6, true), 2);   // ground wins
  EXPECT_EQ(new_class(false, false, 2, true), 1);  // no longer ground
  EXPECT_EQ(new_class(false, false, 6, true), 6);  // kept with --keep-classes
  EXPECT_EQ(new_class(false, false, 6, false), 1);
}

TEST(GroundRecords, ClassFieldsOfBothFormatFamilies) {
  std::byte r[30] = {};
  r[15] = std::byte{0xE0};  // synthetic, key-point, withheld (formats 0-5)
  set_class(r, 1, 2);
  EXPECT_EQ(static_cast<unsigned>(r[15]), 0xE2u);
  EXPECT_EQ(get_class(r, 1), 2);
  EXPECT_EQ(get_class_flags(r, 1), 7);  // synthetic, key-point, withheld
  set_class(r, 6, 18);
  EXPECT_EQ(static_cast<unsigned>(r[16]), 18u);
  EXPECT_EQ(get_class(r, 6), 18);
  r[15] = std::byte{0x34};  // formats 6-10: withheld in the low nibble, channel above it
  EXPECT_EQ(get_class_flags(r, 6), 4);
}

TEST(GroundRecords, DescribedExtraBytes) {
  LasVlr v;
  add_extra_bytes_field(v, "a", kExtraDouble);
  add_extra_bytes_field(v, "b", 0);
  v.data[192 + 3] = std::byte{3};  // type 0: three bytes, size in the options byte
  EXPECT_EQ(described_extra_bytes(v), 11u);
  add_extra_bytes_field(v, "c", 12);  // a deprecated array type
  EXPECT_FALSE(described_extra_bytes(v).has_value());
}

TEST(GroundRecords, HeightsAppendedAndDescribed) {
  std::vector<std::byte> records(2 * 20);
  for (std::size_t i = 0; i < records.size(); ++i) records[i] = std::byte(i);
  LasMetadata m;
  std::size_t length = 0;
  const std::vector<float> h = {1.5f, -2.25f};
  const auto out = with_heights(records, 2, 20, 0, h, m, "x.las", length);
  ASSERT_EQ(length, 24u);
  ASSERT_EQ(out.size(), 48u);
  EXPECT_EQ(std::memcmp(out.data() + 24, records.data() + 20, 20), 0);
  float back = 0.0f;
  std::memcpy(&back, out.data() + 44, 4);
  EXPECT_EQ(back, -2.25f);
  ASSERT_EQ(m.vlrs.size(), 1u);
  EXPECT_EQ(m.vlrs[0].user(), "LASF_Spec");
  EXPECT_EQ(m.vlrs[0].record_id, 4);
  EXPECT_EQ(described_extra_bytes(m.vlrs[0]), 4u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(m.vlrs[0].data.data() + 4)), kHagName);
  // Two undescribed extra bytes: refused, naming the file.
  LasMetadata bare;
  std::vector<std::byte> longer(2 * 22);
  EXPECT_THROW((void)with_heights(longer, 2, 22, 0, h, bare, "y.las", length), InvalidInput);
}

TEST(GroundRecords, HeightsAboveTheDtm) {
  terrain::Raster r;
  r.width = 1;
  r.height = 1;
  r.x0 = 0.0;
  r.y0 = 1.0;
  r.values = {2.0f};
  const std::vector<Point> pts = {{0.5f, 0.5f, 5.0f, 0}, {9.0f, 9.0f, 5.0f, 0}};
  const auto h = heights_above(pts, r);
  EXPECT_EQ(h[0], 3.0f);
  EXPECT_EQ(h[1], -9999.0f);  // off the DTM: no data
}

}  // namespace
}  // namespace simlod::examples
