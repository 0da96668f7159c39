#include "simlod/backend.hpp"

#include <gtest/gtest.h>

#include "simlod/error.hpp"

namespace simlod {
namespace {

TEST(Backend, ParsesAndPrintsNames) {
  for (Backend b : {Backend::Auto, Backend::Cpu, Backend::Cuda}) {
    EXPECT_EQ(parse_backend(to_string(b)), b);
  }
}

TEST(Backend, UnknownNameIsInvalidInputNamingIt) {
  try {
    (void)parse_backend("opencl");
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("'opencl'"), std::string::npos) << e.what();
  }
}

TEST(Backend, CpuIsAlwaysAvailable) { EXPECT_EQ(resolve_backend(Backend::Cpu), Backend::Cpu); }

TEST(Backend, AutoFollowsDeviceAvailability) {
  const Backend expected = cuda_device_count() > 0 ? Backend::Cuda : Backend::Cpu;
  EXPECT_EQ(resolve_backend(Backend::Auto), expected);
}

TEST(Backend, CudaWithoutDeviceIsACudaErrorWithReason) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present on this machine";
  EXPECT_FALSE(cuda_unavailable_reason().empty());
  try {
    (void)resolve_backend(Backend::Cuda);
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find(cuda_unavailable_reason()), std::string::npos);
  }
}

TEST(Backend, ErrorsShareOneBase) {
  EXPECT_THROW(throw CapacityError("full"), Error);
  EXPECT_THROW(throw IoError("io"), Error);
  EXPECT_THROW(throw InvalidInput("bad"), Error);
  EXPECT_THROW(throw CudaError("cuda"), Error);
}

}  // namespace
}  // namespace simlod
