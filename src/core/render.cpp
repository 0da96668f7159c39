// simlod::rasterize: checks the view and the framebuffer, then hands the job to the dispatch.
#include "simlod/render.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

#include "core/dispatch.hpp"
#include "core/framebuffer_store.hpp"
#include "core/octree_impl.hpp"
#include "core/render_job.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace detail {

namespace {

/// The channels an attribute colour mode reads: the coloured attribute, then the number of
/// returns for ColorMode::Returns.
std::array<Attribute, 2> mode_attributes(ColorMode mode) {
  switch (mode) {
    case ColorMode::Intensity: return {Attribute::Intensity, Attribute::Intensity};
    case ColorMode::Classification: return {Attribute::Classification, Attribute::Classification};
    case ColorMode::Returns: return {Attribute::ReturnNumber, Attribute::NumberOfReturns};
    default: return {Attribute::PointSourceId, Attribute::PointSourceId};
  }
}

void set_attribute_mode(const View& view, AttributeMask channels, RenderParams& p) {
  const auto [a, b] = mode_attributes(view.color);
  const ChannelLayout layout = channel_layout(channels);
  for (const Attribute need : {a, b}) {
    if (layout.has(need)) continue;
    throw InvalidInput(fmt::format(
        "view: this colour mode needs the octree's attribute channel {}, which it does not keep "
        "(OctreeConfig::channels: {})",
        to_string(need), channels == 0 ? std::string("none") : attribute_names(channels)));
  }
  p.color_mode = kColorIntensity + static_cast<std::uint32_t>(view.color) -
                 static_cast<std::uint32_t>(ColorMode::Intensity);
  p.channel = layout.offset_of(a);
  p.channel_returns = layout.offset_of(b);
  p.intensity_low = view.intensity_range[0];
  p.intensity_span = view.intensity_range[1] - view.intensity_range[0];
  for (std::uint32_t k = 0; k < 256; ++k) {
    const double t = k / 255.0;
    p.grey[k] = static_cast<std::uint8_t>(std::lround(
        (view.intensity_gamma == 1.0f ? t : std::pow(t, view.intensity_gamma)) * 255.0));
  }
}

}  // namespace

RenderJob make_render_job(const View& view, float edge, AttributeMask channels) {
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
  } else if (view.color != ColorMode::Rgb) {
    set_attribute_mode(view, channels, job.params);
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
  const detail::RenderJob job =
      detail::make_render_job(view, impl.geometry.edge, impl.config.channels);
  return detail::render(impl.store, job, store);
}

void rasterize_async(const Octree& octree, const View& view, Framebuffer& fb, DeviceStream stream) {
  detail::OctreeImpl& impl = octree.impl();
  detail::FramebufferStore& store = detail::FramebufferAccess::store(fb);
  detail::check_target(view, store, impl.config);
  const detail::RenderJob job =
      detail::make_render_job(view, impl.geometry.edge, impl.config.channels);
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
    const std::size_t samples = (n.leaf ? n.points : n.voxels).size();
    for (std::size_t a = 0; a < kAttributeCount; ++a) {
      const auto at = static_cast<Attribute>(a);
      if (!has_attribute(snapshot.channels, at) || n.attributes.size_of(at) >= samples) continue;
      throw InvalidInput(
          fmt::format("rasterize: snapshot node {} has {} samples but {} values of its channel {}",
                      i, samples, n.attributes.size_of(at), to_string(at)));
    }
  }
  return detail::render(snapshot, detail::make_render_job(view, edge, snapshot.channels), store);
}

}  // namespace simlod
