#include "simlod/backend.hpp"

#include <fmt/format.h>

#include "simlod/error.hpp"

namespace simlod {

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
