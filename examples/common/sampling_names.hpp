// The voxel colour filters (simlod::Sampling) by the names the example programs take.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod::examples {

/// The voxel colour filters by their command-line names; a new filter is one more line.
inline constexpr std::array<std::pair<std::string_view, simlod::Sampling>, 4> kSamplings{{
    {"first", simlod::Sampling::FirstCome},
    {"random", simlod::Sampling::Random},
    {"average", simlod::Sampling::Average},
    {"weighted", simlod::Sampling::Weighted},
}};

/// "first, random, average, weighted": for the help and the error messages.
inline std::string sampling_names() {
  std::string known;
  for (const auto& s : kSamplings) known += (known.empty() ? "" : ", ") + std::string(s.first);
  return known;
}

/// "first,random" -> the names, checked and in the order given.
inline std::vector<std::string> parse_samplings(std::string_view list) {
  std::vector<std::string> names;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string name(list.substr(0, comma));
    if (std::none_of(kSamplings.begin(), kSamplings.end(),
                     [&](const auto& s) { return s.first == name; })) {
      throw simlod::InvalidInput(
          fmt::format("unknown sampling '{}' in --sampling (use {})", name, sampling_names()));
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      throw simlod::InvalidInput(fmt::format("sampling '{}' is given twice", name));
    }
    names.push_back(name);
    if (comma == std::string_view::npos) return names;
    list.remove_prefix(comma + 1);
  }
}

inline simlod::Sampling sampling_of(std::string_view name) {
  for (const auto& s : kSamplings) {
    if (s.first == name) return s.second;
  }
  throw simlod::InvalidInput(fmt::format("unknown sampling '{}' (use {})", name, sampling_names()));
}

}  // namespace simlod::examples
