// LAZ files whose LASzip metadata lies, made from the good shared files by changing the bytes
// a damaged or hostile file would: every one is refused with InvalidInput naming the field
// before LASzip sees it (LASzip trusts these fields and crashed or hung on each of them).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "io/file.hpp"
#include "io/las_chunks.hpp"
#include "io/las_header.hpp"
#include "las_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

#define SIMLOD_REQUIRE_LAZ() \
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support (LASzip not found)"

/// Skips unless the shared data holds `file` (machines that carry only part of it).
#define SIMLOD_REQUIRE_FILE(file)            \
  if (!std::filesystem::exists(file))        \
  GTEST_SKIP() << (file)                     \
               << " is not in this copy of " \
                  "the shared test data"

/// A copy of `source` in `dir` with the little-endian `value` written at byte `offset`.
template <class T>
std::filesystem::path patched(const TempDir& dir, const std::filesystem::path& source,
                              std::uint64_t offset, T value) {
  std::string name = "patched-";
  name += source.filename().string();
  const auto out = dir / name;
  std::filesystem::copy_file(source, out, std::filesystem::copy_options::overwrite_existing);
  std::fstream f(out, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // the test machines are little-endian, as LAS is
  f.write(bytes, sizeof(T));
  return out;
}

detail::LaszipVlr laszip_vlr(const std::filesystem::path& path) {
  const detail::InputFile file(path);
  const auto vlr = detail::find_laszip_vlr(file, detail::read_las_header(file));
  if (!vlr) throw std::runtime_error("no LASzip VLR in " + path.string());
  return *vlr;
}

std::uint64_t chunk_table_offset(const std::filesystem::path& path) {
  const detail::InputFile file(path);
  const detail::LasHeader header = detail::read_las_header(file);
  std::int64_t table = 0;
  std::ifstream in(path, std::ios::binary);
  in.seekg(header.offset_to_point_data);
  in.read(reinterpret_cast<char*>(&table), sizeof(table));
  return static_cast<std::uint64_t>(table);
}

/// `call` throws InvalidInput containing every `text`; `name` says which call it was.
void expect_invalid(const std::function<void()>& call, const std::string& name,
                    std::initializer_list<std::string> texts) {
  try {
    call();
    ADD_FAILURE() << "expected InvalidInput from " << name;
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    for (const std::string& t : texts) EXPECT_NE(what.find(t), std::string::npos) << what;
  }
}

/// open_reader and read_info both refuse `path` with InvalidInput containing every `text`.
void expect_refused(const std::filesystem::path& path, std::initializer_list<std::string> texts) {
  expect_invalid([&] { (void)open_reader(path); }, "open_reader", texts);
  expect_invalid([&] { (void)read_info(path); }, "read_info", texts);
}

/// Reading every point of `path` fails with InvalidInput containing every `text`.
void expect_read_refused(const std::filesystem::path& path,
                         std::initializer_list<std::string> texts) {
  auto read = [&] {
    auto reader = open_reader(path, {.origin = std::nullopt, .threads = 2});
    std::vector<Point> batch(100'000);
    while (reader->read(batch) != 0) {
    }
  };
  expect_invalid(read, "reading " + path.string(), texts);
}

TEST(LaszipMetadata, LayeredPointsWithAPointwiseCompressor) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto f6 = data / "formats" / "f6.laz";
  SIMLOD_REQUIRE_FILE(f6);
  const detail::LaszipVlr vlr = laszip_vlr(f6);
  ASSERT_EQ(vlr.compressor, 3);
  for (const std::uint16_t compressor : {1, 2}) {
    expect_refused(patched(dir, f6, vlr.offset, compressor),
                   {"compressor " + std::to_string(compressor), "point format 6",
                    "byte offset " + std::to_string(vlr.offset)});
  }
}

TEST(LaszipMetadata, ItemsThatDoNotFitThePointFormat) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto lion = data / "lion_takanawa.laz";
  const detail::LaszipVlr vlr = laszip_vlr(lion);
  ASSERT_EQ(vlr.items.size(), 2u);  // POINT10, RGB12
  // RGB12 claims 8 bytes; then a POINT14 where POINT10 belongs; then an unknown version.
  expect_refused(patched(dir, lion, vlr.offset + 34 + 6 + 2, std::uint16_t{8}), {"item 1"});
  expect_refused(patched(dir, lion, vlr.offset + 34, std::uint16_t{10}), {"item 0"});
  expect_refused(patched(dir, lion, vlr.offset + 34 + 4, std::uint16_t{9}), {"unknown version 9"});
  expect_refused(patched(dir, lion, vlr.offset + 2, std::uint16_t{1}), {"coder 1"});
}

TEST(LaszipMetadata, HugeChunkCount) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto lion = data / "lion_takanawa.laz";
  const std::uint64_t table = chunk_table_offset(lion);
  expect_refused(patched(dir, lion, table + 4, std::uint32_t{3'728'948'150u}),
                 {"3728948150 chunks", "byte offset " + std::to_string(table)});
  // No chunks for 341,989 points; chunks of 0 points (LASzip's seek looped forever on both).
  expect_refused(patched(dir, lion, table + 4, std::uint32_t{0}), {"lists 0 chunks"});
  expect_refused(patched(dir, lion, laszip_vlr(lion).offset + 12, std::uint32_t{0}),
                 {"chunk size 0"});
}

TEST(LaszipMetadata, CountTheChunksCannotHold) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  SIMLOD_REQUIRE_FILE(data / "formats" / "f6.laz");
  // LAS 1.2: 7 chunks of 50,000 hold at most 350,000 points.
  expect_refused(patched(dir, data / "lion_takanawa.laz", 107, std::uint32_t{350'001}),
                 {"declares 350001 points"});
  // LAS 1.4: the 64-bit count at byte 247 set to 2^64 - 1.
  expect_refused(
      patched(dir, data / "formats" / "f6.laz", 247, std::numeric_limits<std::uint64_t>::max()),
      {"18446744073709551615"});
}

TEST(LaszipMetadata, ACountOffByAFewPoints) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  // Within what the chunks can hold, so only the decoder's end tells: a point more decodes
  // bytes of the chunk table into an invented point (one had z = 35,467 in a file whose z
  // maximum is 2.2), a point less leaves a real point behind.
  const auto lion = data / "lion_takanawa.laz";  // 341,989 points, 7 chunks
  expect_read_refused(patched(dir, lion, 107, std::uint32_t{341'990}),
                      {"declares 341990 points (byte offset 107)", "ran past",
                       "refused rather than inventing points"});
  expect_read_refused(patched(dir, lion, 107, std::uint32_t{341'991}), {"ran past"});
  expect_read_refused(patched(dir, lion, 107, std::uint32_t{341'988}),
                      {"stopped short of", "dropping points"});
  // One chunk, written by LASzip 2.2: read_info's colour sample decodes every point.
  const auto node = patched(dir, data / "lion_node_r.laz", 107, std::uint32_t{5'203});
  expect_refused(node, {"declares 5203 points", "ran past"});
  // LAS 1.4 layered chunks store their point count: their sum must be the header's.
  WriterOptions format7;
  format7.las_point_format = 7;
  write_points(dir / "f7.laz", read_all(data / "lion_node_r.las"), format7);
  expect_refused(patched(dir, dir / "f7.laz", 247, std::uint64_t{5'203}),
                 {"hold 5202 points", "declares 5203 points (byte offset 247)"});
  // The files as written read completely (the check holds for LASzip 2.2, 3.4 and simlod's
  // own writer).
  EXPECT_EQ(read_all(lion).size(), 341'989u);
  EXPECT_EQ(read_all(dir / "f7.laz").size(), 5'202u);
}

TEST(LaszipMetadata, LayeredChunksThatDoNotAddUp) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto f9 = data / "formats" / "f9.laz";  // layered, 2 chunks of 50,000
  SIMLOD_REQUIRE_FILE(f9);
  const detail::InputFile file(f9);
  const detail::LasHeader header = detail::read_las_header(file);
  const std::uint64_t chunk0 = header.offset_to_point_data + 8;  // behind the table pointer
  const std::uint64_t count_at = chunk0 + header.record_length;  // behind the raw first point
  // A layer of 3.3 GB: LASzip allocated it before reading (a fuzzer's find).
  expect_refused(patched(dir, f9, count_at + 4, std::uint32_t{3'300'000'000u}),
                 {"LAZ chunk 0 (byte offset", "declares layers of"});
  // A first chunk that is not full: every later point would be decoded from the wrong place.
  expect_refused(patched(dir, f9, count_at, std::uint32_t{49'999}), {"holds 49999 points"});
  // A layer one byte shorter than written: the chunk no longer matches its table entry.
  std::array<std::byte, 4> z_size{};
  file.read_exact(count_at + 8, z_size, "Z layer size");  // POINT14's second layer
  std::uint32_t z_bytes = 0;
  std::memcpy(&z_bytes, z_size.data(), 4);
  expect_refused(patched(dir, f9, count_at + 8, std::uint32_t{z_bytes - 1}),
                 {"LAZ chunk 0 (byte offset", "but the chunk table says"});
  // The first layer's decoder starting in the state no encoder leaves. Format 9 is POINT14
  // (9 layers) and WAVEPACKET14 (1): the layers start behind 10 sizes.
  const std::uint64_t first_layer = count_at + 4 + 10 * 4;
  expect_refused(patched(dir, f9, first_layer, std::uint32_t{0xFFFFFFFFu}),
                 {"layer 0 of LAZ chunk 0", "four bytes of all ones"});
}

TEST(LaszipMetadata, ChunkTableDecodedBeforeLaszip) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto lion = data / "lion_takanawa.laz";  // 7 chunks; the first holds 323,338 bytes
  const std::uint64_t table = chunk_table_offset(lion);
  // Coded entries that start with four bytes of all ones: LASzip's decoder read out of bounds
  // (a fuzzer's find, tests/fuzz/corpus/header/chunk-table-all-ones).
  expect_refused(patched(dir, lion, table + 8, std::uint32_t{0xFFFFFFFFu}),
                 {"LAZ chunk table (byte offset 2165566) cannot be decoded"});
  // The same state at the start of chunk 1's compressed data (behind its raw first point).
  const detail::InputFile file(lion);
  const detail::LasHeader header = detail::read_las_header(file);
  const std::uint64_t chunk1 = header.offset_to_point_data + 8 + 323'338;
  expect_refused(patched(dir, lion, chunk1 + header.record_length, std::uint32_t{0xFFFFFFFFu}),
                 {"LAZ chunk 1 (byte offset", "four bytes of all ones"});
  // One more chunk listed: the coder's padding decodes to an eighth chunk past the table.
  expect_refused(patched(dir, lion, table + 4, std::uint32_t{8}),
                 {"lists 8 chunks ending at byte offset 2431319", "the table"});
}

TEST(LaszipMetadata, VlrListsThatDoNotFit) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  // A VLR count of 3,267,543,746 made LASzip allocate 209 GB for the records (a fuzzer's find).
  expect_refused(patched(dir, data / "lion_takanawa.laz", 100, std::uint32_t{3'267'543'746u}),
                 {"3267543746 variable length records"});
  // LAS 1.4: 2^32 - 1 extended VLRs, then one whose length runs past the end of the file.
  const auto f6 = data / "formats" / "f6.laz";
  SIMLOD_REQUIRE_FILE(f6);
  expect_refused(patched(dir, f6, 243, std::uint32_t{0xFFFFFFFFu}),
                 {"4294967295 extended variable length records"});
}

TEST(LaszipMetadata, MissingOrShortLaszipVlr) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto lion = data / "lion_takanawa.laz";
  const std::uint64_t vlr_header = laszip_vlr(lion).offset - 54;
  // Another user id: compressed points and nothing to decode them with.
  expect_refused(patched(dir, lion, vlr_header + 2, std::uint8_t{'X'}), {"no LASzip VLR"});
  // A LASzip VLR of 10 bytes, too short for its fixed fields.
  expect_refused(patched(dir, lion, vlr_header + 20, std::uint16_t{10}), {"compressor 0"});
}

TEST(LaszipMetadata, ExtendedVlrPastTheEnd) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  const auto f6 = data / "formats" / "f6.laz";
  SIMLOD_REQUIRE_FILE(f6);
  // One extended VLR whose header sits in the last 60 bytes, declaring 2^40 bytes.
  const std::uint64_t size = std::filesystem::file_size(f6);
  auto path = patched(dir, f6, 235, std::uint64_t{size - 60});
  std::filesystem::rename(path, dir / "evlr.laz");
  path = patched(dir, dir / "evlr.laz", 243, std::uint32_t{1});
  std::filesystem::rename(path, dir / "evlr.laz");
  path = patched(dir, dir / "evlr.laz", size - 60 + 20, std::uint64_t{1} << 40);
  expect_refused(path, {"extended variable length record 0", "1099511627776 bytes"});
}

TEST(LaszipMetadata, GoodFilesStillOpen) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  SIMLOD_REQUIRE_FILE(data / "formats" / "f10.laz");
  for (const char* name : {"f0.laz", "f1.laz", "f2.laz", "f3.laz", "f4.laz", "f5.laz", "f6.laz",
                           "f7.laz", "f8.laz", "f9.laz", "f10.laz"}) {
    const auto path = data / "formats" / name;
    EXPECT_EQ(read_info(path).point_count, 100'000u) << path;
  }
  EXPECT_EQ(read_info(data / "lion_node_r.laz").point_count, 5'202u);
}

}  // namespace
}  // namespace simlod::test
