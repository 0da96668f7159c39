// libFuzzer target: one input = the bytes of one point-cloud file, opened and read the way the
// tools do (read_info, open_reader, read in batches). Built once per format with
// SIMLOD_FUZZ_EXTENSION (".las", ".laz", ".ply", ".sim"), which picks the reader; with
// SIMLOD_FUZZ_HEADER_ONLY the target stops after read_info (the LAS/LAZ header and VLR
// parser). The rule it checks: any input gives points or a simlod::Error, never a crash, a
// sanitizer report, a hang or an allocation the file's size does not justify (libFuzzer's
// -rss_limit_mb and -timeout, set by scripts/fuzz), and never more points than the header
// declared.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace {

/// The file the input is written to: one per process, in the temporary folder.
const std::filesystem::path& input_path() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("simlod-fuzz-" + std::to_string(::getpid()) + SIMLOD_FUZZ_EXTENSION);
  return path;
}

void write_input(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(input_path().c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

/// Points read before giving up on an input (a valid file can hold more; reading them all
/// would only slow the campaign down).
constexpr std::uint64_t kMaxPoints = 1u << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  write_input(data, size);
  try {
    const simlod::FileInfo info = simlod::read_info(input_path());
#if !defined(SIMLOD_FUZZ_HEADER_ONLY)
    simlod::ReaderOptions options;
    options.threads = 1;
    const auto reader = simlod::open_reader(input_path(), options);
    std::vector<simlod::Point> batch(4096);
    std::uint64_t total = 0;
    while (total < kMaxPoints) {
      const std::size_t n = reader->read(batch);
      if (n == 0) break;
      total += n;
    }
    // A reader never returns points the file does not declare.
    if (total > info.point_count) std::abort();
#else
    (void)info;
#endif
  } catch (const simlod::Error&) {
    // A named error is the right answer to a bad file.
  }
  return 0;
}
