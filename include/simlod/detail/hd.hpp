// SIMLOD_HD marks inline functions shared by host code and CUDA kernels. Plain C++ compilers
// see an empty macro, so public headers never need CUDA headers.
#pragma once

#if defined(__CUDACC__)
#define SIMLOD_HD __host__ __device__ inline
#else
#define SIMLOD_HD inline
#endif
