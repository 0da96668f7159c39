// simlod::rasterize: checks the view and the framebuffer, then hands the job to the dispatch.
#include "simlod/render.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/dispatch.hpp"
#include "core/framebuffer_store.hpp"
#include "core/octree_impl.hpp"
#include "core/render_job.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace detail {

RenderJob make_render_job(const View& view, float edge) {
  view.validate();
  RenderJob job;
  const std::array<float, 16> mvp = view.view_projection();
  for (int i = 0; i < 16; ++i) {
    if (!std::isfinite(mvp[i])) {
      throw InvalidInput(fmt::format("view: projection * view element {} is not finite", i));
    }
    job.params.mvp[i] = mvp[i];
  }
  job.params.width = view.width;
  job.params.height = view.height;
  job.params.half_width = 0.5f * static_cast<float>(view.width);
  job.params.half_height = 0.5f * static_cast<float>(view.height);
  job.params.threshold = view.lod_threshold;
  // A projection whose w does not keep a constant term (perspective) makes w the depth.
  job.params.depth_from_w = view.projection_matrix[15] == 0.0f ? 1u : 0u;
  job.params.edge = edge;
  job.params.point_size = view.point_size;
  if (view.color == ColorMode::Elevation) {
    job.params.color_mode = kColorElevation;
    job.params.z_low = view.elevation_range[0];
    job.params.z_scale = 1.0f / (view.elevation_range[1] - view.elevation_range[0]);
  }
  job.budget = view.point_budget;
  job.blend = view.quality == RenderQuality::High;
  job.resolve = resolve_settings(view.background, view.eye_dome_lighting, view.edl_strength,
                                 view.edl_radius, view.edl_outline);
  return job;
}

namespace {

void check_target(const View& view, FramebufferStore& fb, Backend tree, int device = -1) {
  if (fb.kind != tree) {
    throw InvalidInput(
        fmt::format("rasterize: the framebuffer is on the {} backend, the tree on "
                    "the {} backend",
                    to_string(fb.kind), to_string(tree)));
  }
  if (view.width != fb.width || view.height != fb.height) {
    throw InvalidInput(
        fmt::format("rasterize: view size {} x {} differs from the framebuffer's "
                    "{} x {}",
                    view.width, view.height, fb.width, fb.height));
  }
  if (tree == Backend::Cuda && device >= 0 && fb.device != device) {
    throw InvalidInput(
        fmt::format("rasterize: the framebuffer is on CUDA device {}, the octree on device {}",
                    fb.device, device));
  }
}

void check_target(const View& view, FramebufferStore& fb, const OctreeConfig& tree) {
  check_target(view, fb, tree.backend, tree.device);
}

}  // namespace
}  // namespace detail

RenderStats rasterize(const Octree& octree, const View& view, Framebuffer& fb) {
  detail::OctreeImpl& impl = octree.impl();
  detail::FramebufferStore& store = detail::FramebufferAccess::store(fb);
  detail::check_target(view, store, impl.config);
  const detail::RenderJob job = detail::make_render_job(view, impl.geometry.edge);
  return detail::render(impl.store, job, store);
}

void rasterize_async(const Octree& octree, const View& view, Framebuffer& fb, DeviceStream stream) {
  detail::OctreeImpl& impl = octree.impl();
  detail::FramebufferStore& store = detail::FramebufferAccess::store(fb);
  detail::check_target(view, store, impl.config);
  const detail::RenderJob job = detail::make_render_job(view, impl.geometry.edge);
  detail::render_async(impl.store, job, store, stream);
}

RenderStats wait_frame(Framebuffer& fb) {
  return detail::frame_stats(detail::FramebufferAccess::store(fb));
}

RenderStats rasterize(const NodeSnapshot& snapshot, const View& view, Framebuffer& fb) {
  detail::FramebufferStore& store = detail::FramebufferAccess::store(fb);
  detail::check_target(view, store, Backend::Cpu);
  if (snapshot.nodes.empty()) throw InvalidInput("rasterize: the snapshot has no nodes");
  const Bounds& root = snapshot.nodes[0].bounds;
  const auto edge = static_cast<float>(root.max[0] - root.min[0]);
  if (!(edge > 0.0f) || !std::isfinite(edge)) {
    throw InvalidInput(
        fmt::format("rasterize: the snapshot's root edge {} is not a positive "
                    "finite number",
                    root.max[0] - root.min[0]));
  }
  for (std::size_t i = 0; i < snapshot.nodes.size(); ++i) {
    const auto& n = snapshot.nodes[i];
    const std::uint32_t side = n.level < 31 ? 1u << n.level : 0u;
    if (n.level > 30 || n.position[0] >= side || n.position[1] >= side || n.position[2] >= side) {
      throw InvalidInput(
          fmt::format("rasterize: snapshot node {} has level {} and position "
                      "({}, {}, {}) outside its level's grid",
                      i, n.level, n.position[0], n.position[1], n.position[2]));
    }
  }
  return detail::render(snapshot, detail::make_render_job(view, edge), store);
}

}  // namespace simlod
