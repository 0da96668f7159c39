// Render time (simlod::rasterize) at 1920x1080: a synthetic scene in scan order built into an
// octree once, drawn from an overview and a close-up camera, with LOD (threshold 128 px, the
// voxel grid) and brute force (threshold 0: every original point in the frustum), plus the
// high-quality and eye-dome variants of the overview, and the colour modes that read attribute
// channels (a second tree keeps intensity and classification: the generator's ground-truth
// classes, and an intensity made up from height and position) next to rgb on that tree, and
// *_quantized runs on a third tree whose leaves hold PointEncoding::Quantized16 points, and
// *_compact runs on the first (or the third) tree finished by Octree::compact() (*_compact256:
// the quantised tree with the Float32 default capacity, 409 points a chunk, not 512). CUDA
// times come from events around the device work; CPU times from the host clock. Each benchmark
// renders 5 warm-up frames, then kFrames timed frames, and reports the median.
//
//   SIMLOD_BENCH_POINTS      points of the CUDA tree (default 100,000,000)
//   SIMLOD_BENCH_CPU_POINTS  points of the CPU tree (default 10,000,000)
//
// Counters: median_ms (select + splat + resolve), select_ms / splat_ms / resolve_ms (medians),
// max_ms, samples (points + voxels drawn), nodes drawn, Gsamples_per_s = samples / median.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "bench_env.hpp"
#include "common/views.hpp"
#include "simlod/attributes.hpp"
#include "simlod/render.hpp"
#include "simlod/synth.hpp"

namespace {

using simlod::bench::env_points;

using simlod::Backend;
using simlod::Point;

constexpr std::uint32_t kWidth = 1920, kHeight = 1080;
constexpr int kWarmup = 5, kFrames = 21;

struct Tree {
  std::unique_ptr<simlod::Octree> octree;
  simlod::Bounds box;  ///< the scene in octree coordinates
};

constexpr simlod::AttributeMask kChannels =
    simlod::attribute_bit(simlod::Attribute::Intensity) |
    simlod::attribute_bit(simlod::Attribute::Classification);

/// The octree of `n` scan-ordered synthetic points on `backend`, built once; with `channels`,
/// keeping kChannels; with `quantized`, its leaves holding PointEncoding::Quantized16 points;
/// with a `compact_capacity`, finished by Octree::compact(compact_capacity).
Tree& tree(Backend backend, std::uint64_t n, bool channels, bool quantized,
           std::uint32_t compact_capacity) {
  static std::map<std::tuple<int, bool, bool, std::uint32_t>, Tree> cache;
  const std::tuple key{static_cast<int>(backend), channels, quantized, compact_capacity};
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  simlod::synth::Generator gen({.points = n, .seed = 1});
  simlod::OctreeConfig config;
  config.backend = backend;
  config.channels = channels ? kChannels : 0;
  config.point_encoding =
      quantized ? simlod::PointEncoding::Quantized16 : simlod::PointEncoding::Float32;
  Tree t;
  t.octree = std::make_unique<simlod::Octree>(simlod::Octree::create(gen.bounds(), config));
  const auto& lo = t.octree->cube().min;
  std::vector<Point> batch(1'000'000);
  simlod::PointAttributes attributes;
  attributes.resize(kChannels, batch.size());
  for (std::size_t got; (got = gen.next(batch, attributes.classification)) > 0;) {
    for (std::size_t i = 0; i < got; ++i) {
      // Brighter with height, with a speckle from the position.
      const auto speckle = static_cast<std::uint32_t>(
          static_cast<std::int64_t>(batch[i].x * 7919.0 + batch[i].y * 104729.0) & 0xFFFFFF);
      attributes.intensity[i] = static_cast<std::uint16_t>(
          std::clamp(batch[i].z - gen.bounds().min[2], 0.0, 40.0) * 1200.0 + (speckle % 16000));
      batch[i].x = static_cast<float>(batch[i].x - lo[0]);
      batch[i].y = static_cast<float>(batch[i].y - lo[1]);
      batch[i].z = static_cast<float>(batch[i].z - lo[2]);
      t.box.expand(batch[i].x, batch[i].y, batch[i].z);
    }
    if (channels) {
      t.octree->insert(std::span(batch).first(got), attributes);
    } else {
      t.octree->insert(std::span(batch).first(got));
    }
    t.octree->update();
  }
  if (compact_capacity != 0) t.octree->compact(compact_capacity);
  return cache.emplace(key, std::move(t)).first->second;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Case {
  const char* view;
  float threshold;
  simlod::RenderQuality quality = simlod::RenderQuality::Fast;
  bool edl = false;
  simlod::ColorMode color = simlod::ColorMode::Rgb;
  bool channels = false;   ///< the tree with kChannels (implied by an attribute colour)
  bool quantized = false;  ///< the tree with Quantized16 leaf points
  /// The tree finished by Octree::compact() with chunks of this capacity (0: not finished).
  std::uint32_t compact_capacity = 0;
};

void render(benchmark::State& state, Backend backend, Case c) {
  if (backend == Backend::Cuda && simlod::cuda_device_count() == 0) {
    state.SkipWithError(("no CUDA device: " + simlod::cuda_unavailable_reason()).c_str());
    return;
  }
  const std::uint64_t n = backend == Backend::Cuda
                              ? env_points("SIMLOD_BENCH_POINTS", 100'000'000)
                              : env_points("SIMLOD_BENCH_CPU_POINTS", 10'000'000);
  Tree& t = tree(backend, n, c.channels || c.color != simlod::ColorMode::Rgb, c.quantized,
                 c.compact_capacity);
  simlod::View view = simlod::examples::named_view(c.view, t.box, kWidth, kHeight);
  view.lod_threshold = c.threshold;
  view.quality = c.quality;
  view.eye_dome_lighting = c.edl;
  view.color = c.color;
  view.intensity_range = {0.0f, 65535.0f};
  simlod::Framebuffer fb(kWidth, kHeight, backend);
  for (int i = 0; i < kWarmup; ++i) simlod::rasterize(*t.octree, view, fb);
  for (auto _ : state) {
    std::vector<double> total, select, splat, resolve;
    simlod::RenderStats last;
    for (int i = 0; i < kFrames; ++i) {
      last = simlod::rasterize(*t.octree, view, fb);
      total.push_back(last.total_ms);
      select.push_back(last.select_ms);
      splat.push_back(last.splat_ms);
      resolve.push_back(last.resolve_ms);
    }
    const double med = median(total);
    state.SetIterationTime(med / 1000.0);
    state.counters["median_ms"] = med;
    state.counters["max_ms"] = *std::max_element(total.begin(), total.end());
    state.counters["select_ms"] = median(select);
    state.counters["splat_ms"] = median(splat);
    state.counters["resolve_ms"] = median(resolve);
    state.counters["samples"] = static_cast<double>(last.samples());
    state.counters["nodes"] = static_cast<double>(last.nodes);
    state.counters["Gsamples_per_s"] = static_cast<double>(last.samples()) / (med * 1e6);
    state.counters["tree_points"] = static_cast<double>(n);
  }
}

using Q = simlod::RenderQuality;
using C = simlod::ColorMode;
/// compact()'s default chunk capacities: Float32 leaves; Quantized16 leaves (512 points a
/// chunk). The *_compact256 runs give quantised leaves the Float32 one (409 points a chunk).
constexpr std::uint32_t kCompact = simlod::kCompactChunkCapacity,
                        kCompactQ = simlod::kCompactChunkCapacityQuantized;

#define SIMLOD_RENDER_BENCH(backend, name, ...)                                    \
  BENCHMARK_CAPTURE(render, backend##_##name, Backend::backend, Case{__VA_ARGS__}) \
      ->Iterations(1)                                                              \
      ->UseManualTime()                                                            \
      ->Unit(benchmark::kMillisecond)

SIMLOD_RENDER_BENCH(Cuda, overview_lod, "overview", 128.0f);
SIMLOD_RENDER_BENCH(Cuda, overview_brute, "overview", 0.0f);
SIMLOD_RENDER_BENCH(Cuda, closeup_lod, "closeup", 128.0f);
SIMLOD_RENDER_BENCH(Cuda, closeup_brute, "closeup", 0.0f);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_hq, "overview", 128.0f, Q::High);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_edl, "overview", 128.0f, Q::Fast, true);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_channels_rgb, "overview", 128.0f, Q::Fast, false, C::Rgb,
                    true);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_intensity, "overview", 128.0f, Q::Fast, false, C::Intensity);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_classification, "overview", 128.0f, Q::Fast, false,
                    C::Classification);
SIMLOD_RENDER_BENCH(Cuda, closeup_lod_intensity, "closeup", 128.0f, Q::Fast, false, C::Intensity);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_quantized, "overview", 128.0f, Q::Fast, false, C::Rgb, false,
                    true);
SIMLOD_RENDER_BENCH(Cuda, overview_brute_quantized, "overview", 0.0f, Q::Fast, false, C::Rgb, false,
                    true);
SIMLOD_RENDER_BENCH(Cuda, closeup_lod_quantized, "closeup", 128.0f, Q::Fast, false, C::Rgb, false,
                    true);
SIMLOD_RENDER_BENCH(Cuda, closeup_brute_quantized, "closeup", 0.0f, Q::Fast, false, C::Rgb, false,
                    true);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_compact, "overview", 128.0f, Q::Fast, false, C::Rgb, false,
                    false, kCompact);
SIMLOD_RENDER_BENCH(Cuda, overview_brute_compact, "overview", 0.0f, Q::Fast, false, C::Rgb, false,
                    false, kCompact);
SIMLOD_RENDER_BENCH(Cuda, closeup_lod_compact, "closeup", 128.0f, Q::Fast, false, C::Rgb, false,
                    false, kCompact);
SIMLOD_RENDER_BENCH(Cuda, closeup_brute_compact, "closeup", 0.0f, Q::Fast, false, C::Rgb, false,
                    false, kCompact);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_quantized_compact, "overview", 128.0f, Q::Fast, false,
                    C::Rgb, false, true, kCompactQ);
SIMLOD_RENDER_BENCH(Cuda, closeup_lod_quantized_compact, "closeup", 128.0f, Q::Fast, false, C::Rgb,
                    false, true, kCompactQ);
SIMLOD_RENDER_BENCH(Cuda, overview_brute_quantized_compact, "overview", 0.0f, Q::Fast, false,
                    C::Rgb, false, true, kCompactQ);
SIMLOD_RENDER_BENCH(Cuda, closeup_brute_quantized_compact, "closeup", 0.0f, Q::Fast, false, C::Rgb,
                    false, true, kCompactQ);
SIMLOD_RENDER_BENCH(Cuda, overview_lod_quantized_compact256, "overview", 128.0f, Q::Fast, false,
                    C::Rgb, false, true, kCompact);
SIMLOD_RENDER_BENCH(Cuda, closeup_lod_quantized_compact256, "closeup", 128.0f, Q::Fast, false,
                    C::Rgb, false, true, kCompact);
SIMLOD_RENDER_BENCH(Cuda, overview_brute_quantized_compact256, "overview", 0.0f, Q::Fast, false,
                    C::Rgb, false, true, kCompact);
SIMLOD_RENDER_BENCH(Cuda, closeup_brute_quantized_compact256, "closeup", 0.0f, Q::Fast, false,
                    C::Rgb, false, true, kCompact);
SIMLOD_RENDER_BENCH(Cpu, overview_lod, "overview", 128.0f);
SIMLOD_RENDER_BENCH(Cpu, overview_brute, "overview", 0.0f);
SIMLOD_RENDER_BENCH(Cpu, closeup_lod, "closeup", 128.0f);
SIMLOD_RENDER_BENCH(Cpu, closeup_brute, "closeup", 0.0f);
SIMLOD_RENDER_BENCH(Cpu, overview_lod_compact, "overview", 128.0f, Q::Fast, false, C::Rgb, false,
                    false, kCompact);
SIMLOD_RENDER_BENCH(Cpu, overview_brute_compact, "overview", 0.0f, Q::Fast, false, C::Rgb, false,
                    false, kCompact);
SIMLOD_RENDER_BENCH(Cpu, overview_lod_channels_rgb, "overview", 128.0f, Q::Fast, false, C::Rgb,
                    true);
SIMLOD_RENDER_BENCH(Cpu, overview_lod_intensity, "overview", 128.0f, Q::Fast, false, C::Intensity);
SIMLOD_RENDER_BENCH(Cpu, overview_lod_classification, "overview", 128.0f, Q::Fast, false,
                    C::Classification);

}  // namespace

BENCHMARK_MAIN();
