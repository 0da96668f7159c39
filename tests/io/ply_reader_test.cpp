#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/ply_layout.hpp"
#include "io/ply_test_files.hpp"
#include "io/temp_dir.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

using test::ply_file;
using test::PlyColumn;
using test::TempDir;
using test::write_bytes;

std::vector<Point> read_all(const std::filesystem::path& path, ReaderOptions options = {},
                            std::size_t batch = 1000) {
  auto reader = open_reader(path, options);
  std::vector<Point> all;
  std::vector<Point> buffer(batch);
  while (const std::size_t n = reader->read(buffer)) {
    all.insert(all.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
  }
  EXPECT_EQ(all.size(), reader->info().point_count);
  return all;
}

const std::vector<PlyColumn> kXyzRgb = {{"float", "x"},   {"float", "y"},     {"float", "z"},
                                        {"uchar", "red"}, {"uchar", "green"}, {"uchar", "blue"}};
const std::vector<std::vector<double>> kRows = {
    {1.5, -2.25, 3.0, 255, 0, 7}, {0.1f, 0.2f, 0.3f, 1, 2, 3}, {-4.0, 5.0, -6.5, 100, 150, 200}};
const std::vector<Point> kExpected = {{1.5f, -2.25f, 3.0f, pack_rgba(255, 0, 7)},
                                      {0.1f, 0.2f, 0.3f, pack_rgba(1, 2, 3)},
                                      {-4.0f, 5.0f, -6.5f, pack_rgba(100, 150, 200)}};

class PlyFormats : public ::testing::TestWithParam<bool> {};  // true: binary

TEST_P(PlyFormats, ReadsCoordinatesAndColoursExactly) {
  TempDir dir;
  write_bytes(dir / "a.ply", ply_file(GetParam(), kXyzRgb, kRows, "written by a test"));
  EXPECT_EQ(read_all(dir / "a.ply"), kExpected);
}

TEST_P(PlyFormats, InfoHasComputedBoundsAndZeroOrigin) {
  TempDir dir;
  write_bytes(dir / "a.ply", ply_file(GetParam(), kXyzRgb, kRows, "written by a test"));
  const FileInfo info = read_info(dir / "a.ply");
  EXPECT_EQ(info.format, FileFormat::Ply);
  EXPECT_EQ(info.version, GetParam() ? "binary_little_endian 1.0" : "ascii 1.0");
  EXPECT_EQ(info.point_format, -1);
  EXPECT_EQ(info.record_length, GetParam() ? 15u : 0u);
  EXPECT_EQ(info.point_count, 3u);
  EXPECT_TRUE(info.has_color);
  EXPECT_FALSE(info.color_16bit);
  EXPECT_EQ(info.generator, "written by a test");
  EXPECT_EQ(info.bounds.min, (std::array<double, 3>{-4.0, -2.25, -6.5}));
  EXPECT_EQ(info.bounds.max, (std::array<double, 3>{1.5, 5.0, 3.0}));
  EXPECT_EQ(info.origin, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(open_reader(dir / "a.ply")->info().bounds, info.bounds);
}

TEST_P(PlyFormats, FindsXyzAmongOtherPropertiesOfEveryType) {
  TempDir dir;
  const std::vector<PlyColumn> columns = {
      {"int8", "a"},      {"double", "z"},   {"uchar", "b"},   {"short", "c"},    {"float64", "y"},
      {"ushort", "d"},    {"int", "e"},      {"uint32", "f"},  {"float32", "nx"}, {"double", "x"},
      {"char", "g"},      {"uint8", "blue"}, {"uint16", "h"},  {"uint", "i"},     {"int16", "j"},
      {"uchar", "green"}, {"int32", "k"},    {"uchar", "red"}, {"float", "l"}};
  const std::vector<std::vector<double>> rows = {
      {-5, 123456.789, 7, -300, 6543210.5, 60000, -70000, 4000000000, 0.5, 512345.125, 1, 30, 2, 3,
       4, 20, 5, 10, 6.5},
      {0, 1.0, 0, 0, 2.0, 0, 0, 0, 0, 3.0, 0, 255, 0, 0, 0, 254, 0, 253, 0}};
  write_bytes(dir / "a.ply", ply_file(GetParam(), columns, rows));
  ReaderOptions options;
  options.origin = std::array<double, 3>{512000.0, 6543000.0, 123000.0};
  const auto points = read_all(dir / "a.ply", options);
  ASSERT_EQ(points.size(), 2u);
  // Doubles minus the origin are exact here; the float result is float(double - origin).
  EXPECT_EQ(points[0].x, 345.125f);
  EXPECT_EQ(points[0].y, 210.5f);
  EXPECT_EQ(points[0].z, static_cast<float>(123456.789 - 123000.0));
  EXPECT_EQ(points[0].rgba, pack_rgba(10, 20, 30));
  EXPECT_EQ(points[1].x, static_cast<float>(3.0 - 512000.0));
  EXPECT_EQ(points[1].rgba, pack_rgba(253, 254, 255));
}

TEST_P(PlyFormats, NoColourGivesTheDefaultColour) {
  TempDir dir;
  const std::vector<PlyColumn> columns = {{"float", "x"},
                                          {"float", "y"},
                                          {"float", "z"},
                                          {"uchar", "red"}};  // red alone is not a colour
  write_bytes(dir / "a.ply", ply_file(GetParam(), columns, {{1, 2, 3, 9}}));
  EXPECT_FALSE(read_info(dir / "a.ply").has_color);
  const auto points = read_all(dir / "a.ply");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0], (Point{1, 2, 3, detail::kPlyDefaultColor}));
}

TEST_P(PlyFormats, SixteenBitFloatAndAlphaColours) {
  TempDir dir;
  const std::vector<PlyColumn> c16 = {{"float", "x"},    {"float", "y"},      {"float", "z"},
                                      {"ushort", "red"}, {"ushort", "green"}, {"ushort", "blue"},
                                      {"uchar", "alpha"}};
  write_bytes(dir / "a.ply", ply_file(GetParam(), c16, {{0, 0, 0, 65535, 256, 255, 17}}));
  EXPECT_TRUE(read_info(dir / "a.ply").color_16bit);
  EXPECT_EQ(read_all(dir / "a.ply")[0].rgba, pack_rgba(255, 1, 0, 17));

  const std::vector<PlyColumn> cf = {{"float", "x"},
                                     {"float", "y"},
                                     {"float", "z"},
                                     {"float", "diffuse_red"},
                                     {"float", "diffuse_green"},
                                     {"double", "diffuse_blue"}};
  write_bytes(dir / "b.ply", ply_file(GetParam(), cf, {{0, 0, 0, 1.0, 0.5, 2.0}}));
  EXPECT_EQ(read_all(dir / "b.ply")[0].rgba, pack_rgba(255, 128, 255, 255));
}

TEST_P(PlyFormats, SkipsElementsBeforeAndAfterTheVertices) {
  TempDir dir;
  const bool binary = GetParam();
  std::string s = "ply\r\n";  // CRLF header lines are accepted
  s += binary ? "format binary_little_endian 1.0\r\n" : "format ascii 1.0\r\n";
  s += "obj_info scanned on a Tuesday\r\n";
  s += test::ply_element("camera", 2, {{"float", "view_x"}, {"uchar", "id"}});
  s += test::ply_element("vertex", 2, {{"float", "x"}, {"float", "y"}, {"float", "z"}});
  s += "element face 1\r\nproperty list uchar int vertex_indices\r\nend_header\r\n";
  if (binary) {
    for (double id : {1.0, 2.0}) {
      test::append_ply_binary(s, "float", id + 0.5);
      test::append_ply_binary(s, "uchar", id);
    }
    for (double v : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}) test::append_ply_binary(s, "float", v);
    s += std::string("\x03\0\0\0\0\1\0\0\0\2\0\0\0", 13);
  } else {
    s += "1.5 1\r\n\r\n2.5 2\r\n1 2 3\r\n4 5 6\r\n3 0 1 2\r\n";
  }
  write_bytes(dir / "a.ply", s);
  const auto points = read_all(dir / "a.ply");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1], (Point{4, 5, 6, detail::kPlyDefaultColor}));
}

TEST_P(PlyFormats, ManyVerticesInOddBatches) {
  TempDir dir;
  std::vector<std::vector<double>> rows;
  std::vector<Point> expected;
  for (int i = 0; i < 150'000; ++i) {
    const double x = i * 0.25;
    const double y = (i % 977) * 0.5;
    const double z = -(i % 13);
    rows.push_back({x, y, z, double(i % 256), double(i / 256 % 256), 3});
    expected.push_back({float(x), float(y), float(z), pack_rgba(i % 256, i / 256 % 256, 3)});
  }
  write_bytes(dir / "a.ply", ply_file(GetParam(), kXyzRgb, rows));
  EXPECT_EQ(read_all(dir / "a.ply", {}, 70'001), expected);
}

INSTANTIATE_TEST_SUITE_P(Ply, PlyFormats, ::testing::Values(true, false),
                         [](const auto& p) { return p.param ? "Binary" : "Ascii"; });

}  // namespace
}  // namespace simlod
