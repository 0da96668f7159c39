// LAZ entry points for builds without LASzip: clear errors that say how to get LAZ support.
#include <fmt/format.h>

#include "io/formats.hpp"
#include "simlod/error.hpp"

namespace simlod {

bool laz_supported() { return false; }

namespace detail {
namespace {

[[noreturn]] void no_laz(const std::filesystem::path& path, const char* verb) {
  throw InvalidInput(fmt::format(
      "'{}': this build of simlod cannot {} LAZ (LASzip was not found at build time; install "
      "liblaszip-dev and rebuild)",
      path.string(), verb));
}

}  // namespace

std::unique_ptr<PointReader> open_laz_reader(const std::filesystem::path& path,
                                             const ReaderOptions&) {
  no_laz(path, "read");
}

FileInfo read_laz_info(const std::filesystem::path& path) { no_laz(path, "read"); }
FileInfo read_laz_layout(const std::filesystem::path& path) { no_laz(path, "read"); }

std::unique_ptr<PointWriter> create_laz_writer(const std::filesystem::path& path,
                                               const WriterOptions&) {
  no_laz(path, "write");
}

}  // namespace detail
}  // namespace simlod
