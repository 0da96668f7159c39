// DeviceArena: a range of device addresses reserved once, backed with memory only where it is
// used (CUDA virtual memory management). The octree's arena grows from both ends (chunks up
// from the fixed tables, grids down from the end, kernels/tree/arena_layout.hpp), so the backed
// part is a prefix [0, low) and a suffix [high, size); ensure() extends them, in pieces of at
// least kArenaGrowBytes, and nothing ever moves. Reserving a range costs no memory, so an
// octree may reserve most of the device and leave it to other users until it needs it.
// Where the driver lacks virtual memory management, the whole range is one cudaMalloc.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simlod::detail::cuda {

class DeviceArena {
 public:
  DeviceArena() = default;
  /// Reserves `bytes` of addresses on the current device and backs [0, prefix) with memory.
  /// Throws CapacityError when the memory cannot be had, CudaError otherwise.
  DeviceArena(std::uint64_t bytes, std::uint64_t prefix);
  DeviceArena(DeviceArena&& other) noexcept;
  DeviceArena& operator=(DeviceArena&& other) noexcept;
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;
  ~DeviceArena();

  [[nodiscard]] std::byte* data() const { return reinterpret_cast<std::byte*>(base_); }
  [[nodiscard]] std::uint64_t size() const { return size_; }
  /// Bytes backed by device memory now.
  [[nodiscard]] std::uint64_t backed() const { return low_ + (size_ - high_); }

  /// Backing steps so far and the host time they took (milliseconds).
  [[nodiscard]] std::uint64_t steps() const { return steps_; }
  [[nodiscard]] double step_ms() const { return step_ms_; }

  /// Keeps a margin backed beyond [0, low_end) and [high_begin, size): a quarter of what is
  /// backed, at least kArenaGrowBytes per end. Meant for while the device is busy (the driver
  /// calls then overlap with kernels); a device without memory for it is not an error here.
  void back_ahead(std::uint64_t low_end, std::uint64_t high_begin);

  /// Backs [0, low_end) and [high_begin, size) with memory (what is backed stays). Throws
  /// CapacityError, with nothing changed, when the device has no memory left for it.
  void ensure(std::uint64_t low_end, std::uint64_t high_begin);

 private:
  struct Piece {
    CUdeviceptr at;
    std::size_t bytes;
    CUmemGenericAllocationHandle handle;
  };
  void back(std::uint64_t from, std::uint64_t to);  // [from, to), granularity-aligned
  void release();

  CUdeviceptr base_ = 0;
  std::uint64_t size_ = 0;     ///< reserved bytes (a multiple of the granularity)
  std::uint64_t low_ = 0;      ///< backed prefix
  std::uint64_t high_ = 0;     ///< start of the backed suffix (size_ when none)
  std::uint64_t granule_ = 0;  ///< 0: no virtual memory management, one plain allocation
  int device_ = 0;
  std::vector<Piece> pieces_;
  std::uint64_t steps_ = 0;
  double step_ms_ = 0.0;
};

}  // namespace simlod::detail::cuda
