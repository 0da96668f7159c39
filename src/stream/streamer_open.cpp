// Building a Streamer: sources (files, folders or the synthetic scene), the cube, the plan,
// the octree, the ring and the loader threads.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "io/formats.hpp"
#include "simlod/error.hpp"
#include "simlod/host_batch.hpp"
#include "stream/streamer_impl.hpp"

namespace simlod {
namespace {

unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

void check_config(const StreamConfig& c) {
  if (c.batch_points < 1) throw InvalidInput("stream config: batch_points must be at least 1");
  if (c.cube &&
      (c.cube->empty() || !std::isfinite(c.cube->min[0] + c.cube->max[0] + c.cube->min[1] +
                                         c.cube->max[1] + c.cube->min[2] + c.cube->max[2]))) {
    throw InvalidInput("stream config: the declared cube must be finite and not empty");
  }
  c.color_by.validate();
}

/// Resolves the colouring of a file stream: some file must have its attributes, and an
/// intensity range comes from the files when none is given.
void resolve_coloring(ColorByOptions& c, const std::vector<FileInfo>& files,
                      const std::vector<std::exception_ptr>& errors) {
  if (c.by == ColorBy::File) return;
  const AttributeMask need = attributes_for(c.by);
  std::vector<std::filesystem::path> having;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!errors[i] && (files[i].attributes & need) == need) having.push_back(files[i].path);
  }
  if (having.empty()) {
    throw InvalidInput(fmt::format("cannot colour by {}: none of the {} file(s) has {}",
                                   to_string(c.by), files.size(), attribute_names(need)));
  }
  if (c.by == ColorBy::Intensity && !c.intensity_range) {
    c.intensity_range = sample_intensity_range(having);
  }
}

/// Some file must hold the octree's attribute channels; a file without them fails alone.
void resolve_channels(AttributeMask channels, const std::vector<FileInfo>& files,
                      const std::vector<std::exception_ptr>& errors) {
  if (channels == 0) return;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!errors[i] && (files[i].attributes & channels) == channels) return;
  }
  throw InvalidInput(
      fmt::format("the octree keeps the attribute channels {}, but none of the {} "
                  "file(s) has them all",
                  attribute_names(channels), files.size()));
}

std::uint32_t first_batch(const StreamConfig& c) {
  return c.first_batch_points == 0 ? c.batch_points
                                   : std::min(c.first_batch_points, c.batch_points);
}

/// Cores minus one for LAZ-only streams (decoding bounds them; one core stays with the thread
/// that inserts and renders, whose updates otherwise overran the budget when preempted),
/// minus two otherwise: on the GPU test machine 14 of 16 loaders stream SIM and LAS 8-10%
/// faster than 16 (perf-notes.md).
unsigned default_loaders(const std::vector<FileInfo>& files) {
  const bool laz_only =
      !files.empty() && std::all_of(files.begin(), files.end(),
                                    [](const FileInfo& f) { return f.format == FileFormat::Laz; });
  const unsigned hw = hardware_threads();
  if (hw <= 2) return hw;
  return laz_only ? hw - 1 : hw - 2;
}

/// Batches in the ring. Device slots (CUDA) hold no host memory but two staging pieces, so
/// they get twice the depth: batches published out of order then rarely keep a loader waiting
/// for a slot (docs/perf-notes.md).
unsigned ring_slots(const StreamConfig& c, unsigned loaders, bool cuda) {
  if (c.ring_batches != 0) return c.ring_batches;
  return cuda ? 2 * loaders + 4 : loaders + 4;
}

/// Reads the headers of `paths` on a few threads; failures are kept per file.
void read_headers(const std::vector<std::filesystem::path>& paths, std::vector<FileInfo>& infos,
                  std::vector<std::exception_ptr>& errors) {
  infos.assign(paths.size(), FileInfo{});
  errors.assign(paths.size(), nullptr);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < paths.size(); i = next++) {
      try {
        infos[i] = detail::read_stream_info(paths[i]);
      } catch (...) {
        infos[i].path = paths[i];
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned threads = std::min<std::size_t>(hardware_threads(), paths.size());
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
}

}  // namespace

void Streamer::Impl::start_loading(const Bounds& cube) {
  OctreeConfig oc = config.octree;
  oc.max_batch_points = std::max(oc.max_batch_points, config.batch_points);
  // The loaders need only the octree's cube, so they start before the octree exists: the
  // first batch is read (and its buffer page-locked) while the device memory is reserved.
  // Octree::create() validates the rest of the configuration.
  const Bounds root = Octree::root_cube(cube);
  // The batches of an octree with attribute channels stay on the host, beside their
  // attributes (a DeviceBatch carries points only).
  const bool cuda = oc.channels == 0 && resolve_backend(oc.backend) == Backend::Cuda;

  source_failed.assign(std::max<std::size_t>(1, files.size()), false);
  source_inserted.assign(source_failed.size(), 0);
  const std::size_t units = plan.units.size();
  unsigned threads = config.loader_threads != 0 ? config.loader_threads : default_loaders(files);
  if (generator) threads = 1;
  threads = static_cast<unsigned>(std::clamp<std::size_t>(units, 1, threads));
  const unsigned slots = ring_slots(config, threads, cuda);
  // A CUDA octree gets device slots that the loaders upload as they read; the staging pieces
  // of device slots and the buffers of host slots come from the pinned pool (prepare()).
  ring = std::make_unique<detail::BatchRing>(
      slots, config.batch_points, cuda ? detail::SlotMemory::Device : detail::SlotMemory::Host,
      oc.device);
  loaders_context = std::make_unique<detail::LoaderContext>(plan, *ring, files, open_errors,
                                                            generator.get(), root);
  detail::LoaderContext& ctx = *loaders_context;
  ctx.coloring = config.color_by;
  ctx.channels = config.octree.channels;
  for (const FileInfo& info : files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(info.path, ec);
    ctx.bytes_per_point.push_back(ec || info.point_count == 0
                                      ? 0.0
                                      : static_cast<double>(size) /
                                            static_cast<double>(info.point_count));
  }
  for (unsigned t = 0; t < threads; ++t) {
    loaders.emplace_back([&ctx] { detail::run_loader(ctx); });
  }
  // On failure ~Impl stops the loaders. A CUDA octree reserves address space only and backs
  // it with device memory as it grows, so no reserve has to be guessed from the stream's size.
  octree.emplace(Octree::create(cube, oc));
}

Streamer Streamer::open(const std::vector<std::filesystem::path>& paths,
                        const StreamConfig& config) {
  check_config(config);
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  if (paths.empty()) throw InvalidInput("Streamer::open: no file or folder given");
  const auto files = point_cloud_files(paths);
  read_headers(files, impl->files, impl->open_errors);
  const auto& errors = impl->open_errors;

  Bounds bounds;
  std::vector<detail::PlanSource> sources;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileInfo& info = impl->files[i];
    sources.push_back({info.point_count, info.seek_step, errors[i] != nullptr});
    if (errors[i]) {
      ++failed;
    } else if (info.point_count > 0) {
      bounds.expand(info.bounds);
      impl->points_total += info.point_count;
    }
  }
  if (failed == files.size()) {
    if (files.size() == 1) std::rethrow_exception(errors[0]);
    try {
      std::rethrow_exception(errors[0]);
    } catch (const std::exception& e) {
      throw InvalidInput(fmt::format("none of the {} files could be opened; the first: {}",
                                     files.size(), e.what()));
    }
  }
  impl->bounds = bounds.empty() ? Bounds{{0, 0, 0}, {1, 1, 1}} : bounds;
  resolve_coloring(impl->config.color_by, impl->files, errors);
  resolve_channels(config.octree.channels, impl->files, errors);
  const Bounds cube = config.cube.value_or(impl->bounds);

  impl->plan = detail::make_stream_plan(sources, first_batch(config), config.batch_points);
  impl->start_loading(cube);
  return Streamer(std::move(impl));
}

void Streamer::prepare(const StreamConfig& config) {
  check_config(config);
  if (resolve_backend(config.octree.backend) != Backend::Cuda) return;
  const unsigned loaders = config.loader_threads != 0 ? config.loader_threads : hardware_threads();
  // The staging pieces of the ring's device slots (batch_ring.hpp).
  DeviceBatch::prepare(config.batch_points, ring_slots(config, loaders, true));
}

Streamer Streamer::synthetic(const synth::SceneConfig& scene, const StreamConfig& config) {
  check_config(config);
  if (config.color_by.by != ColorBy::File) {
    throw InvalidInput(fmt::format("cannot colour the synthetic scene by {}: it has no attributes",
                                   to_string(config.color_by.by)));
  }
  if (config.octree.channels != 0) {
    throw InvalidInput(
        fmt::format("the synthetic scene has no attributes for the octree's channels ({})",
                    attribute_names(config.octree.channels)));
  }
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->generator = std::make_unique<synth::Generator>(scene);
  impl->points_total = scene.points;
  impl->plan = detail::make_stream_plan({{scene.points, 0, false}}, first_batch(config),
                                        config.batch_points);
  impl->bounds = impl->generator->bounds();
  impl->start_loading(config.cube.value_or(impl->bounds));
  return Streamer(std::move(impl));
}

}  // namespace simlod
