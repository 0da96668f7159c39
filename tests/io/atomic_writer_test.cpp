// Writers never leave a half-written file under the name asked for: the file appears complete
// at close(), an older file of that name survives a failed write, and no partial file is left.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "las_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"

namespace simlod::test {
namespace {

std::vector<std::string> extensions() {
  std::vector<std::string> out{".las", ".sim"};
  if (laz_supported()) out.emplace_back(".laz");
  return out;
}

std::size_t files_in(const TempDir& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++n;
  return n;
}

TEST(AtomicWriter, AFailedWriteKeepsTheOlderFileAndLeavesNoPartialFile) {
  for (const std::string& ext : extensions()) {
    TempDir dir;
    const auto out = dir / ("cloud" + ext);
    {
      auto old = create_writer(out);
      old->write(synthetic_points(50));
      old->close();
    }
    std::vector<Point> batch = synthetic_points(100);
    batch[60].y = std::numeric_limits<float>::quiet_NaN();
    auto convert = [&] {
      auto writer = create_writer(out);
      writer->write(std::span(batch).first(60));
      writer->write(std::span(batch).subspan(60));  // throws: point 60 is not finite
      writer->close();
    };
    EXPECT_THROW(convert(), InvalidInput) << ext;
    EXPECT_EQ(read_all(out).size(), 50u) << ext << ": the older file is intact";
    EXPECT_EQ(files_in(dir), 1u) << ext << ": no partial file is left";
  }
}

TEST(AtomicWriter, TheFileAppearsWhole) {
  for (const std::string& ext : extensions()) {
    TempDir dir;
    const auto out = dir / ("cloud" + ext);
    auto writer = create_writer(out);
    writer->write(synthetic_points(1000));
    EXPECT_FALSE(std::filesystem::exists(out)) << ext << ": nothing under the name before close";
    writer->close();
    EXPECT_EQ(read_all(out).size(), 1000u) << ext;
    EXPECT_EQ(files_in(dir), 1u) << ext;
  }
}

TEST(AtomicWriter, ADroppedWriterStillFinishesTheFile) {
  TempDir dir;
  {
    auto writer = create_writer(dir / "dropped.sim");
    writer->write(synthetic_points(10));
  }
  EXPECT_EQ(read_all(dir / "dropped.sim").size(), 10u);
  EXPECT_EQ(files_in(dir), 1u);
}

TEST(SimBounds, PointsOutsideTheHeaderBoundsAreRefused) {
  TempDir dir;
  const auto path = dir / "shrunk.sim";
  {
    auto writer = create_writer(path);
    writer->write(synthetic_points(100));
    writer->close();
  }
  {  // the header's max corner set to its min: a header a killed writer could leave
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    float min[3];
    f.read(reinterpret_cast<char*>(min), sizeof min);
    f.seekp(12);
    f.write(reinterpret_cast<const char*>(min), sizeof min);
  }
  try {
    (void)read_all(path);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("lies outside the bounds its SIM header declares"), std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace simlod::test
