// Pinned host memory in builds without CUDA: there is none, HostBuffer uses ordinary memory.
#include "core/host_buffer.hpp"

namespace simlod::detail {

void* allocate_pinned(std::size_t) noexcept { return nullptr; }
void free_pinned(void*) noexcept {}

}  // namespace simlod::detail
