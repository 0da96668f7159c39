// A vector whose resize() leaves trivial elements unwritten (FillVector), for large buffers
// that a parallel loop fills right after: the loop's threads touch the pages first, instead of
// one thread zeroing them all before.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace simlod::detail {

/// An allocator that default-initialises: resize() leaves trivial elements unwritten, so that
/// the parallel loop that fills them touches their pages first (on many threads) instead of a
/// serial zeroing pass.
template <class T>
struct DefaultInit : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInit<U>;
  };
  DefaultInit() = default;
  template <class U>
  explicit DefaultInit(const DefaultInit<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector whose resize() does not zero trivial elements.
template <class T>
using FillVector = std::vector<T, DefaultInit<T>>;

}  // namespace simlod::detail
