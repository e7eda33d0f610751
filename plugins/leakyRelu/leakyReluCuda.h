// leakyReluCuda.h — the CUDA path of LReLU_TRT, compiled only when Kiln is built with the CUDA toolkit
// (KILN_HAVE_CUDA; the top-level CMakeLists.txt adds plugins/**/*.cu to kiln_plugin and defines
// KILN_PLUGIN_CUDA=1). enqueue() asks isDeviceMemory() where its output lives: device or managed memory takes the
// kernel below on the engine's stream, anything else the host loop (CPU backend).
#pragma once

#include <cstdint>

struct CUstream_st;

namespace kiln::plugins::cuda
{

//! True for device or managed memory (cudaPointerGetAttributes); false for host memory, null, and when CUDA is
//! unusable (no driver or device; that error is cleared).
bool isDeviceMemory(void const* pointer) noexcept;

//! y = x >= 0 ? x : negSlope * x over `count` FP32 (half = false) or FP16 elements, launched on `stream`.
//! Returns the cudaError_t value of the launch (0 = success).
int32_t leakyRelu(void const* x, void* y, int64_t count, bool half, float negSlope, CUstream_st* stream) noexcept;

//! cudaGetErrorString of a code returned above.
char const* errorString(int32_t code) noexcept;

} // namespace kiln::plugins::cuda
