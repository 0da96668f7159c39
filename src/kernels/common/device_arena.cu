// DeviceArena (kernels/common/device_arena.cuh): the driver's virtual memory functions are reached
// through the runtime's entry-point query, so that nothing links against libcuda directly.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_arena.cuh"
#include "kernels/tuning.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

struct VmmApi {
  CUresult (*get_granularity)(size_t*, const CUmemAllocationProp*,
                              CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*free_range)(CUdeviceptr, size_t) = nullptr;
  CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                     unsigned long long) = nullptr;
  CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                  unsigned long long) = nullptr;
  CUresult (*unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  bool ok = false;
};

template <class F>
bool load(const char* name, F& fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      status != cudaDriverEntryPointSuccess || p == nullptr) {
    (void)cudaGetLastError();
    return false;
  }
  fn = reinterpret_cast<F>(p);
  return true;
}

const VmmApi& api() {
  static const VmmApi a = [] {
    VmmApi v;
    v.ok = load("cuMemGetAllocationGranularity", v.get_granularity) &&
           load("cuMemAddressReserve", v.reserve) && load("cuMemAddressFree", v.free_range) &&
           load("cuMemCreate", v.create) && load("cuMemRelease", v.release) &&
           load("cuMemMap", v.map) && load("cuMemUnmap", v.unmap) &&
           load("cuMemSetAccess", v.set_access);
    return v;
  }();
  return a;
}

CUmemAllocationProp device_prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t step) { return (v + step - 1) / step * step; }

[[noreturn]] void out_of_memory(std::uint64_t bytes, const char* what) {
  std::size_t free = 0, total = 0;
  (void)cudaMemGetInfo(&free, &total);
  throw CapacityError("cannot get " + std::to_string(bytes) + " bytes of device memory for " +
                      what + " (" + std::to_string(free) + " of " + std::to_string(total) +
                      " bytes are free)");
}

void check_driver(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) {
    throw CudaError(std::string(call) + " failed (CUresult " + std::to_string(int{r}) + ")");
  }
}

}  // namespace

DeviceArena::DeviceArena(std::uint64_t bytes, std::uint64_t prefix) {
  SIMLOD_CUDA_CHECK(cudaGetDevice(&device_));
  const VmmApi& v = api();
  const CUmemAllocationProp prop = device_prop(device_);
  std::size_t granule = 0;
  if (v.ok &&
      v.get_granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS &&
      granule > 0) {
    size_ = round_up(bytes, granule);
    if (v.reserve(&base_, size_, granule, 0, 0) != CUDA_SUCCESS) base_ = 0;
  }
  if (base_ == 0) {  // no virtual memory management here: one plain allocation
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      out_of_memory(bytes, "the octree");
    }
    check_cuda(err, "cudaMalloc(arena)", __FILE__, __LINE__);
    base_ = reinterpret_cast<CUdeviceptr>(p);
    size_ = low_ = high_ = bytes;
    return;
  }
  granule_ = granule;
  high_ = size_;
  try {
    ensure(prefix, size_);
  } catch (...) {
    release();
    throw;
  }
}

DeviceArena::DeviceArena(DeviceArena&& other) noexcept { *this = std::move(other); }

DeviceArena& DeviceArena::operator=(DeviceArena&& other) noexcept {
  if (this != &other) {
    release();
    base_ = std::exchange(other.base_, 0);
    size_ = std::exchange(other.size_, 0);
    low_ = std::exchange(other.low_, 0);
    high_ = std::exchange(other.high_, 0);
    granule_ = std::exchange(other.granule_, 0);
    steps_ = other.steps_;
    step_ms_ = other.step_ms_;
    device_ = other.device_;
    pieces_ = std::move(other.pieces_);
    other.pieces_.clear();
  }
  return *this;
}

DeviceArena::~DeviceArena() { release(); }

void DeviceArena::release() {
  if (base_ == 0) return;
  if (granule_ == 0) {
    (void)cudaFree(reinterpret_cast<void*>(base_));
  } else {
    const VmmApi& v = api();
    for (const Piece& p : pieces_) {
      (void)v.unmap(p.at, p.bytes);
      (void)v.release(p.handle);
    }
    (void)v.free_range(base_, size_);
  }
  pieces_.clear();
  base_ = 0;
}

void DeviceArena::ensure(std::uint64_t low_end, std::uint64_t high_begin) {
  if (granule_ == 0) return;  // one plain allocation: all of it is backed
  // Each end grows by at least kArenaGrowBytes and by half of what it holds (each step is a
  // driver allocation and mapping, and the batch waits for it), so a tree that ends at N bytes
  // grew O(log N) times. Bytes already backed by the other end count: the two never overlap.
  if (low_end > low_ && low_ < high_) {
    const std::uint64_t step = std::max(kArenaGrowBytes, low_ / 2);
    const std::uint64_t to = std::min(round_up(std::max(low_end, low_ + step), granule_), high_);
    back(low_, to);
    low_ = to;
  }
  if (high_begin < high_ && low_ < high_) {
    const std::uint64_t step = std::max(kArenaGrowBytes, (size_ - high_) / 2);
    const std::uint64_t target = std::max(high_begin, low_);
    const std::uint64_t grown = high_ > low_ + step ? high_ - step : low_;
    const std::uint64_t from = std::max(std::min(target, grown) / granule_ * granule_, low_);
    back(from, high_);
    high_ = from;
  }
}

void DeviceArena::back_ahead(std::uint64_t low_end, std::uint64_t high_begin) {
  if (granule_ == 0) return;
  const std::uint64_t margin = std::max(kArenaGrowBytes, backed() / 4);
  const std::uint64_t low = low_end + margin;
  const std::uint64_t high = high_begin > margin ? high_begin - margin : 0;
  if (low <= low_ && high >= high_) return;  // the margin is there
  try {
    ensure(low, high);
  } catch (const CapacityError&) {
    // The device has no memory to spare now; a batch that needs it will say so.
  }
}

void DeviceArena::back(std::uint64_t from, std::uint64_t to) {
  if (to <= from) return;
  const auto start = std::chrono::steady_clock::now();
  const VmmApi& v = api();
  const CUmemAllocationProp prop = device_prop(device_);
  const std::size_t bytes = to - from;
  CUmemGenericAllocationHandle handle{};
  const CUresult r = v.create(&handle, bytes, &prop, 0);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) out_of_memory(bytes, "the octree");
  check_driver(r, "cuMemCreate");
  const CUdeviceptr at = base_ + from;
  CUresult m = v.map(at, bytes, 0, handle, 0);
  if (m == CUDA_SUCCESS) {
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    m = v.set_access(at, bytes, &access, 1);
    if (m != CUDA_SUCCESS) (void)v.unmap(at, bytes);
  }
  if (m != CUDA_SUCCESS) {
    (void)v.release(handle);
    if (m == CUDA_ERROR_OUT_OF_MEMORY) out_of_memory(bytes, "the octree");
    check_driver(m, "cuMemMap");
  }
  pieces_.push_back(Piece{at, bytes, handle});
  steps_ += 1;
  step_ms_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace simlod::detail::cuda
