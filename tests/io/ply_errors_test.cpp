// Bad PLY input: every case is InvalidInput naming the file and what/where is wrong.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "io/ply_test_files.hpp"
#include "io/temp_dir.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

using test::ply_file;
using test::PlyColumn;
using test::TempDir;
using test::write_bytes;

const std::vector<PlyColumn> kXyz = {{"float", "x"}, {"float", "y"}, {"float", "z"}};

// Opens (and fully reads) `bytes` as a PLY file; returns the InvalidInput message.
std::string error_of(std::string_view bytes) {
  TempDir dir;
  const auto path = dir / "bad.ply";
  write_bytes(path, bytes);
  try {
    auto reader = open_reader(path);
    std::vector<Point> out(1000);
    while (reader->read(out) > 0) {
    }
  } catch (const InvalidInput& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bad.ply"), std::string::npos) << "message does not name the file: " << m;
    return m;
  }
  ADD_FAILURE() << "expected InvalidInput";
  return {};
}

#define EXPECT_HAS(message, part)                                                     \
  do {                                                                                \
    const std::string m_ = (message);                                                 \
    EXPECT_NE(m_.find(part), std::string::npos) << "'" << part << "' not in: " << m_; \
  } while (0)

std::string header(std::string_view format, std::string_view elements) {
  return fmt::format("ply\nformat {} 1.0\n{}end_header\n", format, elements);
}

TEST(PlyErrors, MissingMagic) {
  EXPECT_HAS(error_of("PLY\nformat ascii 1.0\nend_header\n"), "does not start with 'ply'");
  EXPECT_HAS(error_of("plywood\nformat ascii 1.0\nend_header\n"), "first line is not 'ply'");
  EXPECT_HAS(error_of(""), "empty");
}

TEST(PlyErrors, MissingEndHeader) {
  EXPECT_HAS(error_of("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"),
             "no 'end_header'");
}

TEST(PlyErrors, MalformedHeaderLinesNameTheLine) {
  EXPECT_HAS(error_of(header("ascii", "element vertex many\n")), "header line 3");
  EXPECT_HAS(error_of(header("ascii", "element vertex 1\nproperty float16 x\n")),
             "unknown property type 'float16'");
  EXPECT_HAS(error_of(header("ascii", "element vertex 1\nwhatever\n")),
             "unknown header keyword 'whatever'");
  EXPECT_HAS(error_of("ply\nelement vertex 0\nend_header\n"), "no 'format' line");
  EXPECT_HAS(error_of("ply\nformat ascii 2.0\nend_header\n"), "version '2.0' is unsupported");
}

TEST(PlyErrors, BigEndianIsUnsupported) {
  EXPECT_HAS(error_of(header("binary_big_endian", test::ply_element("vertex", 1, kXyz))),
             "binary_big_endian PLY is unsupported");
}

TEST(PlyErrors, NoVertexElement) {
  EXPECT_HAS(error_of(header("ascii", test::ply_element("point", 1, kXyz)) + "1 2 3\n"),
             "no 'vertex' element");
}

TEST(PlyErrors, MissingCoordinate) {
  for (const char* axis : {"x", "y", "z"}) {
    std::vector<PlyColumn> columns;
    for (const auto& c : kXyz) {
      if (c.name != axis) columns.push_back(c);
    }
    EXPECT_HAS(error_of(ply_file(true, columns, {{1, 2}})), fmt::format("no '{}' property", axis));
  }
}

TEST(PlyErrors, NoVertices) { EXPECT_HAS(error_of(ply_file(true, kXyz, {})), "no vertices"); }

TEST(PlyErrors, BinaryVertexCountLargerThanData) {
  std::string s = ply_file(true, kXyz, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  s.replace(s.find("vertex 3"), 8, "vertex 5");
  s.resize(s.size() - 4);  // and the last record is incomplete
  const std::string m = error_of(s);
  EXPECT_HAS(m, "declares 5 vertices");
  EXPECT_HAS(m, "holds only 2 complete 12-byte vertex records");
}

TEST(PlyErrors, AsciiVertexCountLargerThanData) {
  std::string s = ply_file(false, kXyz, {{1, 2, 3}, {4, 5, 6}});
  s.replace(s.find("vertex 2"), 8, "vertex 9");
  const std::string m = error_of(s);
  EXPECT_HAS(m, "declares 9 vertices");
  EXPECT_HAS(m, "line 9 after 2 vertices");  // 7 header lines + 2 vertex lines
}

TEST(PlyErrors, AsciiNonNumericTokenNamesLine) {
  const std::string m =
      error_of(header("ascii", test::ply_element("vertex", 2, kXyz)) + "1 2 3\n4 five 6\n");
  EXPECT_HAS(m, "line 9");
  EXPECT_HAS(m, "'five' is not a number");
  EXPECT_HAS(m, "vertex 1");
  EXPECT_HAS(m, "property 'y'");
}

TEST(PlyErrors, AsciiWrongValueCountNamesLine) {
  EXPECT_HAS(error_of(header("ascii", test::ply_element("vertex", 1, kXyz)) + "1 2 3 4\n"),
             "line 8: vertex 0 has 4 values, expected 3");
}

TEST(PlyErrors, NonFiniteCoordinateNamesVertex) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::string binary = error_of(ply_file(true, kXyz, {{1, 2, 3}, {4, 5, 6}, {7, inf, 9}}));
  EXPECT_HAS(binary, "vertex 2 at byte offset");
  EXPECT_HAS(binary, "non-finite");
  const std::string ascii =
      error_of(header("ascii", test::ply_element("vertex", 2, kXyz)) + "1 2 3\nnan 5 6\n");
  EXPECT_HAS(ascii, "line 9: vertex 1 has a non-finite coordinate");
  EXPECT_HAS(error_of(ply_file(false, kXyz, {{1, 2, 3}, {nan, 0, -inf}})),
             "vertex 1 has a non-finite");
  EXPECT_HAS(error_of(header("ascii", test::ply_element("vertex", 1, kXyz)) + "1 2 1e999\n"),
             "non-finite");
}

TEST(PlyErrors, ListPropertyBeforeVertexInBinary) {
  const std::string elements = "element face 1\nproperty list uchar int vertex_indices\n" +
                               test::ply_element("vertex", 1, kXyz);
  std::string s = header("binary_little_endian", elements);
  s += std::string("\x01\0\0\0\0", 5);
  for (double v : {1.0, 2.0, 3.0}) test::append_ply_binary(s, "float", v);
  const std::string m = error_of(s);
  EXPECT_HAS(m, "element 'face' comes before 'vertex'");
  EXPECT_HAS(m, "list property 'vertex_indices'");
}

TEST(PlyErrors, ListPropertyInVertex) {
  const std::string elements =
      test::ply_element("vertex", 1, kXyz) + "property list uchar float normals\n";
  EXPECT_HAS(error_of(header("ascii", elements) + "1 2 3 1 0.5\n"), "list property 'normals'");
}

TEST(PlyErrors, BinaryElementBeforeVertexLargerThanFile) {
  const std::string elements =
      test::ply_element("camera", 1000, {{"double", "k"}}) + test::ply_element("vertex", 1, kXyz);
  EXPECT_HAS(error_of(header("binary_little_endian", elements) + std::string(12, '\0')),
             "element 'camera' declares 1000 records of 8 bytes");
}

TEST(PlyErrors, AsciiElementBeforeVertexCut) {
  const std::string elements =
      test::ply_element("camera", 3, {{"double", "k"}}) + test::ply_element("vertex", 1, kXyz);
  EXPECT_HAS(error_of(header("ascii", elements) + "1\n2\n"),
             "inside PLY element 'camera' (2 of 3 records)");
}

}  // namespace
}  // namespace simlod
