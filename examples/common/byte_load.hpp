// Little-endian fields of LAS records and VLRs, read without alignment requirements.
#pragma once

#include <cstddef>
#include <cstring>

namespace simlod::examples {

/// The T stored at p + offset.
template <class T>
T load(const std::byte* p, std::size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof(T));
  return v;
}

}  // namespace simlod::examples
