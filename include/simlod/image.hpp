// Image output: RGBA8 images written as PNG (libpng).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace simlod {

/// Writes a width x height RGBA8 image (row-major, top row first, 4 bytes per pixel:
/// red, green, blue, alpha) as PNG. Throws InvalidInput when pixels.size() != width*height*4
/// or a size is 0, IoError when the file cannot be written.
void write_png(const std::filesystem::path& path, std::uint32_t width, std::uint32_t height,
               std::span<const std::uint8_t> pixels);

}  // namespace simlod
