// The exception family thrown by simlod. Every message says what was wrong and where
// (file path, byte offset, point index) so that a user can act on it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace simlod {

/// Base of every exception simlod throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The input (a file's content, a batch of points, a configuration value) is invalid.
class InvalidInput : public Error {
 public:
  using Error::Error;
};

/// A file could not be opened, read or written.
class IoError : public Error {
 public:
  using Error::Error;
};

/// Device or host memory reserved for the octree is exhausted; the octree stays valid.
class CapacityError : public Error {
 public:
  using Error::Error;
  CapacityError(const std::string& what, std::uint64_t points_inserted)
      : Error(what), points_inserted_(points_inserted) {}

  /// Points of the batch that went in before memory ran out: its first points_inserted()
  /// points, in order (Octree::insert_now, Octree::update); 0 where nothing went in.
  [[nodiscard]] std::uint64_t points_inserted() const { return points_inserted_; }

 private:
  std::uint64_t points_inserted_ = 0;
};

/// A CUDA runtime call or kernel launch failed.
class CudaError : public Error {
 public:
  using Error::Error;
};

/// The object failed earlier (a CUDA error or an internal error in the middle of a batch) and
/// may be half-written, so it refuses every further call; the message names the first failure.
/// Destroying it (or assigning a new one) is all that is left to do.
class StateError : public Error {
 public:
  using Error::Error;
};

}  // namespace simlod
