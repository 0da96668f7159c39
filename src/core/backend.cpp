// Backend names, the choice of Auto, and the device queries (CUDA only in builds with it).
#include "simlod/backend.hpp"

#include <fmt/format.h>

#include "kernels/entry.hpp"
#include "simlod/error.hpp"

namespace simlod {

#if SIMLOD_HAS_CUDA
bool cuda_compiled() { return true; }
int cuda_device_count() { return detail::cuda::device_count(); }
std::string cuda_unavailable_reason() { return detail::cuda::unavailable_reason(); }
std::string cuda_device_description() { return detail::cuda::device_description(); }
#else
bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_unavailable_reason() { return "simlod was built without CUDA (SIMLOD_CUDA=OFF)"; }
std::string cuda_device_description() { return {}; }
#endif

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "unknown";
}

Backend parse_backend(std::string_view text) {
  if (text == "auto") return Backend::Auto;
  if (text == "cpu") return Backend::Cpu;
  if (text == "cuda") return Backend::Cuda;
  throw InvalidInput(fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", text));
}

Backend resolve_backend(Backend requested) {
  if (requested == Backend::Cpu) return Backend::Cpu;
  const bool usable = cuda_device_count() > 0;
  if (requested == Backend::Cuda && !usable) {
    throw CudaError(fmt::format("the CUDA backend was requested but is unusable: {}",
                                cuda_unavailable_reason()));
  }
  return usable ? Backend::Cuda : Backend::Cpu;
}

}  // namespace simlod
