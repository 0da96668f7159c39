// estimate_normals on CUDA against the CPU: the same normals bit for bit (neighbours, PCA and
// the propagated orientation on the device), on the normals' test clouds
// (visibility_scenes.hpp: a sphere, a noisy plane, duplicated points with ties in distance and
// zero normals, two parts, the box, a flat grid), for k = 3, 16 and 128 and both orientations
// (propagated with and without a viewpoint).
#include <gtest/gtest.h>

#include "core/visibility_scenes.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/normals.hpp"

namespace simlod::test {
namespace {

TEST(GpuNormals, SameNormalsAsTheCpu) {
  SIMLOD_REQUIRE_GPU();
  const auto clouds = normal_clouds(9, 6000, 0.0f, 16, 1.0 / 30);
  for (std::size_t s = 0; s < clouds.size(); ++s) {
    for (const std::uint32_t k : {3u, 16u, 128u}) {
      for (const int o : {0, 1, 2}) {
        SCOPED_TRACE(testing::Message() << "scene " << s << ", k " << k << ", orientation " << o);
        NormalParams params;
        params.neighbours = k;
        params.orientation = o == 1 ? NormalOrientation::Viewpoint : NormalOrientation::Propagate;
        if (o < 2) params.viewpoint = std::array<double, 3>{0.1, 0.2, 0.3};
        params.backend = Backend::Cpu;
        const std::vector<Normal> cpu = estimate_normals(clouds[s], params);
        params.backend = Backend::Cuda;
        const std::vector<Normal> gpu = estimate_normals(clouds[s], params);
        ASSERT_EQ(cpu.size(), gpu.size());
        std::size_t zero = 0;
        for (std::size_t i = 0; i < cpu.size(); ++i) {
          ASSERT_EQ(cpu[i], gpu[i]) << "point " << i;
          zero += cpu[i] == Normal{} ? 1 : 0;
        }
        // The scenes have planes to find, but for 3 neighbours among duplicates (one spot).
        if (s != 2 || k > 3) {
          EXPECT_LT(zero, cpu.size() / 2);
        }
      }
    }
  }
}

}  // namespace
}  // namespace simlod::test
