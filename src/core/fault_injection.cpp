#include "core/fault_injection.hpp"

#include <atomic>
#include <string>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

std::atomic<int> armed{0};

}  // namespace

void arm_fault(int k) { armed.store(k, std::memory_order_relaxed); }

void fault_point(std::string_view pass) {
  if (armed.load(std::memory_order_relaxed) == 0) return;
  if (armed.fetch_sub(1, std::memory_order_relaxed) == 1) {
    throw Error("injected fault after " + std::string(pass));
  }
}

}  // namespace simlod::detail
