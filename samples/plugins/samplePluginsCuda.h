// samplePluginsCuda.h — the CUDA half of the sample plugins (BarPlugin, PoolPlugin, NonZeroPlugin,
// ScaleTacticsPlugin): launchers
// implemented in the .cu files next to this header, compiled only when CMake finds the CUDA toolkit and defines
// KILN_SAMPLE_PLUGINS_CUDA=1. Each plugin's enqueue() asks isDeviceMemory() where its output lives and takes the
// CUDA path for device (or managed) memory, its host path otherwise, so one plugin serves both of Kiln's backends.
// The header needs no CUDA header: streams are passed as the opaque CUstream_st* that cudaStream_t names.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace samples::cuda
{

//! Element types the sample kernels handle.
enum class ElementType : int32_t
{
    kFLOAT = 0,
    kHALF = 1,
    kINT8 = 2,
    kINT32 = 3,
};

//! True when `pointer` is device or managed memory according to cudaPointerGetAttributes. Host memory (pageable,
//! pinned or registered), a null pointer, and every failure (no driver, no device) give false; a failure's error
//! is cleared so that it does not leak into later CUDA calls.
bool isDeviceMemory(void const* pointer) noexcept;

//! cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream); returns the cudaError_t value (0 = success).
int32_t copyAsync(void* dst, void const* src, size_t bytes, CUstream_st* stream) noexcept;

//! Pooling of `planes` planes [inH, inW] -> [outH, outW] with a square window `kernel` and `stride`; mode 0 = max,
//! 1 = average. INT8 elements are dequantized with inScale and quantized with outScale. Returns the launch's
//! cudaError_t value.
struct PoolLaunch
{
    void const* input{nullptr};
    void* output{nullptr};
    ElementType type{ElementType::kFLOAT};
    int64_t planes{0};
    int64_t inH{0};
    int64_t inW{0};
    int64_t outH{0};
    int64_t outW{0};
    int32_t kernel{1};
    int32_t stride{1};
    int32_t mode{0};
    float inScale{1.0F};
    float outScale{1.0F};
};
int32_t launchPool(PoolLaunch const& launch, CUstream_st* stream) noexcept;

//! NonZero of a [rows, cols] FP32 or INT32 tensor: writes the K row indices to indices[0, K), the column indices to
//! indices[K, 2K) (row-major order) and K to *count, all in device memory, from one kernel launch. Returns the
//! launch's cudaError_t value.
int32_t launchNonZero(void const* input, ElementType type, int64_t rows, int64_t cols, int32_t* indices,
    int32_t* count, CUstream_st* stream) noexcept;

//! ScaleTacticsPlugin: y[i] = alpha * x[i] for FP32, `repeats` passes (its slow tactic repeats the work). Returns the
//! launch's cudaError_t value.
int32_t launchScale(float const* x, float* y, int64_t count, float alpha, int32_t repeats, CUstream_st* stream) noexcept;

} // namespace samples::cuda
