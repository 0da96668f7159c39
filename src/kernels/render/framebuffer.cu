// The CUDA framebuffer: buffers, clearing, the resolve kernel and downloads.
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/render/framebuffer.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr int kResolveBlockX = 32, kResolveBlockY = 8;

DeviceMemory device_buffer(std::uint64_t bytes, const char* what) {
  return make_device(bytes, std::string("the framebuffer's ") + what);
}

/// A thread per pixel: background or eye-dome silhouette, nearest colour or blended mean,
/// eye-dome shading (resolve_pixel, the CPU resolve's function; the offsets come precomputed in
/// `s`).
__global__ void resolve_kernel(const unsigned long long* words, const unsigned long long* sums,
                               std::uint32_t width, std::uint32_t height, ResolveSettings s,
                               std::uint8_t* target, std::size_t pitch) {
  const std::uint32_t col = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= width || row >= height) return;
  const std::uint32_t out = resolve_pixel(reinterpret_cast<const std::uint64_t*>(words),
                                          reinterpret_cast<const std::uint64_t*>(sums), width,
                                          height, col, row, s.background, s.eye_dome_lighting,
                                          s.edl_outline, s.edl_strength, s.edl_offsets);
  reinterpret_cast<std::uint32_t*>(target + row * pitch)[col] = out;
}

}  // namespace

Framebuffer::Framebuffer(std::uint32_t width, std::uint32_t height)
    : FramebufferSize(width, height) {
  SIMLOD_CUDA_CHECK(cudaGetDevice(&device_));
  SIMLOD_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device_));
  external_ = make_event(cudaEventDisableTiming);
  words_ = device_buffer(pixels() * 8, "depth buffer");
  rgba_ = device_buffer(pixels() * 4, "image");
  counters_ = device_buffer(sizeof(RenderCounters), "counters");
  counters_host_ = make_pinned(sizeof(RenderCounters));
  stream_ = make_stream();
  cudaStream_t stream = stream_.get();
  for (EventHandle& e : events_) e = make_event();
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(words_.get(), 0xFF, pixels() * 8, stream));
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(rgba_.get(), 0, pixels() * 4, stream));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void Framebuffer::clear(bool blend) {
  cudaStream_t s = stream_.get();
  if (blend && sums_.get() == nullptr) sums_ = device_buffer(pixels() * 16, "colour sums");
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(words_.get(), 0xFF, pixels() * 8, s));
  if (blend) SIMLOD_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, pixels() * 16, s));
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(RenderCounters), s));
  blended_ = blend;
}

void Framebuffer::reserve(std::uint32_t nodes, std::uint32_t chunks) {
  if (nodes <= node_capacity_ && chunks <= chunk_capacity_) return;
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));  // the old scratch may be in use
  if (nodes > node_capacity_) {
    node_capacity_ = nodes + nodes / 2;  // room to grow with the tree
    ranges_ = device_buffer(std::uint64_t{node_capacity_} * sizeof(float2), "node ranges");
  }
  if (chunks > chunk_capacity_) {
    chunk_capacity_ = chunks + chunks / 2;
    entries_ = device_buffer(std::uint64_t{chunk_capacity_} * sizeof(uint2), "chunk list");
  }
}

void Framebuffer::launch_resolve(const ResolveSettings& settings) {
  const dim3 block(kResolveBlockX, kResolveBlockY);
  const dim3 grid((width() + block.x - 1) / block.x, (height() + block.y - 1) / block.y);
  auto* target = static_cast<std::uint8_t*>(wrapped_ != nullptr ? wrapped_ : rgba_.get());
  const std::size_t pitch = wrapped_ != nullptr ? wrapped_pitch_ : std::size_t{width()} * 4;
  resolve_kernel<<<grid, block, 0, stream_.get()>>>(d_words(), blended_ ? d_sums() : nullptr,
                                                    width(), height(), settings, target, pitch);
  SIMLOD_CUDA_CHECK_LAUNCH("resolve_kernel");
}

double Framebuffer::resolve(const ResolveSettings& settings) {
  SIMLOD_CUDA_CHECK(cudaEventRecord(event(0), stream_.get()));
  launch_resolve(settings);
  SIMLOD_CUDA_CHECK(cudaEventRecord(event(1), stream_.get()));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  float ms = 0.0f;
  SIMLOD_CUDA_CHECK(cudaEventElapsedTime(&ms, event(0), event(1)));
  return ms;
}

std::vector<std::uint8_t> Framebuffer::download() const {
  std::vector<std::uint8_t> out(pixels() * 4);
  const void* source = wrapped_ != nullptr ? wrapped_ : rgba_.get();
  const std::size_t pitch = wrapped_ != nullptr ? wrapped_pitch_ : std::size_t{width()} * 4;
  SIMLOD_CUDA_CHECK(cudaMemcpy2DAsync(out.data(), std::size_t{width()} * 4, source, pitch,
                                      std::size_t{width()} * 4, height(), cudaMemcpyDeviceToHost,
                                      stream_.get()));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  return out;
}

std::vector<std::uint64_t> Framebuffer::download_words() const {
  std::vector<std::uint64_t> out(pixels());
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(out.data(), words_.get(), pixels() * 8, cudaMemcpyDeviceToHost,
                                    stream_.get()));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  return out;
}

void Framebuffer::wrap_device_rgba8(void* d_pixels, std::size_t pitch_bytes) {
  wrapped_ = d_pixels;
  wrapped_pitch_ = d_pixels != nullptr ? pitch_bytes : 0;
}

Owned<Framebuffer> create_framebuffer(std::uint32_t width, std::uint32_t height, int device) {
  DeviceScope scope(device);
  return Owned<Framebuffer>(new Framebuffer(width, height), [](Framebuffer* p) { destroy(p); });
}
void destroy(Framebuffer* p) {
  if (p != nullptr) delete_on(p->device(), p);
}
int device_of(const Framebuffer& fb) { return fb.device(); }
double resolve(Framebuffer& fb, const ResolveSettings& settings) {
  DeviceScope scope(fb.device());
  return fb.resolve(settings);
}
std::vector<std::uint8_t> download(const Framebuffer& fb) {
  DeviceScope scope(fb.device());
  return fb.download();
}
std::vector<std::uint64_t> download_words(const Framebuffer& fb) {
  DeviceScope scope(fb.device());
  return fb.download_words();
}
void wrap_device_rgba8(Framebuffer& fb, void* d_pixels, std::size_t pitch_bytes) {
  fb.wrap_device_rgba8(d_pixels, pitch_bytes);
}

}  // namespace simlod::detail::cuda
