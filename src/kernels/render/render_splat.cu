// Renderer, splatting: a block per chunk of the drawn nodes (kernels/render/render_passes.hpp).
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
  for (std::uint32_t e = blockIdx.x; e < total; e += gridDim.x) {
    const uint2 entry = entries[e];
    const uint4* samples = reinterpret_cast<const uint4*>(t.chunk_data(entry.x));
    // The attribute colour modes read the samples' channel records (make_render_job checked
    // that the octree keeps the channel).
    const auto* records = p.color_mode >= kColorIntensity
                              ? reinterpret_cast<const std::uint8_t*>(t.chunk_records(entry.x))
                              : nullptr;
    for (std::uint32_t j = threadIdx.x; j < entry.y; j += blockDim.x) {
      const uint4 v = load_readonly(samples + j);
      const float z = __uint_as_float(v.z);
      const std::uint32_t rgba =
          sample_color(p, z, v.w, records != nullptr ? records + j * t.record_bytes : nullptr);
      std::uint32_t pixel = 0;
      std::uint64_t word = 0;
      if (!project_sample(p, __uint_as_float(v.x), __uint_as_float(v.y), z, rgba, pixel, word)) {
        continue;
      }
      for_each_covered(p, pixel, [&](std::uint32_t px) {
        if constexpr (!kSecond) {
          if (word < words[px]) atomicMin(words + px, static_cast<unsigned long long>(word));
        } else if (blends(word, words[px])) {
          atomicAdd(sums + 2 * std::size_t{px}, static_cast<unsigned long long>(blend_sum0(rgba)));
          atomicAdd(sums + 2 * std::size_t{px} + 1,
                    static_cast<unsigned long long>(blend_sum1(rgba)));
        }
      });
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
