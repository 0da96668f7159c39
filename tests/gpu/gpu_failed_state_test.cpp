// The failed state on the CUDA backend: a failure injected after each pass of a batch (kernels
// still in flight) is thrown once, then every call throws StateError; the device stays usable
// for a new octree, which builds the CPU backend's tree.
#include <gtest/gtest.h>

#include <string>

#include "core/fault_injection.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(GpuFailedState, EveryCallThrowsAfterAFailureInsideABatch) {
  SIMLOD_REQUIRE_GPU();
  struct Disarm {
    ~Disarm() { detail::arm_fault(0); }
  } disarm;
  const FullLeaves f = full_leaves();
  OctreeConfig c = small_config(1000, 32, 100);
  c.backend = Backend::Cuda;
  c.memory_bytes = std::uint64_t{256} << 20;
  for (int k = 1; k <= 7; ++k) {
    SCOPED_TRACE(k);
    Octree tree = Octree::create(f.bounds, c);
    tree.insert(f.first);
    tree.update();
    tree.insert(f.second);
    detail::arm_fault(k);
    std::string first;
    try {
      tree.update();
    } catch (const StateError&) {
      ADD_FAILURE() << "the first failure is thrown as it is";
    } catch (const Error& e) {
      first = e.what();
    }
    detail::arm_fault(0);
    ASSERT_NE(first.find("injected fault after"), std::string::npos) << first;
    EXPECT_THROW((void)tree.stats(), StateError);
    EXPECT_THROW(tree.update(), StateError);
    EXPECT_THROW((void)tree.snapshot(), StateError);
  }
  Octree fresh = Octree::create(f.bounds, c);
  Octree cpu = Octree::create(f.bounds, on_backend(c, Backend::Cpu));
  for (const auto* part : {&f.first, &f.second}) {
    fresh.insert(*part);
    fresh.update();
    cpu.insert(*part);
    cpu.update();
  }
  expect_same_octree(cpu, fresh);
}

}  // namespace
}  // namespace simlod::test
