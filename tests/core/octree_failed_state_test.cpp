// The failed state: a failure in the middle of a batch (injected after each pass in turn) is
// thrown once; from then on every call of the Octree throws StateError naming it, because the
// tree may be half-written. CapacityError and InvalidInput never lead there.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/fault_injection.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"

namespace simlod::test {
namespace {

struct Disarm {
  ~Disarm() { detail::arm_fault(0); }
};

void expect_state_error(const std::function<void()>& call, const std::string& first) {
  try {
    call();
    FAIL() << "expected StateError";
  } catch (const StateError& e) {
    EXPECT_NE(std::string(e.what()).find(first), std::string::npos) << e.what();
  }
}

TEST(OctreeFailedState, EveryCallThrowsAfterAFailureInsideABatch) {
  const Disarm disarm;
  const Scene& scene = synth_scene(40'000, synth::Order::Morton);
  const std::span<const Point> all(scene.points);
  const OctreeConfig c = small_config(1000, 32, 500);
  // The CPU backend has five fault points per batch: quantize, expand, sample, plan, commit.
  for (int k = 1; k <= 5; ++k) {
    SCOPED_TRACE(k);
    Octree tree = Octree::create(scene.bounds, c);
    tree.insert(all.first(20'000));
    tree.update();
    tree.insert(all.subspan(20'000));
    detail::arm_fault(k);
    std::string first;
    try {
      tree.update();
      FAIL() << "expected the injected fault";
    } catch (const StateError&) {
      FAIL() << "the first failure is thrown as it is";
    } catch (const Error& e) {
      first = e.what();
    }
    detail::arm_fault(0);
    EXPECT_NE(first.find("injected fault after"), std::string::npos) << first;
    expect_state_error([&] { tree.update(); }, first);
    expect_state_error([&] { tree.insert(all.first(10)); }, first);
    expect_state_error([&] { (void)tree.stats(); }, first);
    expect_state_error([&] { (void)tree.snapshot(); }, first);
    expect_state_error([&] { (void)tree.discard_queued(); }, first);
    Framebuffer fb(64, 48, Backend::Cpu);
    const View view = View::look_at({50, 50, 50}, {0, 0, 0}, {0, 0, 1}, 60.0, 64, 48, 0.1, 500.0);
    expect_state_error([&] { (void)rasterize(tree, view, fb); }, first);
  }
}

TEST(OctreeFailedState, CapacityAndInvalidInputDoNotFail) {
  const Scene& scene = synth_scene(20'000, synth::Order::Scan);
  OctreeConfig c = small_config(1000, 8, 100);
  c.memory_bytes = 200'000;
  Octree tree = Octree::create(scene.bounds, c);
  tree.insert(scene.points);
  EXPECT_THROW(tree.update(), CapacityError);
  tree.discard_queued();
  EXPECT_THROW(tree.insert(std::vector<Point>{{-1.0f, 0.0f, 0.0f, 0}}), InvalidInput);
  EXPECT_NO_THROW((void)tree.stats());
  EXPECT_NO_THROW(tree.update());
}

}  // namespace
}  // namespace simlod::test
