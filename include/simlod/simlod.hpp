// Umbrella header: the whole public API of simlod.
#pragma once

#include "simlod/backend.hpp"
#include "simlod/bounds.hpp"
#include "simlod/error.hpp"
#include "simlod/image.hpp"
#include "simlod/io.hpp"
#include "simlod/octree.hpp"
#include "simlod/point.hpp"
#include "simlod/synth.hpp"
