#include <fmt/format.h>
#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "io/atomic_writer.hpp"
#include "simlod/error.hpp"
#include "simlod/image.hpp"

namespace simlod {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

/// Removes the partial file unless `path` was cleared (the PNG was put in place).
struct PartialFile {
  std::filesystem::path path;
  ~PartialFile() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove(path, ignored);
  }
};

// libpng reports errors by longjmp to the setjmp point in write_png (as its manual describes);
// everything with a destructor is created before that point.
struct PngWriteState {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngWriteState() { png_destroy_write_struct(&png, &info); }
};

}  // namespace

void write_png(const std::filesystem::path& path, std::uint32_t width, std::uint32_t height,
               std::span<const std::uint8_t> pixels) {
  if (width == 0 || height == 0) {
    throw InvalidInput(
        fmt::format("'{}': image size {}x{} is empty", path.string(), width, height));
  }
  const std::size_t expected = std::size_t{width} * height * 4;
  if (pixels.size() != expected) {
    throw InvalidInput(fmt::format("'{}': {}x{} RGBA8 image needs {} bytes, got {}", path.string(),
                                   width, height, expected, pixels.size()));
  }
  // Written to a partial file that is renamed over `path` when complete (io/atomic_writer.hpp):
  // a full disk or an error leaves no truncated PNG behind, and an older one as it was.
  const std::filesystem::path partial = detail::partial_path(path);
  PartialFile remove_on_error{partial};
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(partial.c_str(), "wb"));
  if (!file) {
    throw IoError(fmt::format("cannot create '{}': {}", partial.string(), std::strerror(errno)));
  }

  PngWriteState s;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.png || !s.info) throw IoError("libpng: out of memory");
  std::vector<png_const_bytep> rows(height);
  for (std::uint32_t y = 0; y < height; ++y) rows[y] = pixels.data() + std::size_t{y} * width * 4;
  errno = 0;  // libpng's writes go through fwrite(): a failure leaves its reason here
  if (setjmp(png_jmpbuf(s.png))) {
    const int err = errno;
    throw IoError(fmt::format("cannot write PNG '{}': {}", path.string(),
                              err != 0 ? std::strerror(err) : "libpng error"));
  }
  png_init_io(s.png, file.get());
  png_set_IHDR(s.png, s.info, width, height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(s.png, s.info);
  png_write_rows(s.png, const_cast<png_bytepp>(rows.data()), height);
  png_write_end(s.png, nullptr);
  if (std::fflush(file.get()) != 0 || std::ferror(file.get()) != 0) {
    throw IoError(fmt::format("cannot write PNG '{}': {}", path.string(), std::strerror(errno)));
  }
  if (std::fclose(file.release()) != 0) {
    throw IoError(fmt::format("cannot write PNG '{}': {}", path.string(), std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) throw IoError(fmt::format("cannot write PNG '{}': {}", path.string(), ec.message()));
  remove_on_error.path.clear();
}

}  // namespace simlod
