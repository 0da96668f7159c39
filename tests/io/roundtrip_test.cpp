// Format round trips through the public API: LAS -> SIM -> LAS keeps every point within the
// LAS scale and colours exactly; PLY -> SIM keeps float coordinates and colours exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/ply_test_files.hpp"
#include "io/temp_dir.hpp"
#include "io/test_data.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

using test::PlyColumn;
using test::TempDir;

constexpr std::array<double, 3> kZero{0.0, 0.0, 0.0};

std::vector<Point> read_all(const std::filesystem::path& path, const ReaderOptions& options) {
  auto reader = open_reader(path, options);
  std::vector<Point> all(reader->info().point_count);
  std::size_t done = 0;
  // Odd batch size: batches straddle whatever block size a reader uses internally.
  while (done < all.size()) {
    const std::size_t n = reader->read(
        std::span(all).subspan(done, std::min<std::size_t>(77'777, all.size() - done)));
    EXPECT_GT(n, 0u);
    if (n == 0) break;
    done += n;
  }
  return all;
}

void write_all(const std::filesystem::path& path, std::span<const Point> points,
               const WriterOptions& options) {
  auto writer = create_writer(path, options);
  writer->write(points);
  writer->close();
}

TEST(RoundTrip, LasSimLasKeepsPointsWithinTheScale) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  TempDir dir;
  const auto lion = data / "lion_takanawa.las";
  const FileInfo info = read_info(lion);
  ASSERT_EQ(info.point_count, 341'989u);
  // Every step uses the LAS file's origin: SIM stores these relative coordinates as they are.
  ReaderOptions at_origin;
  at_origin.origin = info.origin;
  const std::vector<Point> original = read_all(lion, at_origin);

  write_all(dir / "lion.sim", original, {});
  ReaderOptions raw;
  raw.origin = kZero;
  const std::vector<Point> from_sim = read_all(dir / "lion.sim", raw);
  ASSERT_EQ(from_sim, original);  // SIM is lossless for relative coordinates

  WriterOptions las;
  las.origin = info.origin;
  las.scale = info.scale;
  write_all(dir / "lion.las", from_sim, las);
  const std::vector<Point> back = read_all(dir / "lion.las", at_origin);
  ASSERT_EQ(back.size(), original.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < back.size(); ++i) {
    const Point& a = original[i];
    const Point& b = back[i];
    // Half a quantisation step plus float rounding of the relative coordinate.
    const bool near = std::abs(a.x - b.x) <= 0.5 * info.scale[0] + 1e-5 &&
                      std::abs(a.y - b.y) <= 0.5 * info.scale[1] + 1e-5 &&
                      std::abs(a.z - b.z) <= 0.5 * info.scale[2] + 1e-5;
    if ((!near || a.rgba != b.rgba) && ++bad <= 5) {
      ADD_FAILURE() << "point " << i << ": (" << a.x << ", " << a.y << ", " << a.z << ", "
                    << std::hex << a.rgba << ") became (" << b.x << ", " << b.y << ", " << b.z
                    << ", " << b.rgba << std::dec << ")";
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(RoundTrip, PlySimKeepsFloatsAndColoursExactly) {
  TempDir dir;
  const std::vector<std::vector<PlyColumn>> layouts = {
      {{"float", "x"}, {"float", "y"}, {"float", "z"}},
      {{"float", "x"},
       {"float", "y"},
       {"float", "z"},
       {"uchar", "red"},
       {"uchar", "green"},
       {"uchar", "blue"}},
      {{"float", "nx"},
       {"double", "z"},
       {"uchar", "blue"},
       {"int", "label"},
       {"double", "x"},
       {"uchar", "green"},
       {"float", "y"},
       {"uchar", "red"},
       {"ushort", "intensity"},
       {"uchar", "alpha"}},
  };
  for (std::size_t l = 0; l < layouts.size(); ++l) {
    const auto& columns = layouts[l];
    std::vector<std::vector<double>> rows;
    for (int i = 0; i < 5000; ++i) {
      std::vector<double> row;
      for (const auto& c : columns) {
        if (c.name == "x")
          row.push_back(static_cast<float>(i * 0.37 - 500.0));
        else if (c.name == "y")
          row.push_back(static_cast<float>(1e4 + i / 7.0));
        else if (c.name == "z")
          row.push_back(static_cast<float>(-i * 1.1e-3));
        else
          row.push_back((i * 31 + static_cast<int>(c.name.size()) * 17) % 256);
      }
      rows.push_back(row);
    }
    for (const bool binary : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "layout " << l << (binary ? " binary" : " ascii"));
      const auto ply = dir / "in.ply";
      test::write_bytes(ply, test::ply_file(binary, columns, rows));
      ReaderOptions raw;
      raw.origin = kZero;
      const std::vector<Point> points = read_all(ply, raw);
      ASSERT_EQ(points.size(), rows.size());
      write_all(dir / "out.sim", points, {});
      EXPECT_EQ(read_all(dir / "out.sim", raw), points);
      // And the PLY values themselves survived: check one vertex against its row.
      const Point& p = points[1234];
      EXPECT_EQ(p.x, static_cast<float>(1234 * 0.37 - 500.0));
      EXPECT_EQ(p.y, static_cast<float>(1e4 + 1234 / 7.0));
      EXPECT_EQ(p.z, static_cast<float>(-1234 * 1.1e-3));
    }
  }
}

}  // namespace
}  // namespace simlod
