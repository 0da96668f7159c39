// A writer that never leaves a half-written file under the name asked for: the format's writer
// writes "<name>.partial-<pid>" in the same folder, and close() renames it over the name (one
// rename within a folder, so readers see the old file or the whole new one). A writer given
// up while an exception unwinds removes its partial file and leaves an older file of that name
// as it was; a run that is killed leaves only the partial file, never a plausible-looking one.
#pragma once

#include <filesystem>
#include <memory>

#include "simlod/io.hpp"

namespace simlod::detail {

/// The partial file's name for `path`.
[[nodiscard]] std::filesystem::path partial_path(const std::filesystem::path& path);

/// Wraps `inner`, which writes partial_path(path), so that close() puts the file at `path`.
[[nodiscard]] std::unique_ptr<PointWriter> make_atomic_writer(std::unique_ptr<PointWriter> inner,
                                                              const std::filesystem::path& path);

}  // namespace simlod::detail
