// Backend selection: every builder and the renderer run on CUDA or on the CPU (threads).
#pragma once

#include <string>
#include <string_view>

namespace simlod {

enum class Backend {
  Auto,  ///< CUDA when a usable device is present, otherwise the CPU
  Cpu,   ///< multithreaded host implementation (also the reference for tests)
  Cuda,  ///< NVIDIA GPU
};

/// True when this build has the CUDA backend compiled in.
[[nodiscard]] bool cuda_compiled();

/// Number of usable CUDA devices (0 when CUDA is not compiled in or no driver/device exists).
/// Never throws; the reason for 0 devices is available from cuda_unavailable_reason().
[[nodiscard]] int cuda_device_count();

/// Human-readable reason why CUDA is unusable, empty when a device is usable.
[[nodiscard]] std::string cuda_unavailable_reason();

/// Short description of device 0 (name, compute capability, memory), empty without one.
[[nodiscard]] std::string cuda_device_description();

/// Resolves Backend::Auto; throws CudaError when Backend::Cuda is requested but unusable.
[[nodiscard]] Backend resolve_backend(Backend requested);

[[nodiscard]] std::string_view to_string(Backend backend);
/// Parses "auto", "cpu" or "cuda"; throws InvalidInput otherwise.
[[nodiscard]] Backend parse_backend(std::string_view text);

}  // namespace simlod
