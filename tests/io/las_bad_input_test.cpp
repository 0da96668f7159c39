// Corrupted LAS files: each defect gets a precise error naming the file and the byte offset or
// point index. The files are valid small LAS files from the writer with bytes patched.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>

#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"

namespace simlod::test {
namespace {

constexpr std::size_t kPoints = 100;

class LasBadInput : public ::testing::Test {
 protected:
  /// A valid LAS 1.2 file (point format 2, 26-byte records, data at byte 227).
  std::filesystem::path valid_file(const std::string& name) {
    const auto path = dir_ / name;
    write_points(path, synthetic_points(kPoints));
    return path;
  }
  /// Expects both open_reader and read_info to throw E mentioning every part and the path.
  template <class E>
  void expect_open_error(const std::filesystem::path& path, std::vector<std::string> parts) {
    parts.push_back(path.string());
    expect_error<E>([&] { (void)open_reader(path); }, parts);
    expect_error<E>([&] { (void)read_info(path); }, parts);
  }
  TempDir dir_;
};

TEST_F(LasBadInput, ValidFileReads) {
  const auto path = valid_file("valid.las");
  EXPECT_EQ(read_all(path).size(), kPoints);
}

TEST_F(LasBadInput, BadSignature) {
  const auto path = valid_file("magic.las");
  patch_file(path, 0, std::array<char, 4>{'L', 'A', 'S', 'X'});
  expect_open_error<InvalidInput>(path, {"not a LAS", "byte offset 0", "\"LASX\"", "\"LASF\""});
}

TEST_F(LasBadInput, TruncatedHeader) {
  const auto path = valid_file("short.las");
  std::filesystem::resize_file(path, 100);
  expect_open_error<InvalidInput>(path, {"truncated", "LAS header", "227 bytes", "100 bytes"});
}

TEST_F(LasBadInput, HeaderSizeTooSmallForVersion) {
  const auto path = valid_file("version.las");
  patch_file(path, 25, std::uint8_t{4});  // claims LAS 1.4 with a 227-byte header
  expect_open_error<InvalidInput>(path, {"header size 227", "byte offset 94", "LAS 1.4", "375"});
}

TEST_F(LasBadInput, UnsupportedVersion) {
  const auto path = valid_file("v2.las");
  patch_file(path, 24, std::uint8_t{2});
  expect_open_error<InvalidInput>(path, {"LAS version 2.2", "byte offset 24"});
}

TEST_F(LasBadInput, UnknownPointFormat) {
  const auto path = valid_file("format.las");
  patch_file(path, 104, std::uint8_t{11});
  expect_open_error<InvalidInput>(path, {"point data format 11", "byte offset 104", "0 to 10"});
}

TEST_F(LasBadInput, RecordLengthTooSmall) {
  const auto path = valid_file("record.las");
  patch_file(path, 105, std::uint16_t{20});
  expect_open_error<InvalidInput>(path,
                                  {"record length 20", "byte offset 105", "26 bytes", "format 2"});
}

TEST_F(LasBadInput, LongerRecordsWithExtraBytesAreSkipped) {
  // Records longer than the format minimum carry extra bytes. Declaring 52-byte records over
  // the writer's 26-byte ones makes record k the writer's record 2k.
  const auto path = valid_file("extra.las");
  patch_file(path, 105, std::uint16_t{52});
  patch_file(path, 107, std::uint32_t{kPoints / 2});
  const auto all = read_all(valid_file("plain.las"));
  const auto strided = read_all(path);
  ASSERT_EQ(strided.size(), kPoints / 2);
  for (std::size_t i = 0; i < strided.size(); ++i) EXPECT_EQ(strided[i], all[2 * i]);
}

TEST_F(LasBadInput, OffsetToPointDataBeyondFile) {
  const auto path = valid_file("offset.las");
  const auto size = std::filesystem::file_size(path);
  patch_file(path, 96, static_cast<std::uint32_t>(size + 1000));
  expect_open_error<InvalidInput>(
      path, {fmt::format("offset to point data {}", size + 1000), "byte offset 96",
             "beyond the end", fmt::format("({} bytes)", size)});
}

TEST_F(LasBadInput, OffsetToPointDataInsideHeader) {
  const auto path = valid_file("inside.las");
  patch_file(path, 96, std::uint32_t{100});
  expect_open_error<InvalidInput>(path, {"offset to point data 100", "inside the 227-byte header"});
}

TEST_F(LasBadInput, PointCountLargerThanFile) {
  const auto path = valid_file("count.las");
  patch_file(path, 107, std::uint32_t{1000});
  expect_open_error<InvalidInput>(
      path, {"truncated", "declares 1000 points", "byte offset 107", "only 100 complete"});
}

TEST_F(LasBadInput, TruncatedPointData) {
  const auto path = valid_file("cut.las");
  std::filesystem::resize_file(path, 227 + 26 * 60 + 13);
  expect_open_error<InvalidInput>(path, {"truncated", "declares 100 points", "only 60 complete"});
}

TEST_F(LasBadInput, ZeroPointsIsAValidEmptyFile) {
  for (const char* name : {"empty.las", "empty.laz"}) {
    if (std::string(name) == "empty.laz" && !laz_supported()) continue;
    const auto path = dir_ / name;
    create_writer(path)->close();
    EXPECT_EQ(read_info(path).point_count, 0u) << name;
    std::vector<Point> batch(10);
    EXPECT_EQ(open_reader(path)->read(batch), 0u) << name;
  }
}

TEST_F(LasBadInput, ZeroScale) {
  const auto path = valid_file("scale.las");
  patch_file(path, 139, 0.0);
  expect_open_error<InvalidInput>(path, {"y scale factor 0", "byte offset 139"});
}

TEST_F(LasBadInput, MissingFileIsIoError) {
  expect_open_error<IoError>(dir_ / "missing.las", {"missing.las", "cannot open"});
}

TEST_F(LasBadInput, DirectoryIsIoError) {
  std::filesystem::create_directory(dir_ / "folder.las");
  expect_open_error<IoError>(dir_ / "folder.las", {"folder.las", "directory"});
}

TEST_F(LasBadInput, NonFiniteReaderOriginIsRejected) {
  const auto path = valid_file("origin.las");
  ReaderOptions options;
  options.origin = std::array<double, 3>{0.0, std::nan(""), 0.0};
  expect_error<InvalidInput>([&] { (void)open_reader(path, options); }, {"origin", "finite"});
}

}  // namespace
}  // namespace simlod::test
