// Helpers of the cuDNN-based CUDA kernels (convolution, deconvolution, pooling): owning wrappers of the legacy
// cuDNN descriptors, the mapping of Kiln storage types to cuDNN data types, a process-wide cuDNN handle used only
// for planning queries (algorithm heuristics and workspace sizes, which need a handle before a run context exists),
// and workspace carving. Everything is compiled to nothing useful without cuDNN (KILN_HAVE_CUDNN=0): the kernels
// then offer only their "kiln" tactic.
#pragma once

#include "backends/cuda/cudaCheck.h"
#include "core/status.h"

#include "NvInfer.h"

#include <cstdint>
#include <vector>

#if KILN_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace kiln::cuda
{

//! True when Kiln was built with cuDNN.
constexpr bool cudnnBuilt()
{
    return KILN_HAVE_CUDNN != 0;
}

//! Rounds a workspace offset up to 256 bytes.
inline int64_t alignWorkspace(int64_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

//! True when every value fits cuDNN's int dimensions (and the volume stays below 2^31 elements).
bool fitsCudnnInt(std::vector<int64_t> const& extents);

#if KILN_HAVE_CUDNN

//! cuDNN data type of a Kiln storage type; false when cuDNN has no matching type for these kernels.
bool toCudnnType(nvinfer1::DataType type, cudnnDataType_t& out);

//! The process-wide planning handle of the current device (created on first use, guarded by a mutex inside).
//! Used only for host-side queries (reshape, workspaceSize); runs use the session's handle (CudaLibraries::cudnn).
StatusOr<cudnnHandle_t> cudnnPlanningHandle();

//! Serialises use of the planning handle (queries from kernels of several contexts).
class CudnnPlanningLock
{
public:
    CudnnPlanningLock();
    ~CudnnPlanningLock();
    CudnnPlanningLock(CudnnPlanningLock const&) = delete;
    CudnnPlanningLock& operator=(CudnnPlanningLock const&) = delete;
};

//! Owning descriptor wrappers (created empty; create() reports failures as Status).
class TensorDesc
{
public:
    TensorDesc() = default;
    ~TensorDesc();
    TensorDesc(TensorDesc const&) = delete;
    TensorDesc& operator=(TensorDesc const&) = delete;
    //! Fully packed tensor of `extents` (4 or 5 of them, [N, C, spatial...]): row-major, or with `channelLast` the
    //! channels innermost (NHWC / NDHWC memory order, TensorFormat::kHWC8 with no padding channels).
    Status set(cudnnDataType_t type, std::vector<int64_t> const& extents, bool channelLast = false);
    cudnnTensorDescriptor_t get() const { return mDesc; }

private:
    cudnnTensorDescriptor_t mDesc{nullptr};
};

class FilterDesc
{
public:
    FilterDesc() = default;
    ~FilterDesc();
    FilterDesc(FilterDesc const&) = delete;
    FilterDesc& operator=(FilterDesc const&) = delete;
    //! Filter [out, in/groups, k...] in NCHW order.
    Status set(cudnnDataType_t type, std::vector<int64_t> const& extents);
    cudnnFilterDescriptor_t get() const { return mDesc; }

private:
    cudnnFilterDescriptor_t mDesc{nullptr};
};

class ConvDesc
{
public:
    ConvDesc() = default;
    ~ConvDesc();
    ConvDesc(ConvDesc const&) = delete;
    ConvDesc& operator=(ConvDesc const&) = delete;
    //! Cross-correlation with FP32 compute; `math` CUDNN_TENSOR_OP_MATH for FP16/BF16, CUDNN_FMA_MATH for FP32
    //! (no TF32, so FP32 results keep FP32 accuracy).
    Status set(std::vector<int64_t> const& pads, std::vector<int64_t> const& strides,
        std::vector<int64_t> const& dilations, int64_t groups, cudnnMathType_t math);
    cudnnConvolutionDescriptor_t get() const { return mDesc; }

private:
    cudnnConvolutionDescriptor_t mDesc{nullptr};
};

class PoolDesc
{
public:
    PoolDesc() = default;
    ~PoolDesc();
    PoolDesc(PoolDesc const&) = delete;
    PoolDesc& operator=(PoolDesc const&) = delete;
    Status set(cudnnPoolingMode_t mode, std::vector<int64_t> const& window, std::vector<int64_t> const& pads,
        std::vector<int64_t> const& strides);
    cudnnPoolingDescriptor_t get() const { return mDesc; }

private:
    cudnnPoolingDescriptor_t mDesc{nullptr};
};

#endif // KILN_HAVE_CUDNN

} // namespace kiln::cuda
