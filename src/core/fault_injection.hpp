// Test-only fault injection: proves that a failure in the middle of a batch puts the Octree
// into its failed state (StateError) instead of leaving a half-written tree in use. The
// builders call fault_point() after each pass; it does nothing (one relaxed atomic load)
// unless a test armed it.
#pragma once

#include <string_view>

namespace simlod::detail {

/// Arms the hook: the `k`-th fault_point() from now on (k >= 1) throws simlod::Error
/// ("injected fault after <pass>"); 0 disarms it.
void arm_fault(int k);

/// A point where a builder could fail; throws when the armed count reaches it.
void fault_point(std::string_view pass);

}  // namespace simlod::detail
