#include "io/file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/std.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

InputFile::InputFile(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError(fmt::format("cannot open '{}': {}", path.string(), errno_text(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw IoError(fmt::format("cannot read '{}': {}", path.string(),
                              S_ISDIR(st.st_mode) ? "it is a directory" : errno_text(err)));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

std::size_t InputFile::read_some(std::uint64_t offset, std::span<std::byte> dst) const {
  std::size_t done = 0;
  while (done < dst.size()) {
    const ssize_t n =
        ::pread(fd_, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(fmt::format("read error in '{}' at byte offset {}: {}", path_.string(),
                                offset + done, errno_text(errno)));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

void InputFile::read_exact(std::uint64_t offset, std::span<std::byte> dst,
                           std::string_view what) const {
  if (offset > size_ || dst.size() > size_ - offset) {
    throw InvalidInput(fmt::format(
        "'{}' is truncated: {} needs {} bytes at byte offset {} but the file has {} bytes",
        path_.string(), what, dst.size(), offset, size_));
  }
  const std::size_t n = read_some(offset, dst);
  if (n != dst.size()) {
    throw InvalidInput(fmt::format("'{}' is truncated: {} ends at byte offset {} (expected {})",
                                   path_.string(), what, offset + n, offset + dst.size()));
  }
}

OutputFile::OutputFile(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw IoError(fmt::format("cannot create '{}': {}", path.string(), errno_text(errno)));
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write_at(std::uint64_t offset, std::span<const std::byte> src) {
  std::size_t done = 0;
  while (done < src.size()) {
    const ssize_t n =
        ::pwrite(fd_, src.data() + done, src.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(fmt::format("write error in '{}' at byte offset {}: {}", path_.string(),
                                offset + done, errno_text(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
}

void OutputFile::write(std::span<const std::byte> src) {
  write_at(position_, src);
  position_ += src.size();
}

void OutputFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    throw IoError(fmt::format("cannot finish writing '{}': {}", path_.string(), errno_text(errno)));
  }
}

}  // namespace simlod::detail
