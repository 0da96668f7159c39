// The CPU renderer over the CPU backend's chunk lists and over snapshots.
#include "core/cpu_render.hpp"

#include <algorithm>

#include "core/cpu_backend.hpp"

namespace simlod::detail::cpu {
namespace {

class CpuTree {
 public:
  CpuTree(const std::vector<CpuNode>& nodes, const ChunkStore& chunks)
      : nodes_(nodes), chunks_(chunks) {}

  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  [[nodiscard]] RenderNode node(std::size_t i) const {
    const CpuNode& n = nodes_[i];
    return RenderNode{n.level, n.x, n.y, n.z, n.leaf(), n.count};
  }
  template <class Fn>
  void for_each_span(std::size_t i, Fn fn) const {
    std::uint64_t left = nodes_[i].count;
    for (std::uint32_t c = nodes_[i].head; left > 0; c = chunks_.next(c)) {
      const std::uint64_t k = std::min<std::uint64_t>(left, chunks_.capacity());
      fn(chunks_.data(c), static_cast<std::size_t>(k));
      left -= k;
    }
  }

 private:
  const std::vector<CpuNode>& nodes_;
  const ChunkStore& chunks_;
};

}  // namespace

RenderStats CpuBackend::render(const RenderJob& job, FramebufferStore& fb) const {
  return render_on_cpu(CpuTree(nodes_, chunks_), job, static_cast<CpuFramebuffer&>(fb));
}

}  // namespace simlod::detail::cpu

// Declared in core/render.cpp.
namespace simlod::detail {

RenderStats render_snapshot(const NodeSnapshot& snapshot, const RenderJob& job,
                            FramebufferStore& fb) {
  return cpu::render_on_cpu(cpu::SnapshotTree(snapshot), job,
                            static_cast<cpu::CpuFramebuffer&>(fb));
}

}  // namespace simlod::detail
