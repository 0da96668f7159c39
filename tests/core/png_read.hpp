// Reading PNG files in tests (libpng's simplified API): RGBA8, top row first.
#pragma once

#include <png.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace simlod::test {

struct PngImage {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
};

inline PngImage read_png(const std::filesystem::path& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    throw std::runtime_error("cannot read " + path.string() + ": " + image.message);
  }
  image.format = PNG_FORMAT_RGBA;
  PngImage out{image.width, image.height, std::vector<std::uint8_t>(PNG_IMAGE_SIZE(image))};
  if (!png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr)) {
    throw std::runtime_error("cannot decode " + path.string() + ": " + image.message);
  }
  return out;
}

}  // namespace simlod::test
