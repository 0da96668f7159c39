// DeviceBatch where no device is (CI): a clear CudaError at construction, and an empty batch
// that behaves. The device side is tested in tests/gpu/gpu_device_batch_test.cpp.
#include "simlod/device_batch.hpp"

#include <gtest/gtest.h>

#include <string>

#include "simlod/backend.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

TEST(DeviceBatch, WithoutADeviceIsACudaError) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  try {
    DeviceBatch batch(1000, 0);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("DeviceBatch"), std::string::npos) << e.what();
  }
}

TEST(DeviceBatch, AnEmptyBatchHasNoPieceAndRefusesCommits) {
  DeviceBatch batch;
  const Bounds cube{{0, 0, 0}, {1, 1, 1}};
  EXPECT_EQ(batch.capacity(), 0u);
  EXPECT_TRUE(batch.piece().empty());
  EXPECT_NO_THROW(batch.commit(0));
  EXPECT_THROW(batch.commit(1), InvalidInput);
  EXPECT_FALSE(batch.checked_for(cube));
  EXPECT_FALSE(batch.check(cube).has_value()) << "no points, none bad";
  EXPECT_TRUE(batch.checked_for(cube));
  batch.clear();
  EXPECT_EQ(batch.size(), 0u);
}

TEST(DeviceBatch, ACpuOctreeRefusesIt) {
  OctreeConfig c;
  c.backend = Backend::Cpu;
  Octree tree = Octree::create(Bounds{{0, 0, 0}, {1, 1, 1}}, c);
  DeviceBatch batch;
  EXPECT_THROW((void)tree.insert_now(batch), InvalidInput);
}

}  // namespace
}  // namespace simlod
