// Descriptor wrappers, type mapping and the planning handle of the cuDNN-based kernels (see cudnnCommon.h).
#include "backends/cuda/kernels/cudnnCommon.h"

#include <climits>
#include <map>
#include <mutex>

namespace kiln::cuda
{

bool fitsCudnnInt(std::vector<int64_t> const& extents)
{
    int64_t volume = 1;
    for (int64_t e : extents)
    {
        if (e < 1 || e > INT_MAX)
        {
            return false;
        }
        volume *= e;
        if (volume > INT_MAX)
        {
            return false;
        }
    }
    return true;
}

#if KILN_HAVE_CUDNN

namespace
{
std::mutex& planningMutex()
{
    static std::mutex m;
    return m;
}

std::vector<int> toInts(std::vector<int64_t> const& v)
{
    return std::vector<int>(v.begin(), v.end());
}
} // namespace

bool toCudnnType(nvinfer1::DataType type, cudnnDataType_t& out)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: out = CUDNN_DATA_FLOAT; return true;
    case nvinfer1::DataType::kHALF: out = CUDNN_DATA_HALF; return true;
    case nvinfer1::DataType::kBF16: out = CUDNN_DATA_BFLOAT16; return true;
    default: return false;
    }
}

CudnnPlanningLock::CudnnPlanningLock()
{
    planningMutex().lock();
}

CudnnPlanningLock::~CudnnPlanningLock()
{
    planningMutex().unlock();
}

StatusOr<cudnnHandle_t> cudnnPlanningHandle()
{
    // One handle per device, never destroyed (process lifetime; destroying at exit could run after the driver).
    static std::map<int, cudnnHandle_t> handles;
    int device = 0;
    KILN_CUDA_CHECK(cudaGetDevice(&device));
    auto it = handles.find(device);
    if (it != handles.end())
    {
        return it->second;
    }
    cudnnHandle_t h = nullptr;
    KILN_CUDNN_CHECK(cudnnCreate(&h));
    handles.emplace(device, h);
    return h;
}

TensorDesc::~TensorDesc()
{
    if (mDesc != nullptr)
    {
        (void) cudnnDestroyTensorDescriptor(mDesc);
    }
}

Status TensorDesc::set(cudnnDataType_t type, std::vector<int64_t> const& extents, bool channelLast)
{
    if (mDesc == nullptr)
    {
        KILN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&mDesc));
    }
    std::vector<int> const dims = toInts(extents);
    std::vector<int> strides(dims.size(), 1);
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    {
        strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i + 1)] * dims[static_cast<size_t>(i + 1)];
    }
    if (channelLast && dims.size() >= 3)
    {
        // Memory order N, spatial..., C: C is innermost, each spatial stride counts whole pixels of C channels.
        int stride = dims[1];
        strides[1] = 1;
        for (size_t i = dims.size(); i-- > 2;)
        {
            strides[i] = stride;
            stride *= dims[i];
        }
        strides[0] = stride;
    }
    KILN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(mDesc, type, static_cast<int>(dims.size()), dims.data(), strides.data()));
    return Status::ok();
}

FilterDesc::~FilterDesc()
{
    if (mDesc != nullptr)
    {
        (void) cudnnDestroyFilterDescriptor(mDesc);
    }
}

Status FilterDesc::set(cudnnDataType_t type, std::vector<int64_t> const& extents)
{
    if (mDesc == nullptr)
    {
        KILN_CUDNN_CHECK(cudnnCreateFilterDescriptor(&mDesc));
    }
    std::vector<int> const dims = toInts(extents);
    KILN_CUDNN_CHECK(cudnnSetFilterNdDescriptor(mDesc, type, CUDNN_TENSOR_NCHW, static_cast<int>(dims.size()), dims.data()));
    return Status::ok();
}

ConvDesc::~ConvDesc()
{
    if (mDesc != nullptr)
    {
        (void) cudnnDestroyConvolutionDescriptor(mDesc);
    }
}

Status ConvDesc::set(std::vector<int64_t> const& pads, std::vector<int64_t> const& strides,
    std::vector<int64_t> const& dilations, int64_t groups, cudnnMathType_t math)
{
    if (mDesc == nullptr)
    {
        KILN_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&mDesc));
    }
    std::vector<int> const p = toInts(pads);
    std::vector<int> const s = toInts(strides);
    std::vector<int> const d = toInts(dilations);
    KILN_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(
        mDesc, static_cast<int>(p.size()), p.data(), s.data(), d.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    KILN_CUDNN_CHECK(cudnnSetConvolutionGroupCount(mDesc, static_cast<int>(groups)));
    KILN_CUDNN_CHECK(cudnnSetConvolutionMathType(mDesc, math));
    return Status::ok();
}

PoolDesc::~PoolDesc()
{
    if (mDesc != nullptr)
    {
        (void) cudnnDestroyPoolingDescriptor(mDesc);
    }
}

Status PoolDesc::set(cudnnPoolingMode_t mode, std::vector<int64_t> const& window, std::vector<int64_t> const& pads,
    std::vector<int64_t> const& strides)
{
    if (mDesc == nullptr)
    {
        KILN_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&mDesc));
    }
    std::vector<int> const w = toInts(window);
    std::vector<int> const p = toInts(pads);
    std::vector<int> const s = toInts(strides);
    KILN_CUDNN_CHECK(cudnnSetPoolingNdDescriptor(
        mDesc, mode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(w.size()), w.data(), p.data(), s.data()));
    return Status::ok();
}

#endif // KILN_HAVE_CUDNN

} // namespace kiln::cuda
