// What a VisibilityMap holds (core/visibility.cpp builds it, core/visibility_file.cpp saves
// and loads it).
#pragma once

#include "core/cpu/visibility/visibility.hpp"
#include "simlod/visibility.hpp"

namespace simlod {

struct VisibilityMap::Impl {
  VisibilityConfig config;
  VisibilityStats stats;
  detail::cpu::VisTree tree;
  detail::cpu::LeafPairs pairs;
  detail::cpu::VisLinks links;
};

}  // namespace simlod
