// Thin RAII wrappers over POSIX files with error messages that name the path and byte offset.
// InputFile::read_exact uses pread, so several threads may read one InputFile at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace simlod::detail {

class InputFile {
 public:
  /// Opens for reading; throws IoError ("cannot open '<path>': <reason>").
  explicit InputFile(const std::filesystem::path& path);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&&) = delete;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::uint64_t size() const { return size_; }

  /// Reads exactly dst.size() bytes at `offset`. Throws InvalidInput when the file ends first
  /// ("'<path>' is truncated: <what> needs N bytes at offset O but the file has S bytes") and
  /// IoError on a read error. `what` names the structure being read ("LAS header").
  void read_exact(std::uint64_t offset, std::span<std::byte> dst, std::string_view what) const;

  /// Reads up to dst.size() bytes at `offset`; returns the count (smaller only at end of file).
  std::size_t read_some(std::uint64_t offset, std::span<std::byte> dst) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

class OutputFile {
 public:
  /// Creates or truncates; throws IoError naming the path.
  explicit OutputFile(const std::filesystem::path& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Appends at the current end; throws IoError naming the path and offset.
  void write(std::span<const std::byte> src);
  /// Overwrites bytes at `offset` (used to patch headers at close()).
  void write_at(std::uint64_t offset, std::span<const std::byte> src);
  [[nodiscard]] std::uint64_t position() const { return position_; }
  /// Flushes and closes; throws IoError when the data could not be stored.
  void close();

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t position_ = 0;
};

/// View of a trivially copyable object as bytes (for header structs).
template <class T>
std::span<std::byte> bytes_of(T& value) {
  return {reinterpret_cast<std::byte*>(&value), sizeof(T)};
}
template <class T>
std::span<const std::byte> bytes_of(const T& value) {
  return {reinterpret_cast<const std::byte*>(&value), sizeof(T)};
}

}  // namespace simlod::detail
