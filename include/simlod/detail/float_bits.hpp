// The bits of a float and back, on the host and the device alike.
#pragma once

#include <cstdint>
#include <cstring>

#include "simlod/detail/hd.hpp"

namespace simlod::detail {

SIMLOD_HD float float_from_bits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
#endif
}

SIMLOD_HD std::uint32_t bits_from_float(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
#endif
}

}  // namespace simlod::detail
