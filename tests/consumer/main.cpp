// Uses the installed public headers and library: generate a scene, write it, read it back.
#include <cstdio>
#include <simlod/simlod.hpp>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  simlod::synth::Generator gen({.points = 5000, .seed = 3});
  std::vector<simlod::Point> points(5000);
  if (gen.next(points) != points.size()) return 1;
  {
    auto writer = simlod::create_writer(argv[1]);
    writer->write(points);
    writer->close();
  }
  auto reader = simlod::open_reader(argv[1], {.origin = std::array<double, 3>{0, 0, 0}});
  std::vector<simlod::Point> back(points.size());
  if (reader->read(back) != back.size() || back != points) {
    std::fprintf(stderr, "round trip through %s changed the points\n", argv[1]);
    return 1;
  }
  std::printf(
      "consumer ok: %zu points, backend %s\n", back.size(),
      std::string(simlod::to_string(simlod::resolve_backend(simlod::Backend::Auto))).c_str());
  return 0;
}
