// Marks functions that compile for both the host and CUDA device code.
#pragma once

#if defined(__CUDACC__)
#define FHE_HD __host__ __device__ __forceinline__
#else
#define FHE_HD inline
#endif
