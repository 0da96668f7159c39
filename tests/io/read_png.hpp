// Decodes an RGBA8 PNG with libpng's simplified API (tests of the writers of PNG files).
#pragma once

#include <png.h>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace simlod::test {

/// The pixels of `path`, top row first, and its size; empty when it cannot be read.
inline std::vector<std::uint8_t> read_png(const std::filesystem::path& path, std::uint32_t& w,
                                          std::uint32_t& h) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return {};
  image.format = PNG_FORMAT_RGBA;
  std::vector<std::uint8_t> out(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.data(), 0, nullptr)) return {};
  w = image.width;
  h = image.height;
  return out;
}

}  // namespace simlod::test
