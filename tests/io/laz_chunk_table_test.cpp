// The chunk-table decoder against tables LASzip wrote (sizes that add up to the point data)
// and against bytes no encoder writes.
#include "io/laz_chunk_table.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <vector>

#include "test_data.hpp"

namespace simlod::test {
namespace {

struct RawTable {
  std::vector<std::byte> coded;  ///< everything behind the table's 8-byte head
  std::uint32_t chunks = 0;
  std::uint64_t data_bytes = 0;  ///< from the chunk table pointer's end to the table
};

RawTable raw_table(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> b((std::istreambuf_iterator<char>(in)), {});
  std::uint32_t offset = 0, chunks = 0;
  std::int64_t table = 0;
  std::memcpy(&offset, b.data() + 96, 4);
  std::memcpy(&table, b.data() + offset, 8);
  std::memcpy(&chunks, b.data() + table + 4, 4);
  RawTable t;
  t.chunks = chunks;
  t.data_bytes = static_cast<std::uint64_t>(table) - offset - 8;
  const auto* at = reinterpret_cast<const std::byte*>(b.data() + table + 8);
  t.coded.assign(at, reinterpret_cast<const std::byte*>(b.data() + b.size()));
  return t;
}

TEST(LazChunkTable, DecodesTablesLaszipWrote) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  struct Case {
    const char* file;
    std::uint32_t chunks;
    std::uint32_t first_bytes;
  };
  // LASzip 3.4.3 (7 chunks), 2.2.0 (1 chunk), 3.5.0 (LAS 1.4, pointwise and layered).
  for (const Case& c : {Case{"lion_takanawa.laz", 7, 323'338}, Case{"lion_node_r.laz", 1, 38'138},
                        Case{"formats/f0.laz", 2, 1'534}, Case{"formats/f6.laz", 2, 229'639}}) {
    const auto path = data / c.file;
    if (!std::filesystem::exists(path)) continue;  // machines that carry part of the data
    const RawTable t = raw_table(path);
    ASSERT_EQ(t.chunks, c.chunks) << c.file;
    const auto entries = detail::decode_laz_chunk_table(t.coded, t.chunks, false);
    ASSERT_TRUE(entries) << c.file;
    ASSERT_EQ(entries->bytes.size(), c.chunks);
    EXPECT_EQ(entries->bytes[0], c.first_bytes) << c.file;
    EXPECT_EQ(std::accumulate(entries->bytes.begin(), entries->bytes.end(), std::uint64_t{0}),
              t.data_bytes)
        << c.file << ": the chunks end where the table starts";
  }
}

TEST(LazChunkTable, RefusesBytesNoEncoderWrites) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  RawTable t = raw_table(data / "lion_takanawa.laz");
  // Too few bytes for the entries.
  EXPECT_FALSE(detail::decode_laz_chunk_table(std::span(t.coded).first(3), t.chunks, false));
  // A decoder state no encoder leaves: its first four bytes all ones.
  for (int i = 0; i < 4; ++i) t.coded[static_cast<std::size_t>(i)] = std::byte{0xFF};
  EXPECT_FALSE(detail::decode_laz_chunk_table(t.coded, t.chunks, false));
  const std::byte ones[4] = {std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}};
  const std::byte fine[4] = {std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFE}};
  EXPECT_TRUE(detail::arithmetic_start_is_damaged(ones));
  EXPECT_FALSE(detail::arithmetic_start_is_damaged(fine));
  // No chunks: nothing to decode.
  const auto none = detail::decode_laz_chunk_table({}, 0, false);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->bytes.empty());
}

}  // namespace
}  // namespace simlod::test
