// Tuning constants of the synthetic scene generator, kept in one place. Lengths are metres of
// the reference scene (extent 1000 m); the generator scales every coordinate by extent / 1000,
// so the scene looks the same at any extent. Changing a value changes the generated points.
#pragma once

#include <cstdint>

namespace simlod::synth::detail {

inline constexpr double kReferenceExtent = 1000.0;
inline constexpr double kMinExtent = 1e-3;  // below this float coordinates lose the shapes
inline constexpr double kMaxExtent = 1e7;   // above this heights approach float limits

// --- Streaming and memory -----------------------------------------------------------------
// The scene is cut into 2^k x 2^k tiles; k is the smallest level at which no tile exceeds
// kMaxUnitPoints, so memory stays near 48 bytes x kMaxUnitPoints (point + two sort records)
// for any point count.
inline constexpr std::uint64_t kMaxUnitPoints = 2u << 20;
inline constexpr int kMaxTileLevel = 11;  // 4M tiles, reached near 10^10 points (then the bound
                                          // above grows with the point count)
inline constexpr std::uint64_t kChunkTargetPoints = 1u << 20;  // units are grouped up to this
inline constexpr std::uint64_t kWorkItemPoints = 1u << 14;     // parallel grain (points)
inline constexpr int kTerrainMinLevel = 7;       // terrain density cells: at least 128 x 128
inline constexpr double kMaxElementTiles = 1.0;  // surface pieces at most this many tiles long
inline constexpr int kMaxSubdivision = 4096;     // pieces per parameter direction of a surface

// --- Scan order -----------------------------------------------------------------------------
inline constexpr double kScanLineSpacings = 2.0;   // sweep line width in mean point spacings
inline constexpr std::uint32_t kScanChannels = 8;  // scanner channels firing together

// --- Terrain --------------------------------------------------------------------------------
inline constexpr int kTerrainOctaves = 6;
inline constexpr double kTerrainWavelength = 420.0;  // largest noise feature
inline constexpr double kTerrainAmplitude = 24.0;    // of the largest octave
inline constexpr int kHillCount = 3;
inline constexpr double kHillMinHeight = 15.0;
inline constexpr double kHillMaxHeight = 45.0;
inline constexpr double kHillMinRadius = 70.0;
inline constexpr double kHillMaxRadius = 170.0;
inline constexpr double kWaterQuantile = 0.08;  // share of the (raw) terrain under water
inline constexpr int kWaterProbeGrid = 64;      // probes per side for the water level
inline constexpr double kTownAboveWater = 8.0;  // town level at least this above the water

// --- Town -----------------------------------------------------------------------------------
inline constexpr int kTownBlockRadius = 3;   // 7 x 7 blocks around the plaza
inline constexpr double kBlockPitch = 64.0;  // street centre to street centre
inline constexpr double kStreetHalfWidth = 6.0;
inline constexpr double kTownRamp = 70.0;  // flattened town blends into the hills
inline constexpr double kParkChance = 0.12;
inline constexpr double kMissingOuterBlockChance = 0.35;
inline constexpr int kFarmCount = 14;
inline constexpr double kFoundationDepth = 0.5;  // walls start this far below the ground
inline constexpr double kRoofOverhang = 0.4;

// --- Vegetation -----------------------------------------------------------------------------
inline constexpr int kForestAttempts = 12000;
inline constexpr double kForestThreshold = 0.22;  // of the forest mask noise in [-1.5, 1.5]
inline constexpr double kLoneTreeChance = 0.015;  // per attempt outside forests
inline constexpr double kSceneMargin = 20.0;      // objects stay this far inside the edges

// --- Sculpture (the densely scanned object on the plaza) ------------------------------------
inline constexpr double kPedestalHalfSize = 7.0;
inline constexpr double kPedestalHeight = 1.6;
inline constexpr double kRingRadius = 8.5;
inline constexpr double kRingTube = 1.8;
inline constexpr double kOrbRadius = 4.2;

// --- Density (relative points per square metre of surface; open ground is about 1) ----------
inline constexpr double kSculptureDensity = 60.0;  // a close-range scan of the object
inline constexpr double kFocusBoost = 5.0;         // extra density around the object ...
inline constexpr double kFocusRadius = 80.0;       // ... falling off over this distance
inline constexpr int kSurveyStrips = 4;            // flight strips of the survey (density only)
inline constexpr double kOverlapBoost = 0.9;       // where neighbouring flight strips overlap
inline constexpr double kOverlapWidth = 25.0;
inline constexpr double kPatchiness = 0.6;  // log-density amplitude of survey patches
inline constexpr double kPatchWavelength = 160.0;
inline constexpr double kWaterDensity = 0.04;  // water returns few points
inline constexpr double kWallDensity = 0.6;    // walls are seen obliquely from the air
inline constexpr double kTrunkDensity = 0.4;
inline constexpr double kFoliageDensity = 0.5;  // crowns are mostly seen from above

// --- Surface detail -------------------------------------------------------------------------
inline constexpr double kSurfaceNoise = 0.02;     // measurement noise along the normal
inline constexpr double kFoliageDepth = 0.35;     // leaves scatter this far into crowns
inline constexpr double kMaxSurfaceOffset = 0.5;  // bound of both, used for bounds()
inline constexpr int kFootprintRetries = 32;      // resamples: under a roof, below ground
inline constexpr int kAboveGroundProbes = 4;      // per side: share of a piece above ground

}  // namespace simlod::synth::detail
