// Copies from pageable host memory to the device through page-locked staging buffers: the
// library's pool copies each piece into a pinned buffer while the previous piece is on its way
// over PCIe. A plain cudaMemcpy from pageable memory stages through the driver's small
// buffers on one thread, several times slower for gigabytes (docs/perf-notes.md, "Bulk build
// with attribute channels", step 3).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace simlod::detail::cuda {

/// Copies `bytes` from host `from` (pageable) to device `to`, queued on `stream` and finished
/// when this returns (the staging buffers are freed). Small copies go straight.
void copy_to_device_staged(void* to, const void* from, std::size_t bytes, cudaStream_t stream);

}  // namespace simlod::detail::cuda
