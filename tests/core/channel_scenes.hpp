// Scenes for the attribute-channel tests: points that carry their index in their colour, so
// that every stored sample names its source, and attributes that are a function of the index.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "core/channels.hpp"
#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/attributes.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/octree.hpp"
#include "simlod/point.hpp"

namespace simlod::test {

/// Point i carries its index in its colour (24 bits), so every stored sample names its source.
inline std::uint32_t index_rgba(std::size_t i) {
  return pack_rgba(i & 255u, (i >> 8) & 255u, (i >> 16) & 255u, 255);
}
inline std::size_t index_of(std::uint32_t rgba) { return rgba & 0xFFFFFFu; }
/// `points` with point i coloured index_rgba(i).
inline std::vector<Point> indexed(std::vector<Point> points) {
  for (std::size_t i = 0; i < points.size(); ++i) points[i].rgba = index_rgba(i);
  return points;
}

/// Every attribute of point i, a function of i.
inline PointAttributes make_attributes(std::size_t n) {
  PointAttributes a;
  a.resize(kAllAttributes, n);
  for (std::size_t i = 0; i < n; ++i) {
    a.intensity[i] = static_cast<std::uint16_t>(i * 2654435761u >> 16);
    a.return_number[i] = static_cast<std::uint8_t>(1 + i % 4);
    a.number_of_returns[i] = static_cast<std::uint8_t>(1 + (i / 4) % 4);
    a.classification[i] = static_cast<std::uint8_t>(i % 23);
    a.classification_flags[i] = static_cast<std::uint8_t>(i % 16);
    a.scanner_channel[i] = static_cast<std::uint8_t>(i % 4);
    a.scan_flags[i] = static_cast<std::uint8_t>(i % 3);
    a.scan_angle[i] = static_cast<float>(i % 181) - 90.0f;
    a.user_data[i] = static_cast<std::uint8_t>(i * 7);
    a.point_source_id[i] = static_cast<std::uint16_t>(i / 1000);
    a.gps_time[i] = 1e8 + static_cast<double>(i) * 0.25;
    a.nir[i] = static_cast<std::uint16_t>(i * 31);
  }
  return a;
}

/// The attributes of `mask` of points [at, at + n) of `all` (arrays from 0).
inline PointAttributes slice_attributes(const PointAttributes& all, std::size_t at, std::size_t n,
                                        AttributeMask mask) {
  const detail::ChannelLayout layout = detail::channel_layout(mask);
  std::vector<std::byte> records(n * layout.record_bytes);
  detail::pack_records(all, layout, at, n, records.data());
  PointAttributes out;
  detail::unpack_records(records.data(), n, layout, out);
  return out;
}

struct Built {
  Octree tree;
  std::vector<Point> points;
  PointAttributes attributes;
};

/// The CPU octree of the channel tests: leaves of `leaf` points, chunks of 100 samples.
inline OctreeConfig channel_config(Sampling sampling, AttributeMask mask, unsigned threads = 0,
                                   std::uint32_t leaf = 1000) {
  return {.backend = Backend::Cpu,
          .max_points_per_leaf = leaf,
          .chunk_capacity = 100,
          .cpu_threads = threads,
          .sampling = sampling,
          .channels = mask};
}

/// The synthetic scene's points, coloured by index, inserted in batches with channels `mask`
/// (CPU backend).
inline Built build(std::size_t n, AttributeMask mask, std::size_t batch, std::uint32_t leaf = 1000,
                   unsigned threads = 0, Sampling sampling = Sampling::FirstCome) {
  const Scene& scene = random_scene(n, 3);
  Built b{Octree::create(scene.bounds, channel_config(sampling, mask, threads, leaf)),
          indexed(scene.points), make_attributes(n)};
  for (std::size_t begin = 0; begin < n; begin += batch) {
    const std::size_t k = std::min(batch, n - begin);
    b.tree.insert(std::span(b.points).subspan(begin, k),
                  slice_attributes(b.attributes, begin, k, mask));
    b.tree.update();
  }
  return b;
}

/// Compares sample j of `got` with point i of `want`, attribute by attribute.
inline void expect_same(const PointAttributes& got, std::size_t j, const PointAttributes& want,
                        std::size_t i, AttributeMask mask) {
  const detail::ChannelLayout layout = detail::channel_layout(mask);
  std::vector<std::byte> a(layout.record_bytes), b(layout.record_bytes);
  detail::pack_records(got, layout, j, 1, a.data());
  detail::pack_records(want, layout, i, 1, b.data());
  EXPECT_EQ(a, b) << "sample " << j << " against point " << i;
}

/// Every sample of `s` carries the attributes (of `mask`) of the point its colour names: a leaf
/// point its own, a voxel those of the sample whose colour it took. Returns the leaf points.
inline std::size_t expect_channels_follow_colours(const NodeSnapshot& s, const PointAttributes& all,
                                                  AttributeMask mask) {
  std::size_t stored = 0;
  for (std::size_t k = 0; k < s.nodes.size(); ++k) {
    const auto& node = s.nodes[k];
    const auto& samples = node.leaf ? node.points : node.voxels;
    for (std::size_t a = 0; a < kAttributeCount; ++a) {
      if (!has_attribute(mask, static_cast<Attribute>(a))) continue;
      EXPECT_EQ(node.attributes.size_of(static_cast<Attribute>(a)), samples.size()) << "node " << k;
    }
    for (std::size_t j = 0; j < samples.size(); ++j) {
      expect_same(node.attributes, j, all, index_of(samples[j].rgba), mask);
    }
    stored += node.leaf ? samples.size() : 0;
  }
  return stored;
}

/// Every voxel of `a` has its twin in `b` (the node of the same level and position, the voxel
/// at the same place) with the same colour and channel record, whatever the nodes' and voxels'
/// order. Returns the voxels compared.
inline std::size_t expect_same_voxel_records(const NodeSnapshot& a, const NodeSnapshot& b,
                                             AttributeMask mask) {
  using Place = std::tuple<float, float, float>;
  const detail::ChannelLayout layout = detail::channel_layout(mask);
  const auto records = [&](const NodeSnapshot::Node& n) {
    std::map<Place, std::pair<std::uint32_t, std::vector<std::byte>>> out;
    for (std::size_t j = 0; j < n.voxels.size(); ++j) {
      std::vector<std::byte> r(layout.record_bytes);
      detail::pack_records(n.attributes, layout, j, 1, r.data());
      out[{n.voxels[j].x, n.voxels[j].y, n.voxels[j].z}] = {n.voxels[j].rgba, std::move(r)};
    }
    return out;
  };
  std::map<NodeKey, std::size_t> in_b;
  for (std::size_t i = 0; i < b.nodes.size(); ++i) in_b[key_of(b.nodes[i])] = i;
  std::size_t voxels = 0;
  for (const auto& na : a.nodes) {
    if (na.leaf) continue;
    const auto it = in_b.find(key_of(na));
    if (it == in_b.end()) {
      ADD_FAILURE() << "an inner node at level " << na.level << " is missing";
      continue;
    }
    const auto ra = records(na), rb = records(b.nodes[it->second]);
    EXPECT_EQ(ra.size(), rb.size()) << "voxels of a node at level " << na.level;
    for (const auto& [place, sample] : ra) {
      const auto twin = rb.find(place);
      if (twin == rb.end()) {
        ADD_FAILURE() << "a voxel at level " << na.level << " is missing";
        continue;
      }
      EXPECT_EQ(sample.first, twin->second.first) << "colour of a voxel at level " << na.level;
      EXPECT_EQ(sample.second, twin->second.second) << "record of a voxel at level " << na.level;
      ++voxels;
    }
  }
  return voxels;
}

/// The node reader gives every node's samples and channels as the snapshot does, read in
/// pieces of `piece` samples.
inline void expect_reader_matches_snapshot(const Octree& tree, const NodeSnapshot& s,
                                           AttributeMask mask, std::size_t piece = 37) {
  std::vector<Point> buffer(piece);
  for (std::uint32_t id = 0; id < s.nodes.size(); ++id) {
    const auto& node = s.nodes[id];
    const auto& samples = node.leaf ? node.points : node.voxels;
    std::vector<Point> points;
    PointAttributes all, part;
    std::uint64_t k = 0;
    for (std::uint64_t at = 0; (k = tree.read_node(id, buffer, at, part)) > 0; at += k) {
      points.insert(points.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(k));
      all.copy_from(part, k, at, mask);
    }
    ASSERT_EQ(points.size(), samples.size()) << "node " << id;
    for (std::size_t j = 0; j < samples.size(); ++j) {
      ASSERT_EQ(points[j].rgba, samples[j].rgba) << "node " << id << " sample " << j;
      expect_same(all, j, node.attributes, j, mask);
    }
  }
}

/// Sampling::Random's ties: `copies` points at each position of the synthetic scene, of one
/// colour (index_rgba of the position's number) and each with attributes of its own (point
/// copies * k + c has make_attributes' values of that index).
inline std::vector<Point> tied_points(std::size_t positions, std::size_t copies) {
  const std::vector<Point>& scene = random_scene(positions, 11).points;
  std::vector<Point> out;
  out.reserve(positions * copies);
  for (std::size_t k = 0; k < positions; ++k) {
    for (std::size_t c = 0; c < copies; ++c) {
      out.push_back(scene[k]);
      out.back().rgba = index_rgba(k);
    }
  }
  return out;
}

/// Every voxel of `s` (a Random tree of tied_points()) carries, of the copies at the position
/// its colour names, the record with the largest detail::record_digest(). Returns the voxels.
inline std::size_t expect_ties_go_to_largest_digest(const NodeSnapshot& s,
                                                    const PointAttributes& all, AttributeMask mask,
                                                    std::size_t copies) {
  const detail::ChannelLayout layout = detail::channel_layout(mask);
  std::vector<std::byte> record(layout.record_bytes);
  std::size_t voxels = 0;
  for (const auto& node : s.nodes) {
    for (std::size_t j = 0; j < node.voxels.size(); ++j, ++voxels) {
      const std::size_t first = index_of(node.voxels[j].rgba) * copies;
      std::size_t want = first;
      std::uint64_t best = 0;
      for (std::size_t i = first; i < first + copies; ++i) {
        detail::pack_records(all, layout, i, 1, record.data());
        const std::uint64_t d = detail::record_digest(
            reinterpret_cast<const std::uint8_t*>(record.data()), layout.record_bytes);
        if (d > best) {
          best = d;
          want = i;
        }
      }
      expect_same(node.attributes, j, all, want, mask);
    }
  }
  return voxels;
}

}  // namespace simlod::test
