// The CUDA framebuffer of builds without CUDA: requesting it is an error the caller sees.
#include "core/framebuffer_store.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

std::unique_ptr<FramebufferStore> make_cuda_framebuffer(std::uint32_t, std::uint32_t) {
  throw CudaError("the CUDA framebuffer is unavailable: simlod was built without CUDA");
}

}  // namespace simlod::detail
