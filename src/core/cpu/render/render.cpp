// The CPU renderer over a CPU tree store and over snapshots.
#include "core/cpu/render/render.hpp"

#include <algorithm>

#include "core/cpu/tree/store.hpp"

namespace simlod::detail::cpu {
namespace {

/// A store's ReadView as a tree for the renderer.
class CpuTree {
 public:
  explicit CpuTree(const ReadView& view) : view_(view) {}

  [[nodiscard]] std::size_t size() const { return view_.node_count; }
  [[nodiscard]] RenderNode node(std::size_t i) const {
    const CpuNode& n = view_.nodes[i];
    return RenderNode{n.level, n.x, n.y, n.z, n.leaf(), n.count};
  }
  [[nodiscard]] std::uint32_t record_bytes() const { return view_.chunks->record_bytes(); }
  template <class Fn>
  void for_each_run(std::size_t i, Fn fn) const {
    view_.for_each_run(i, fn);
  }

 private:
  ReadView view_;
};

}  // namespace

RenderStats render(const ReadView& tree, const RenderJob& job, Framebuffer& fb) {
  return render_on_cpu(CpuTree(tree), job, fb);
}

RenderStats render(const NodeSnapshot& snapshot, const RenderJob& job, Framebuffer& fb) {
  return render_on_cpu(SnapshotTree(snapshot), job, fb);
}

}  // namespace simlod::detail::cpu
