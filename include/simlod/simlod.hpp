// Umbrella header: the whole public API of simlod.
#pragma once

#include "simlod/backend.hpp"
#include "simlod/bounds.hpp"
#include "simlod/device_batch.hpp"
#include "simlod/device_stream.hpp"
#include "simlod/error.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/host_batch.hpp"
#include "simlod/image.hpp"
#include "simlod/io.hpp"
#include "simlod/octree.hpp"
#include "simlod/point.hpp"
#include "simlod/render.hpp"
#include "simlod/stream.hpp"
#include "simlod/synth.hpp"
#include "simlod/view.hpp"
