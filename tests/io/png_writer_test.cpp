#include <gtest/gtest.h>
#include <png.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "io/read_png.hpp"
#include "simlod/error.hpp"
#include "simlod/image.hpp"

namespace simlod {
namespace {

using simlod::test::read_png;

TEST(WritePng, PixelsSurviveARoundTrip) {
  const std::uint32_t w = 7, h = 5;
  std::vector<std::uint8_t> pixels(w * h * 4);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 37);
  const auto path = std::filesystem::temp_directory_path() / "simlod-png-roundtrip.png";
  write_png(path, w, h, pixels);
  std::uint32_t rw = 0, rh = 0;
  EXPECT_EQ(read_png(path, rw, rh), pixels);
  EXPECT_EQ(rw, w);
  EXPECT_EQ(rh, h);
  std::filesystem::remove(path);
}

TEST(WritePng, WrongBufferSizeIsInvalidInput) {
  std::vector<std::uint8_t> pixels(10);
  EXPECT_THROW(write_png("x.png", 2, 2, pixels), InvalidInput);
  EXPECT_THROW(write_png("x.png", 0, 2, {}), InvalidInput);
}

TEST(WritePng, UnwritablePathIsIoError) {
  std::vector<std::uint8_t> pixels(4);
  EXPECT_THROW(write_png("/nonexistent-dir/x.png", 1, 1, pixels), IoError);
}

}  // namespace
}  // namespace simlod
