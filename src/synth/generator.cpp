// simlod::synth::Generator: the public face of the synthetic scene generator (src/synth/).
#include "simlod/synth.hpp"
#include "synth/parallel.hpp"
#include "synth/stream.hpp"

namespace simlod::synth {

struct Generator::Impl {
  explicit Impl(const SceneConfig& config) : threads(config.threads), stream(config) {}
  unsigned threads;
  detail::PointStream stream;
};

Generator::Generator(const SceneConfig& config) {
  const detail::WorkerScope scope(config.threads);  // planning runs loops too
  impl_ = std::make_unique<Impl>(config);
}
Generator::~Generator() = default;
Generator::Generator(Generator&&) noexcept = default;
Generator& Generator::operator=(Generator&&) noexcept = default;

Bounds Generator::bounds() const { return impl_->stream.bounds(); }

std::uint64_t Generator::points_left() const {
  return impl_->stream.total() - impl_->stream.generated();
}

std::uint64_t Generator::points_generated() const { return impl_->stream.generated(); }

std::size_t Generator::next(std::span<Point> out) {
  const detail::WorkerScope scope(impl_->threads);
  return impl_->stream.next(out);
}

std::size_t Generator::next(std::span<Point> out, std::span<std::uint8_t> classes) {
  const detail::WorkerScope scope(impl_->threads);
  return impl_->stream.next(out, classes);
}

double Generator::ground_height(double x, double y) const {
  return impl_->stream.ground_height(x, y);
}

double Generator::water_level() const { return impl_->stream.water_level(); }

}  // namespace simlod::synth
