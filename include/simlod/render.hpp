// simlod::rasterize: draws an octree into a framebuffer with level of detail.
//
// Node selection (SimLOD): with T the LOD threshold in pixels and size(n) the larger side, in
// pixels, of the screen rectangle around the 8 projected corners of node n (unbounded when a
// corner lies closer than the near plane), a node is drawn when its box intersects the view
// frustum, its parent's size exceeds T (or it is the root), and its own size is at most T (or
// it is a leaf). Leaves contribute their original points, inner nodes their voxels. Projected
// sizes shrink from parent to child, so an inner node is never drawn together with one of its
// children: its voxels never cover a drawn child's octant. Every sample becomes one pixel; per
// pixel the nearest sample wins (64-bit atomic minimum of depth << 32 | rgba).
#pragma once

#include <cstdint>

#include "simlod/device_stream.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/octree.hpp"
#include "simlod/view.hpp"

namespace simlod {

struct RenderStats {
  std::uint64_t nodes = 0;   ///< nodes drawn
  std::uint64_t leaves = 0;  ///< of them leaves
  std::uint64_t points = 0;  ///< original points of the drawn leaves
  std::uint64_t voxels = 0;  ///< voxels of the drawn inner nodes
  float threshold = 0.0f;    ///< the LOD threshold used (raised by a point budget)
  /// Duration of the node selection, the splatting (both passes in High quality), the resolve,
  /// and the whole call. CUDA: measured with events on the device; CPU: wall clock.
  double select_ms = 0.0, splat_ms = 0.0, resolve_ms = 0.0, total_ms = 0.0;

  [[nodiscard]] std::uint64_t samples() const { return points + voxels; }
};

/// Clears `fb`, draws `octree` as seen by `view` and resolves the image with the view's
/// background and eye-dome settings. The framebuffer must have the octree's backend and the
/// view's size. Blocks until the image is resolved. Throws InvalidInput for a bad view or a
/// mismatched framebuffer, CudaError when the device fails.
RenderStats rasterize(const Octree& octree, const View& view, Framebuffer& fb);

/// rasterize() for an application that draws with its own CUDA work (e.g. into a wrapped
/// graphics buffer, Framebuffer::wrap_device_rgba8): queues the frame after what was queued on
/// `stream` before the call, and work queued on `stream` afterwards sees the resolved image; the
/// host does not wait. The frame reads the tree as the octree's last batch left it (it waits on
/// the device for that batch), and the octree's next batch waits on the device for the frame.
/// wait_frame() returns its statistics. On the CPU backend the same as rasterize().
void rasterize_async(const Octree& octree, const View& view, Framebuffer& fb, DeviceStream stream);

/// Waits for the last frame drawn into `fb` and returns its statistics (those of the last
/// rasterize() when no rasterize_async() came after it; all zero before the first frame).
RenderStats wait_frame(Framebuffer& fb);

/// The same for a host copy of a tree (Octree::snapshot()), drawn on the CPU: `fb` must be a
/// CPU framebuffer. Lets a snapshot of a CUDA octree be checked against the CUDA renderer.
RenderStats rasterize(const NodeSnapshot& snapshot, const View& view, Framebuffer& fb);

}  // namespace simlod
