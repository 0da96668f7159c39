// SIMLOD_HD marks inline functions shared by host code and CUDA kernels. Plain C++ compilers
// see an empty macro, so public headers never need CUDA headers.
#pragma once

#if defined(__CUDACC__)
#define SIMLOD_HD __host__ __device__ inline
#else
#define SIMLOD_HD inline
#endif

// SIMLOD_UNROLL unrolls the loop that follows: in device code, so that a small array indexed
// by the loop stays in registers; in plain host code (GCC, Clang) too. nvcc's host pass gets
// nothing (its front end knows neither compiler's pragma).
#if defined(__CUDA_ARCH__)
#define SIMLOD_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define SIMLOD_UNROLL
#elif defined(__clang__)
#define SIMLOD_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define SIMLOD_UNROLL _Pragma("GCC unroll 8")
#else
#define SIMLOD_UNROLL
#endif
