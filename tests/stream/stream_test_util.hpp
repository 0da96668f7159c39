// Helpers for Streamer tests: run a stream to its end, and build the reference octree that
// inserts the stream's batches directly (the contract of simlod/stream.hpp).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "simlod/octree.hpp"
#include "simlod/stream.hpp"
#include "simlod/synth.hpp"

namespace simlod::test {

/// A CPU stream making deep trees from few points; one octree thread, so first-come voxel
/// colours are deterministic and trees compare exactly.
inline StreamConfig cpu_stream(std::uint32_t batch, std::uint32_t first = 0) {
  StreamConfig c;
  c.octree.backend = Backend::Cpu;
  c.octree.max_points_per_leaf = 5000;
  c.octree.voxel_grid = 32;
  c.octree.cpu_threads = 1;
  c.batch_points = batch;
  c.first_batch_points = first;
  c.loader_threads = 3;
  return c;
}

/// Runs update() until the stream is done; returns the messages of the errors it threw.
inline std::vector<std::string> stream_to_end(Streamer& streamer,
                                              std::chrono::microseconds budget = {}) {
  std::vector<std::string> errors;
  while (!streamer.done()) {
    try {
      if (streamer.update(budget).batches == 0) streamer.wait(std::chrono::milliseconds{20});
    } catch (const Error& e) {
      errors.emplace_back(e.what());
    }
  }
  return errors;
}

/// The stream's batches read from its files directly (or generated) and inserted one by one
/// into an octree over the same cube with `config`.
inline Octree direct_octree(const Streamer& streamer, const OctreeConfig& config,
                            const synth::SceneConfig* scene = nullptr) {
  Octree tree = Octree::create(streamer.octree().cube(), config);
  const auto origin = tree.cube().min;
  std::unique_ptr<synth::Generator> generator;
  if (scene != nullptr) generator = std::make_unique<synth::Generator>(*scene);
  std::vector<Point> buffer;
  std::size_t open_source = SIZE_MAX;
  std::unique_ptr<PointReader> reader;
  for (const StreamBatch& b : streamer.batches()) {
    if (b.points == 0) continue;
    buffer.resize(b.points);
    if (generator) {
      EXPECT_EQ(generator->next(buffer), b.points);
      for (Point& p : buffer) {
        p.x = static_cast<float>(static_cast<double>(p.x) - origin[0]);
        p.y = static_cast<float>(static_cast<double>(p.y) - origin[1]);
        p.z = static_cast<float>(static_cast<double>(p.z) - origin[2]);
      }
    } else {
      if (open_source != b.source) {
        ReaderOptions options;
        options.origin = origin;
        reader = open_reader(streamer.files()[b.source].path, options);
        open_source = b.source;
      }
      reader->seek(b.first);
      EXPECT_EQ(reader->read(buffer), b.points);
    }
    tree.insert(buffer);
    tree.update();
  }
  return tree;
}

}  // namespace simlod::test
