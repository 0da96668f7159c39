// Device queries for builds without the CUDA backend (SIMLOD_CUDA=OFF or no nvcc).
#include "simlod/backend.hpp"

namespace simlod {

bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_unavailable_reason() { return "simlod was built without CUDA (SIMLOD_CUDA=OFF)"; }
std::string cuda_device_description() { return {}; }

}  // namespace simlod
