// A file written under a temporary name beside its final one ("<name>.partial-<pid>") and
// renamed over it by commit(): one rename within a folder, so readers see the old file or the
// whole new one. Dropped without commit() (an error on the way), it removes the temporary
// file, so nothing half-written remains and an older file of that name stays as it was.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "simlod/error.hpp"

namespace simlod::examples {

class PartialFile {
 public:
  explicit PartialFile(std::filesystem::path path)
      : path_(std::move(path)), partial_(path_.string() + fmt::format(".partial-{}", ::getpid())) {}
  ~PartialFile() {
    std::error_code ignored;
    if (!committed_) std::filesystem::remove(partial_, ignored);
  }
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  /// The name to write to.
  [[nodiscard]] const std::filesystem::path& partial() const { return partial_; }

  /// Puts the written file at its name. Throws IoError naming both when the rename fails.
  void commit() {
    std::error_code ec;
    std::filesystem::rename(partial_, path_, ec);
    if (ec) {
      throw IoError(fmt::format("cannot put the finished file '{}' at '{}': {}", partial_.string(),
                                path_.string(), ec.message()));
    }
    committed_ = true;
  }

 private:
  std::filesystem::path path_, partial_;
  bool committed_ = false;
};

}  // namespace simlod::examples
