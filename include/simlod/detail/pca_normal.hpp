// A point's normal by principal component analysis of its neighbours (estimate_normals,
// simlod/normals.hpp) as SIMLOD_HD functions, so that the CPU and CUDA backends compute the same
// normals bit for bit. Double precision.
#pragma once

#include <math.h>

#include <cstdint>

#include "simlod/detail/hd.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

struct Dir3 {
  double x = 0.0, y = 0.0, z = 0.0;
};

/// The unit eigenvector of the smallest eigenvalue of the symmetric 3 x 3 matrix `m` (cyclic
/// Jacobi rotations), or 0 when the two smallest eigenvalues are both ~0 (no plane).
SIMLOD_HD Dir3 smallest_eigenvector(double m[3][3]) {
  double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int sweep = 0; sweep < 32; ++sweep) {
    const double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    if (off < 1e-30) break;
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (::fabs(m[p][q]) < 1e-300) continue;
        const double theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (::fabs(theta) + ::sqrt(theta * theta + 1));
        const double c = 1.0 / ::sqrt(t * t + 1), s = t * c;
        for (int r = 0; r < 3; ++r) {  // m = J^T m J
          const double mrp = m[r][p], mrq = m[r][q];
          m[r][p] = c * mrp - s * mrq;
          m[r][q] = s * mrp + c * mrq;
        }
        for (int r = 0; r < 3; ++r) {
          const double mpr = m[p][r], mqr = m[q][r];
          m[p][r] = c * mpr - s * mqr;
          m[q][r] = s * mpr + c * mqr;
        }
        for (int r = 0; r < 3; ++r) {
          const double vrp = v[r][p], vrq = v[r][q];
          v[r][p] = c * vrp - s * vrq;
          v[r][q] = s * vrp + c * vrq;
        }
      }
    }
  }
  // The diagonal's order, smallest first (a stable three-element sort).
  int order[3] = {0, 1, 2};
  const auto swap_if = [&](int a, int b) {
    if (m[order[b]][order[b]] < m[order[a]][order[a]]) {
      const int t = order[a];
      order[a] = order[b];
      order[b] = t;
    }
  };
  swap_if(0, 1);
  swap_if(1, 2);
  swap_if(0, 1);
  const double largest = ::fabs(m[order[2]][order[2]]);
  if (largest == 0.0 || ::fabs(m[order[1]][order[1]]) <= 1e-12 * largest) return {};
  const int e = order[0];
  return {v[0][e], v[1][e], v[2][e]};
}

/// The normal of the points ids[0, count), not yet oriented: the unit eigenvector of the
/// smallest eigenvalue of their covariance (smallest_eigenvector).
SIMLOD_HD Dir3 pca_normal(const Point* points, const std::uint32_t* ids, std::uint32_t count) {
  double mean[3] = {0, 0, 0};
  for (std::uint32_t k = 0; k < count; ++k) {
    mean[0] += points[ids[k]].x;
    mean[1] += points[ids[k]].y;
    mean[2] += points[ids[k]].z;
  }
  for (double& m : mean) m /= static_cast<double>(count);
  double cov[3][3] = {};
  for (std::uint32_t k = 0; k < count; ++k) {
    const Point& p = points[ids[k]];
    const double d[3] = {p.x - mean[0], p.y - mean[1], p.z - mean[2]};
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) cov[a][b] += d[a] * d[b];
    }
  }
  return smallest_eigenvector(cov);
}

}  // namespace simlod::detail
