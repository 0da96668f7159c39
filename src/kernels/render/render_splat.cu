// Renderer, splatting: a block per work-list entry of the drawn nodes, one chunk or a run of a
// compacted store's consecutive chunks (kernels/render/render_passes.hpp).
#include "kernels/common/cuda_check.hpp"
#include "kernels/render/render_passes.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda {
namespace {

template <bool kSecond>
__global__ void __launch_bounds__(kSplatBlock)
    splat_kernel(TreeView t, RenderParams p, const uint2* entries, const RenderCounters* counters,
                 unsigned long long* words, unsigned long long* sums) {
  const std::uint32_t total = counters->entries;
  const std::uint32_t group = entry_chunks(t);
  for (std::uint32_t e = blockIdx.x; e < total; e += gridDim.x) {
    const uint2 entry = entries[e];
    const DeviceNode n = t.d_nodes[entry.y];
    const bool leaf = t.link(entry.y).first_child == kNil;
    const std::uint32_t cap = t.capacity_of(leaf);
    // One chunk, or up to `group` consecutive chunks of the node (a compacted store).
    const std::uint32_t end = group == 1 ? entry.x + 1 : min(entry.x + group, n.tail + 1);
    for (std::uint32_t chunk = entry.x; chunk < end; ++chunk) {
      const std::uint32_t count = chunk == n.tail ? n.count - (n.chunks - 1) * cap : cap;
      const std::byte* base = t.chunk_bytes_of(chunk);
      // The attribute colour modes read the samples' channel records (make_render_job checked
      // that the octree keeps the channel).
      const auto* records = p.color_mode >= kColorIntensity
                                ? reinterpret_cast<const std::uint8_t*>(
                                      leaf ? t.chunk_records(chunk) : t.voxel_records(chunk))
                                : nullptr;
      for (std::uint32_t j = threadIdx.x; j < count; j += blockDim.x) {
        Point s;
        if (leaf && t.leaf_layout.quantized) {
          s = t.leaf_point(chunk, j, n).point;
        } else if (leaf) {
          const uint4 v = load_readonly(reinterpret_cast<const uint4*>(base) + j);
          s = Point{__uint_as_float(v.x), __uint_as_float(v.y), __uint_as_float(v.z), v.w};
        } else {  // a compact voxel: its cell's centre
          const std::uint32_t colour =
              load_readonly(reinterpret_cast<const std::uint32_t*>(base) + j);
          s = voxel_point(n.level, n.x, n.y, n.z, voxel_cell(base, t.voxels, j), voxel_rgba(colour),
                          t.params.grid_bits, t.edge);
        }
        const std::uint32_t rgba = sample_color(
            p, s.z, s.rgba, records != nullptr ? records + j * t.record_bytes : nullptr);
        std::uint32_t pixel = 0;
        std::uint64_t word = 0;
        if (!project_sample(p, s.x, s.y, s.z, rgba, pixel, word)) continue;
        for_each_covered(p, pixel, [&](std::uint32_t px) {
          if constexpr (!kSecond) {
            if (word < words[px]) atomicMin(words + px, static_cast<unsigned long long>(word));
          } else if (blends(word, words[px])) {
            atomicAdd(sums + 2 * std::size_t{px},
                      static_cast<unsigned long long>(blend_sum0(rgba)));
            atomicAdd(sums + 2 * std::size_t{px} + 1,
                      static_cast<unsigned long long>(blend_sum1(rgba)));
          }
        });
      }
    }
  }
}

}  // namespace

void launch_splat(const TreeView& tree, std::uint32_t chunks, const RenderParams& params,
                  bool second_pass, Framebuffer& fb) {
  const auto cap = static_cast<std::uint64_t>(fb.sm_count()) * kSplatBlocksPerSm;
  const unsigned blocks = blocks_for(chunks, 1, cap);
  if (second_pass) {
    splat_kernel<true><<<blocks, kSplatBlock, 0, fb.stream()>>>(
        tree, params, fb.d_entries(), fb.d_counters(), fb.d_words(), fb.d_sums());
  } else {
    splat_kernel<false><<<blocks, kSplatBlock, 0, fb.stream()>>>(
        tree, params, fb.d_entries(), fb.d_counters(), fb.d_words(), fb.d_sums());
  }
  SIMLOD_CUDA_CHECK_LAUNCH("splat_kernel");
}

}  // namespace simlod::detail::cuda
