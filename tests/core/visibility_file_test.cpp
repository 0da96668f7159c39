// VisibilityMap::save and load: a round trip gives the same map, and damaged files are refused
// with a message that names the file and what is wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/expect_refused.hpp"
#include "core/visibility_scenes.hpp"
#include "simlod/error.hpp"
#include "simlod/visibility.hpp"

namespace simlod::test {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const char* name) {
  return fs::temp_directory_path() /
         (std::string("simlod-vmap-") + std::to_string(getpid()) + "-" + name);
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_all(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(VisibilityFile, RoundTripGivesTheSameMap) {
  const VisScene s = box_scene(1.0 / 30, 0.13, 1.0 / 60);
  const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {5, 8, 2, Backend::Cpu});
  const fs::path path = temp_file("roundtrip.vmap");
  map.save(path);
  EXPECT_FALSE(fs::exists(path.string() + ".partial-" + std::to_string(getpid())));
  const VisibilityMap back = VisibilityMap::load(path);
  fs::remove(path);
  EXPECT_EQ(back.config().height, 5u);
  EXPECT_EQ(back.config().occluders, 2u);
  ASSERT_EQ(back.nodes().size(), map.nodes().size());
  EXPECT_EQ(std::memcmp(back.nodes().data(), map.nodes().data(),
                        map.nodes().size() * sizeof(VisibilityNode)),
            0);
  ASSERT_EQ(back.leaves().size(), map.leaves().size());
  for (std::size_t l = 0; l < map.leaves().size(); ++l) {
    EXPECT_EQ(back.leaves()[l].centroid, map.leaves()[l].centroid);
    EXPECT_EQ(back.leaves()[l].normal, map.leaves()[l].normal);
    EXPECT_EQ(back.leaves()[l].delta, map.leaves()[l].delta);
  }
  EXPECT_TRUE(std::equal(back.point_order().begin(), back.point_order().end(),
                         map.point_order().begin(), map.point_order().end()));
  const auto leaves = static_cast<std::uint32_t>(map.leaves().size());
  for (std::uint32_t a = 0; a < leaves; ++a) {
    for (std::uint32_t b = a + 1; b < leaves; ++b) ASSERT_EQ(back.visible(a, b), map.visible(a, b));
  }
  for (std::uint32_t n = 0; n < map.nodes().size(); ++n) {
    const auto x = back.links(n), y = map.links(n);
    ASSERT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << n;
  }
  EXPECT_EQ(back.stats().visible_pairs, map.stats().visible_pairs);
  EXPECT_EQ(back.stats().facing_pairs, map.stats().facing_pairs);
  EXPECT_EQ(back.stats().links_per_level, map.stats().links_per_level);
  for (const auto& eye :
       {std::array<double, 3>{0.5, 0.5, 0.7}, std::array<double, 3>{0, 0.5, 0.5}}) {
    EXPECT_EQ(back.visible_points(eye), map.visible_points(eye));
  }
  for (std::uint32_t i = 0; i < s.points.size(); i += 97) {
    EXPECT_EQ(back.leaf_of_point(i), map.leaf_of_point(i));
  }
}

TEST(VisibilityFile, DamagedFilesAreRefused) {
  const VisScene s = box_scene(1.0 / 10, 0.13);
  const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {3, 4, 1, Backend::Cpu});
  const fs::path path = temp_file("good.vmap"), damaged = temp_file("damaged.vmap");
  map.save(path);
  const std::string good = read_all(path);
  fs::remove(path);
  auto with = [&](std::string bytes, const char* says) {
    write_all(damaged, bytes);
    expect_refused([&] { (void)VisibilityMap::load(damaged); }, says);
  };
  std::string b = good;
  b[0] = 'X';
  with(b, "no SLVMAP magic");
  b = good;
  b[7] = 9;
  with(b, "version 9");
  with(good.substr(0, good.size() - 4), "bytes where its header makes");
  with(good.substr(0, 50), "is truncated");
  b = good;
  // The first node (after the 112-byte header and depth + 1 level counts): first_child at 20.
  const std::size_t node0 = 112 + 8 * (map.stats().depth + 1);
  const std::uint32_t far = 0xFFFFFF00u;
  std::memcpy(b.data() + node0 + 20, &far, 4);
  with(b, "node 0");
  // The other sections' indices, by the layout of docs/file-formats.md.
  const VisibilityStats st = map.stats();
  const std::size_t leaves0 = node0 + 72 * st.nodes;
  const std::size_t order0 = leaves0 + 64 * st.leaves;
  const std::size_t matrix0 = order0 + 4 * st.points;
  const std::size_t offsets0 = matrix0 + 8 * ((st.leaf_pairs + 63) / 64);
  const std::size_t targets0 = offsets0 + 8 * (st.nodes + 1);
  ASSERT_EQ(targets0 + 4 * 2 * st.links, good.size());
  const auto put32 = [](std::string& bytes, std::size_t at, std::uint32_t v) {
    std::memcpy(bytes.data() + at, &v, 4);
  };
  b = good;
  put32(b, leaves0 + 64, 0);  // leaf 1 names node 0, the root
  with(b, "leaf 1 names node 0");
  b = good;
  put32(b, order0 + 4 * 5, static_cast<std::uint32_t>(st.points));
  with(b, ("the point order names point " + std::to_string(st.points)).c_str());
  b = good;
  const std::uint64_t one = 1;
  std::memcpy(b.data() + offsets0, &one, 8);  // the first offset must be 0
  with(b, "link offsets do not add up");
  b = good;
  const std::uint64_t beyond = 2 * st.links + 1;  // node 0's offsets past node 1's
  std::memcpy(b.data() + offsets0 + 8, &beyond, 8);
  with(b, "the link offsets fall at node");
  b = good;
  put32(b, targets0 + 4, static_cast<std::uint32_t>(st.nodes));
  with(b, ("a link names node " + std::to_string(st.nodes) + " of " + std::to_string(st.nodes))
              .c_str());
  b = good;
  const std::uint64_t too_many = std::uint64_t{1} << 40;
  std::memcpy(b.data() + 32, &too_many, 8);  // nodes
  with(b, "header's counts are out of range");
  b = good;
  const std::uint64_t words = (st.leaf_pairs + 63) / 64 + 1;
  std::memcpy(b.data() + 56, &words, 8);
  with(b, "leaf matrix has the wrong size");
  b = good;
  const double no_edge = 0.0;
  std::memcpy(b.data() + 88, &no_edge, 8);  // the cube's edge
  with(b, "is not a cube");
  fs::remove(damaged);
  EXPECT_THROW((void)VisibilityMap::load(temp_file("missing.vmap")), IoError);
}

}  // namespace
}  // namespace simlod::test
