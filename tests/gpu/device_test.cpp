// Runs on the GPU test machine (ctest label "gpu"); skips where no device exists.
#include <gtest/gtest.h>

#include "simlod/backend.hpp"

namespace simlod {
namespace {

TEST(GpuDevice, AutoSelectsCudaWhenADeviceExists) {
  if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA";
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_unavailable_reason();
  EXPECT_EQ(resolve_backend(Backend::Auto), Backend::Cuda);
  EXPECT_EQ(resolve_backend(Backend::Cuda), Backend::Cuda);
  EXPECT_TRUE(cuda_unavailable_reason().empty());
  const std::string d = cuda_device_description();
  EXPECT_NE(d.find("compute capability"), std::string::npos) << d;
  std::cout << "device: " << d << "\n";
}

}  // namespace
}  // namespace simlod
