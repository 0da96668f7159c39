// The dispatch (core/dispatch.hpp): one switch per function, CUDA branches only in builds
// with CUDA.
#include "core/dispatch.hpp"

#include "core/cpu/bulk/bulk.hpp"
#include "core/cpu/render/framebuffer.hpp"
#include "core/cpu/render/render.hpp"
#include "core/cpu/tree/store.hpp"
#include "core/cpu/update/update.hpp"
#include "core/render_job.hpp"
#include "simlod/backend.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw CudaError(std::string("the CUDA ") + what +
                  " is unavailable: simlod was built without CUDA (SIMLOD_CUDA=OFF)");
}

#if SIMLOD_HAS_CUDA
constexpr bool kCuda = true;
#else
constexpr bool kCuda = false;
#endif

void check_device(int device, const char* what) {
  const int count = cuda_device_count();
  if (device < 0 || device >= count) {
    throw InvalidInput(std::string(what) + " = " + std::to_string(device) +
                       " is not a CUDA device (this machine has " + std::to_string(count) + ")");
  }
}

/// A frame queued by render_async() whose statistics were not read yet: read them, so that
/// later work on the framebuffer (which reuses its events) cannot disturb them.
void settle([[maybe_unused]] FramebufferStore& fb) {
#if SIMLOD_HAS_CUDA
  if (fb.cuda && fb.frame_pending) {
    fb.last_frame = cuda::frame_stats(*fb.cuda);
    fb.frame_pending = false;
  }
#endif
}

}  // namespace

TreeStores::TreeStores() = default;
TreeStores::~TreeStores() = default;
TreeStores::TreeStores(TreeStores&&) noexcept = default;
TreeStores& TreeStores::operator=(TreeStores&&) noexcept = default;

TreeStores create_stores(const OctreeConfig& config, const OctreeGeometry& geometry) {
  TreeStores s;
  s.kind = config.backend;
  if (s.kind == Backend::Cuda) {
    if constexpr (!kCuda) no_cuda("octree backend");
    check_device(config.device, "OctreeConfig::device");
#if SIMLOD_HAS_CUDA
    s.cuda = cuda::create_store(config, geometry);
    s.cuda_update = cuda::create_update_state(*s.cuda);
#endif
  } else {
    s.cpu = std::make_unique<cpu::TreeStore>(config, geometry);
    s.cpu_update = std::make_unique<cpu::UpdateScratch>(config.cpu_threads);
  }
  return s;
}

void insert_batch(TreeStores& s, const BatchSource& batch, std::size_t first, std::size_t count,
                  UpdateStats& stats) {
  // The channel records of the points (ChannelLayout::record_bytes each; none without channels).
  const std::size_t stride = batch.records.empty() ? 0 : batch.records.size() / batch.size();
  const auto records = batch.records.subspan(first * stride, count * stride);
#if SIMLOD_HAS_CUDA
  if (s.cuda && batch.device) {
    return cuda::insert_batch(*s.cuda, *s.cuda_update, *batch.device, first, count, stats);
  }
  if (s.cuda) {
    return cuda::insert_batch(*s.cuda, *s.cuda_update, batch.host.subspan(first, count), records,
                              stats);
  }
#endif
  if (batch.device) throw InvalidInput("a DeviceBatch goes only into a CUDA octree");
  cpu::insert_batch(*s.cpu, *s.cpu_update, batch.host.subspan(first, count), records, stats);
}

bool finalize(TreeStores& s, BuildStats& stats) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) {
    if (cuda::recolour_in_place(*s.cuda, stats)) return true;  // an octree with channels
    cuda::Owned<cuda::TreeStore> fresh = cuda::rebuild_for_colours(*s.cuda, stats);
    if (!fresh) return false;
    // The update state keeps its scratch and buffers (the same layout), pointed at the new
    // store; the old store goes.
    if (!cuda::rebind_update_state(*s.cuda_update, *fresh)) {
      cuda::Owned<cuda::UpdateState> state = cuda::create_update_state(*fresh);
      s.cuda_update = std::move(state);  // the old state goes before its store
    }
    s.cuda = std::move(fresh);
    return true;
  }
#endif
  return cpu::finalize_colours(*s.cpu, s.cpu_update->pool, stats);
}

void compact(TreeStores& s, std::uint32_t chunk_capacity) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) {
    cuda::Owned<cuda::TreeStore> fresh = cuda::compact_store(*s.cuda, chunk_capacity);
    s.cuda_update.reset();  // the builder's scratch and buffers go before their store
    s.cuda = std::move(fresh);
    return;
  }
#endif
  cpu::compact(*s.cpu, s.cpu_update->pool, chunk_capacity);
  // The builder's per-node and per-batch buffers go; a fresh, empty scratch keeps the pool.
  s.cpu_update = std::make_unique<cpu::UpdateScratch>(s.cpu->config.cpu_threads);
}

void build_bulk(TreeStores& s, const BatchSource& points, BuildStats& stats) {
#if SIMLOD_HAS_CUDA
  if (s.cuda)
    return cuda::build_bulk(*s.cuda, points.host, points.records, points.device,
                            points.device_points, stats);
#endif
  if (points.device) throw InvalidInput("a DeviceBatch builds only a CUDA octree");
  cpu::build_bulk(*s.cpu, s.cpu_update->pool, points.host, points.records, stats);
}

void prefetch([[maybe_unused]] TreeStores& s, [[maybe_unused]] std::span<const Point> batch) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) cuda::prefetch(*s.cuda, *s.cuda_update, batch);
#endif
}

std::optional<CudaBatchTiming> cuda_batch_timing([[maybe_unused]] const TreeStores& s) {
#if SIMLOD_HAS_CUDA
  if (s.cuda && s.cuda_update) {
    if (const CudaBatchTiming* t = cuda::last_timing(*s.cuda_update)) return *t;
  }
#endif
  return std::nullopt;
}

OctreeStats stats(const TreeStores& s) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) return cuda::stats(*s.cuda);
#endif
  return cpu::stats(*s.cpu);
}

NodeSnapshot snapshot(const TreeStores& s) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) return cuda::snapshot(*s.cuda);
#endif
  return cpu::snapshot(*s.cpu);
}

void for_each_node(const TreeStores& s, const NodeVisitor& visit) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) return cuda::for_each_node(*s.cuda, visit);
#endif
  cpu::for_each_node(*s.cpu, visit);
}

std::uint64_t read_node(const TreeStores& s, std::uint32_t id, std::uint64_t first,
                        std::span<Point> out, PointAttributes* attributes) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) return cuda::read_node(*s.cuda, id, first, out, attributes);
#endif
  return cpu::read_node(*s.cpu, id, first, out, attributes);
}

RenderStats render(const TreeStores& s, const RenderJob& job, FramebufferStore& fb) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) {
    settle(fb);
    cuda::render_async(*s.cuda, job, *fb.cuda, nullptr, false);
    fb.frame_pending = true;
    return frame_stats(fb);
  }
#endif
  fb.last_frame = cpu::render(s.cpu->read(), job, *fb.cpu);
  return fb.last_frame;
}

void render_async(const TreeStores& s, const RenderJob& job, FramebufferStore& fb,
                  [[maybe_unused]] DeviceStream stream) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) {
    settle(fb);
    cuda::render_async(*s.cuda, job, *fb.cuda, stream.handle(), true);
    fb.frame_pending = true;
    return;
  }
#endif
  fb.last_frame = cpu::render(s.cpu->read(), job, *fb.cpu);
}

RenderStats frame_stats(FramebufferStore& fb) {
  settle(fb);
  return fb.last_frame;
}

RenderStats render(const NodeSnapshot& snapshot, const RenderJob& job, FramebufferStore& fb) {
  fb.last_frame = cpu::render(snapshot, job, *fb.cpu);
  return fb.last_frame;
}

void order_after([[maybe_unused]] TreeStores& s, [[maybe_unused]] DeviceStream stream) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) cuda::order_after(*s.cuda, stream.handle());
#endif
}

void signal([[maybe_unused]] const TreeStores& s, [[maybe_unused]] DeviceStream stream) {
#if SIMLOD_HAS_CUDA
  if (s.cuda) cuda::signal(*s.cuda, stream.handle());
#endif
}

FramebufferStore::FramebufferStore(std::uint32_t width_, std::uint32_t height_, Backend backend,
                                   unsigned threads, int device_)
    : kind(backend), width(width_), height(height_), device(device_) {
  if (kind == Backend::Cuda) {
    if constexpr (!kCuda) no_cuda("framebuffer");
    check_device(device, "Framebuffer: cuda_device");
#if SIMLOD_HAS_CUDA
    cuda = cuda::create_framebuffer(width, height, device);
#endif
  } else {
    cpu = std::make_unique<cpu::Framebuffer>(width, height, threads);
  }
}

FramebufferStore::~FramebufferStore() = default;

double resolve(FramebufferStore& fb, const ResolveSettings& settings) {
  settle(fb);
#if SIMLOD_HAS_CUDA
  if (fb.cuda) return cuda::resolve(*fb.cuda, settings);
#endif
  return fb.cpu->resolve(settings);
}

std::vector<std::uint8_t> download(FramebufferStore& fb) {
  settle(fb);
#if SIMLOD_HAS_CUDA
  if (fb.cuda) return cuda::download(*fb.cuda);
#endif
  return fb.cpu->download();
}

std::vector<std::uint64_t> download_words(FramebufferStore& fb) {
  settle(fb);
#if SIMLOD_HAS_CUDA
  if (fb.cuda) return cuda::download_words(*fb.cuda);
#endif
  return fb.cpu->download_words();
}

void wrap_device_rgba8([[maybe_unused]] FramebufferStore& fb, [[maybe_unused]] void* d_pixels,
                       [[maybe_unused]] std::size_t pitch_bytes) {
  settle(fb);
#if SIMLOD_HAS_CUDA
  if (fb.cuda) cuda::wrap_device_rgba8(*fb.cuda, d_pixels, pitch_bytes);
#endif
}

}  // namespace simlod::detail
