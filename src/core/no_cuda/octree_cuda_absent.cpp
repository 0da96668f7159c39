// The CUDA octree backend of builds without CUDA: requesting it is an error the caller sees.
#include "core/octree_backend.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

std::unique_ptr<OctreeBackend> make_cuda_backend(const OctreeConfig&, const OctreeGeometry&) {
  throw CudaError("the CUDA octree backend is unavailable: simlod was built without CUDA");
}

}  // namespace simlod::detail
