// Shared by the CUDA kernel sources (kernels/*.cu): N-D index maps over strided/broadcast operands (host
// construction, device evaluation), launch sizing, an owning device buffer for weights uploaded at kernel creation,
// the session's library handles as a kernel sees them, and the views with which reshape calls the shared shape
// checks. The checks of I/O counts and types are shared with the CPU backend (backends/common/elementWiseChecks.h),
// so both backends reject the same nodes with the same words.
#pragma once

#include "backends/common/elementWiseChecks.h"
#include "backends/cuda/cudaCheck.h"
#include "backends/kernel.h"
#include "backends/cuda/kernels/deviceTypes.cuh"
#include "core/dataType.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::cuda
{

constexpr int32_t kMAX_RANK = nvinfer1::Dims::MAX_DIMS;
constexpr int32_t kMAX_OPERANDS = 4;
constexpr int32_t kBLOCK = 256;

//! Maps a row-major linear index over `dims` to element offsets of up to kMAX_OPERANDS operands (a stride of 0
//! broadcasts). Passed to kernels by value.
struct IndexMap
{
    int32_t rank{0};
    int64_t dims[kMAX_RANK]{};
    int64_t strides[kMAX_OPERANDS][kMAX_RANK]{};
};

//! Offsets of every operand for linear index `idx` of the map's shape.
__device__ __forceinline__ void mapOffsets(IndexMap const& m, int64_t idx, int64_t (&off)[kMAX_OPERANDS])
{
#pragma unroll
    for (int32_t k = 0; k < kMAX_OPERANDS; ++k)
    {
        off[k] = 0;
    }
    for (int32_t d = m.rank - 1; d >= 0; --d)
    {
        int64_t const extent = m.dims[d];
        int64_t const c = idx % extent;
        idx /= extent;
#pragma unroll
        for (int32_t k = 0; k < kMAX_OPERANDS; ++k)
        {
            off[k] += c * m.strides[k][d];
        }
    }
}

//! The broadcast map of `operands` onto `out` (same rank; each extent equal or 1). The error text is the CPU's.
inline StatusOr<IndexMap> makeBroadcastMap(nvinfer1::Dims const& out, std::vector<nvinfer1::Dims> const& operands)
{
    if (operands.size() > static_cast<size_t>(kMAX_OPERANDS) || out.nbDims < 0 || out.nbDims > kMAX_RANK)
    {
        return internalError("broadcast map: too many operands or an invalid rank");
    }
    IndexMap m;
    m.rank = out.nbDims;
    bool empty = false; // an empty output's other extents may multiply past int64: no strides are formed for it
    for (int32_t i = 0; i < out.nbDims; ++i)
    {
        if (out.d[i] < 0)
        {
            return invalidArgument("output dimensions " + ew::dimsToString(out) + " are invalid");
        }
        m.dims[i] = out.d[i];
        empty = empty || out.d[i] == 0;
    }
    for (size_t k = 0; k < operands.size(); ++k)
    {
        nvinfer1::Dims const& in = operands[k];
        bool ok = in.nbDims == out.nbDims;
        int64_t s = 1;
        for (int32_t i = out.nbDims - 1; ok && i >= 0; --i)
        {
            ok = in.d[i] == out.d[i] || in.d[i] == 1;
            m.strides[k][i] = in.d[i] == 1 ? 0 : s;
            s = empty ? s : s * in.d[i];
        }
        if (!ok)
        {
            return invalidArgument("operand " + std::to_string(k) + " has dimensions " + ew::dimsToString(in)
                + ", which do not broadcast to the output " + ew::dimsToString(out));
        }
    }
    return m;
}

//! Blocks for a grid-stride loop over n elements.
inline unsigned int gridFor(int64_t n)
{
    int64_t const blocks = (n + kBLOCK - 1) / kBLOCK;
    return static_cast<unsigned int>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

//! Device memory owned by a kernel (weights uploaded at creation; engine-level sharing of weights comes later).
class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    ~DeviceBuffer()
    {
        if (mData != nullptr)
        {
            (void) cudaFree(mData);
        }
    }
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;

    //! Allocate `bytes` and copy `host` into it (synchronously: kernel creation happens off the run path).
    Status upload(void const* host, int64_t bytes)
    {
        if (bytes <= 0)
        {
            return Status::ok();
        }
        KILN_CUDA_CHECK(cudaMalloc(&mData, static_cast<size_t>(bytes)));
        mBytes = bytes;
        KILN_CUDA_CHECK(cudaMemcpy(mData, host, static_cast<size_t>(bytes), cudaMemcpyHostToDevice));
        return Status::ok();
    }
    void* data() const { return mData; }
    int64_t bytes() const { return mBytes; }

private:
    void* mData{nullptr};
    int64_t mBytes{0};
};

//! The creating session's library handles (KernelSetup::sessionState, set by the CUDA session), or nullptr when a
//! kernel is created outside a session (tests, build-time checks): kernels that need cuBLASLt or cuDNN then fail in
//! reshape with a message saying so.
class CudaLibraries;
inline CudaLibraries* sessionLibraries(KernelSetup const& setup)
{
    return static_cast<CudaLibraries*>(setup.sessionState);
}

//! The views of a reshape as the shared shape checks (backends/common/*Params, ew::checkViews) expect them at a
//! run. Reshape views carry dims and shape-tensor values but may carry no data, while those checks test buffers
//! (TensorView::present(), data != nullptr): every connected input (KernelSetup::inputPresent) and every output
//! without data gets a placeholder address. The placeholder is never dereferenced: the checks only compare data
//! with nullptr, and device memory is not read on the host.
struct ReshapeViews
{
    std::vector<TensorView> inputs;
    std::vector<TensorView> outputs;
};

inline ReshapeViews reshapeViews(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    alignas(256) static uint8_t placeholder[256];
    ReshapeViews v{inputs, outputs};
    for (size_t i = 0; i < v.inputs.size(); ++i)
    {
        bool const connected = i < setup.inputPresent.size() ? setup.inputPresent[i] : inputs[i].present();
        if (connected && v.inputs[i].data == nullptr)
        {
            v.inputs[i].data = placeholder;
        }
    }
    for (TensorView& out : v.outputs)
    {
        if (out.data == nullptr)
        {
            out.data = placeholder;
        }
    }
    return v;
}

//! Views of the tensors of an element-by-element kernel in storage order: a kHWC8 tensor [N, C, H, W] without padding
//! channels (a region node's activation) is stored as the linear [N, H, W, C], in which such kernels index and
//! broadcast it as a linear tensor (a squeeze-excitation's [N, C, 1, 1] scale becomes [N, 1, 1, C]). Linear tensors
//! keep their dims when every tensor is linear; a mix of formats, other formats and padded channels are refused.
inline Status storageOrderViews(KernelSetup const& setup, std::string const& label, std::vector<TensorView>& inputs,
    std::vector<TensorView>& outputs)
{
    auto const formatOf = [](std::vector<nvinfer1::TensorFormat> const& f, size_t k) {
        return k < f.size() ? f[k] : nvinfer1::TensorFormat::kLINEAR;
    };
    bool anyRegion = false;
    for (size_t k = 0; k < inputs.size() + outputs.size(); ++k)
    {
        bool const in = k < inputs.size();
        anyRegion = anyRegion
            || formatOf(in ? setup.inputFormats : setup.outputFormats, in ? k : k - inputs.size())
                != nvinfer1::TensorFormat::kLINEAR;
    }
    if (!anyRegion)
    {
        return Status::ok();
    }
    for (size_t k = 0; k < inputs.size() + outputs.size(); ++k)
    {
        bool const in = k < inputs.size();
        size_t const slot = in ? k : k - inputs.size();
        TensorView& v = in ? inputs[slot] : outputs[slot];
        nvinfer1::Dims const d = v.dims;
        if (formatOf(in ? setup.inputFormats : setup.outputFormats, slot) != nvinfer1::TensorFormat::kHWC8
            || d.nbDims != 4 || d.d[1] % 8 != 0)
        {
            return invalidArgument(label + ": " + (in ? "input " : "output ") + std::to_string(slot)
                + " is not a 4-D kHWC8 tensor with whole vectors of 8 channels, as every tensor of a kHWC8 node must be");
        }
        v.dims.d[1] = d.d[2];
        v.dims.d[2] = d.d[3];
        v.dims.d[3] = d.d[1];
    }
    return Status::ok();
}

//! The error of a run that no successful reshape prepared.
inline Status notReshaped(std::string const& label)
{
    return internalError(label + ": run without a successful reshape for the current shapes");
}

//! "<Kind> node '<name>'" for messages.
inline std::string nodeLabel(KernelSetup const& setup, char const* kind)
{
    return std::string(kind) + " node '" + (setup.node != nullptr ? setup.node->name : std::string("?")) + "'";
}

} // namespace kiln::cuda
