// Checking every CUDA runtime call and kernel launch: failures become simlod::CudaError naming
// the call, the source file and line, and the runtime's error name and text. For .cu files.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>

#include "simlod/error.hpp"

namespace simlod::detail::cuda {

/// File name from __FILE__ with the folders above src/ dropped.
inline std::string_view source_name(std::string_view file) {
  const auto at = file.rfind("src/");
  return at == std::string_view::npos ? file : file.substr(at);
}

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
  (void)cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  throw CudaError(std::string(call) + " failed at " + std::string(source_name(file)) + ":" +
                  std::to_string(line) + ": " + cudaGetErrorName(err) + ": " +
                  cudaGetErrorString(err));
}

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}

}  // namespace simlod::detail::cuda

/// Throws CudaError when the runtime call `expr` fails.
#define SIMLOD_CUDA_CHECK(expr) \
  ::simlod::detail::cuda::check_cuda((expr), #expr, __FILE__, __LINE__)

/// Throws CudaError when the kernel launch just issued failed (bad configuration, no device
/// code for this GPU). Errors during execution surface at the next synchronising call.
#define SIMLOD_CUDA_CHECK_LAUNCH(name) \
  ::simlod::detail::cuda::check_cuda(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)
