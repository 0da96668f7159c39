#include "io/atomic_writer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <exception>
#include <string>
#include <system_error>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

/// Rethrows the exception being handled with every mention of the partial file replaced by the
/// file asked for: the caller knows `path`, not the partial file behind it.
[[noreturn]] void rethrow_naming(const std::filesystem::path& partial,
                                 const std::filesystem::path& path) {
  auto renamed = [&](std::string text) {
    const std::string from = partial.string(), to = path.string();
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
    return text;
  };
  try {
    throw;
  } catch (const InvalidInput& e) {
    throw InvalidInput(renamed(e.what()));
  } catch (const IoError& e) {
    throw IoError(renamed(e.what()));
  }
}

class AtomicWriter final : public PointWriter {
 public:
  AtomicWriter(std::unique_ptr<PointWriter> inner, std::filesystem::path path)
      : inner_(std::move(inner)),
        path_(std::move(path)),
        partial_(partial_path(path_)),
        unwinding_at_start_(std::uncaught_exceptions()) {}

  ~AtomicWriter() override {
    if (done_) return;
    if (std::uncaught_exceptions() > unwinding_at_start_) {  // given up on: keep the old file
      discard();
      return;
    }
    try {  // dropped without close(): finish it, as the format writers' destructors do
      close();
    } catch (...) {
      discard();
    }
  }

  void write(std::span<const Point> points) override {
    try {
      inner_->write(points);
    } catch (...) {
      rethrow_naming(partial_, path_);
    }
    points_written_ = inner_->points_written();
  }

  void write_with_attributes(std::span<const Point> points,
                             const PointAttributes& attributes) override {
    try {
      inner_->write_with_attributes(points, attributes);
    } catch (...) {
      rethrow_naming(partial_, path_);
    }
    points_written_ = inner_->points_written();
  }

  void write_records(std::span<const std::byte> records) override {
    try {
      inner_->write_records(records);
    } catch (...) {
      rethrow_naming(partial_, path_);
    }
    points_written_ = inner_->points_written();
  }

  void close() override {
    if (done_) return;
    try {
      inner_->close();
    } catch (...) {
      rethrow_naming(partial_, path_);
    }
    std::error_code ec;
    std::filesystem::rename(partial_, path_, ec);
    if (ec) {
      throw IoError(fmt::format("cannot put the finished file '{}' at '{}': {}", partial_.string(),
                                path_.string(), ec.message()));
    }
    done_ = true;
  }

 private:
  void discard() noexcept {
    inner_.reset();
    std::error_code ignored;
    std::filesystem::remove(partial_, ignored);
    done_ = true;
  }

  std::unique_ptr<PointWriter> inner_;
  std::filesystem::path path_, partial_;
  int unwinding_at_start_;
  bool done_ = false;
};

}  // namespace

std::filesystem::path partial_path(const std::filesystem::path& path) {
  std::filesystem::path partial = path;
  partial += fmt::format(".partial-{}", ::getpid());
  return partial;
}

std::unique_ptr<PointWriter> make_atomic_writer(std::unique_ptr<PointWriter> inner,
                                                const std::filesystem::path& path) {
  return std::make_unique<AtomicWriter>(std::move(inner), path);
}

}  // namespace simlod::detail
