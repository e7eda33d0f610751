// CUDA kernel of INMSLayer, as the CPU reference (backends/cpu/kernels/nms.cpp): per batch item the (box, class)
// candidates scoring above the score threshold, sorted by decreasing score (ties: lower box, then lower class),
// the first topKBoxLimit kept; per class, greedy selection in that order against the boxes already selected for
// the class (IoU above the threshold suppresses), up to maxOutputBoxesPerClass; rows (batch, class, box) written
// batch by batch, class by class, and the row count into output 1 (the layer's size tensor). All on the device,
// no synchronisation:
//   1. a 64-bit sort key per candidate: the score's order-preserving bits (0 for a candidate below the threshold)
//      above the complemented candidate index, so that a descending segmented radix sort (CUB, one segment per
//      batch item) gives the CPU's order, ties included;
//   2. one block per (batch, class) walks the sorted candidates of its batch item, the block's threads testing
//      IoU against the boxes selected so far in parallel;
//   3. an exclusive scan of the per-(batch, class) counts gives every row its position; one pass writes the rows.
// The thresholds and maxOutputBoxesPerClass are read on the device (or from host values when shape inference
// knows them). Box and IoU arithmetic uses round-to-nearest intrinsics, so suppression decisions are the CPU's.
#include "backends/common/nmsParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/workspaceLayout.cuh"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <climits>

namespace kiln::cuda
{
using nvinfer1::BoundingBoxFormat;
using nvinfer1::DataType;

namespace
{

constexpr int32_t kNMS_BLOCK = 128;

//! A device scalar (pointer and type) or a host value.
struct Scalar
{
    void const* data{nullptr};
    DataType type{DataType::kFLOAT};
    double value{0.0}; //!< used when data is null
};

struct NMSArgs
{
    BoundingBoxFormat format;
    int64_t batch;
    int64_t nbBoxes;
    int64_t nbClasses;
    int64_t candidates; //!< nbBoxes * nbClasses per batch item
    int64_t limit;      //!< candidates kept per batch item after sorting
    bool perClassBoxes;
    void const* boxes;
    DataType boxType;
    void const* scores;
    DataType scoreType;
    Scalar maxPerClass;
    Scalar iouThreshold;
    Scalar scoreThreshold;
};

struct DeviceBox
{
    float xMin;
    float yMin;
    float xMax;
    float yMax;
};

__device__ __forceinline__ float lessOf(float a, float b)
{
    return b < a ? b : a; // std::min
}

__device__ __forceinline__ float greaterOf(float a, float b)
{
    return a < b ? b : a; // std::max
}

__device__ DeviceBox boxAt(NMSArgs const& a, int64_t b, int64_t n, int64_t c)
{
    int64_t const base
        = a.perClassBoxes ? ((b * a.nbBoxes + n) * a.nbClasses + c) * 4 : (b * a.nbBoxes + n) * 4;
    float v[4];
    for (int32_t k = 0; k < 4; ++k)
    {
        v[k] = dev::loadFloat(a.boxes, a.boxType, base + k);
    }
    if (a.format == BoundingBoxFormat::kCENTER_SIZES)
    {
        float const hw = __fdiv_rn(v[2], 2.0F);
        float const hh = __fdiv_rn(v[3], 2.0F);
        return DeviceBox{__fsub_rn(v[0], hw), __fsub_rn(v[1], hh), __fadd_rn(v[0], hw), __fadd_rn(v[1], hh)};
    }
    return DeviceBox{lessOf(v[0], v[2]), lessOf(v[1], v[3]), greaterOf(v[0], v[2]), greaterOf(v[1], v[3])};
}

__device__ float iou(DeviceBox const& a, DeviceBox const& b)
{
    float const w = __fsub_rn(lessOf(a.xMax, b.xMax), greaterOf(a.xMin, b.xMin));
    float const h = __fsub_rn(lessOf(a.yMax, b.yMax), greaterOf(a.yMin, b.yMin));
    if (w <= 0.0F || h <= 0.0F)
    {
        return 0.0F;
    }
    float const areaA = __fmul_rn(__fsub_rn(a.xMax, a.xMin), __fsub_rn(a.yMax, a.yMin));
    float const areaB = __fmul_rn(__fsub_rn(b.xMax, b.xMin), __fsub_rn(b.yMax, b.yMin));
    if (areaA <= 0.0F || areaB <= 0.0F)
    {
        return 0.0F;
    }
    float const inter = __fmul_rn(w, h);
    float const uni = __fsub_rn(__fadd_rn(areaA, areaB), inter);
    return uni > 0.0F ? __fdiv_rn(inter, uni) : 0.0F;
}

__device__ __forceinline__ float scalarFloat(Scalar const& s)
{
    return s.data != nullptr ? dev::loadFloat(s.data, s.type, 0) : static_cast<float>(s.value);
}

__device__ __forceinline__ int64_t scalarInt(Scalar const& s)
{
    return s.data != nullptr ? dev::loadInt(s.data, s.type, 0) : static_cast<int64_t>(s.value);
}

//! Sort keys: (order bits of the score, 0 below the threshold) << 32 | (0xFFFFFFFF - candidate index).
__global__ void nmsKeys(NMSArgs a, uint64_t* keys, int32_t* offsets)
{
    int64_t const total = a.batch * a.candidates;
    float const threshold = scalarFloat(a.scoreThreshold);
    for (int64_t i = dev::globalThread(); i < total; i += dev::gridThreads())
    {
        int64_t const idx = i % a.candidates; // n * nbClasses + c, the scores' order within the batch item
        float s = dev::loadFloat(a.scores, a.scoreType, i);
        uint64_t hi = 0;
        if (s > threshold)
        {
            s = s == 0.0F ? 0.0F : s; // -0 sorts with +0, as the CPU's comparison does
            uint32_t u = __float_as_uint(s);
            u = (u & 0x80000000U) != 0 ? ~u : (u | 0x80000000U);
            hi = u;
        }
        keys[i] = (hi << 32) | (0xFFFFFFFFULL - static_cast<uint64_t>(idx));
    }
    for (int64_t b = dev::globalThread(); b <= a.batch; b += dev::gridThreads())
    {
        offsets[b] = static_cast<int32_t>(b * a.candidates);
    }
}

//! One block per (batch, class): greedy selection into selected[(b * C + c) * nbBoxes + j], count into counts.
__global__ void nmsSelect(NMSArgs a, uint64_t const* sorted, int32_t* selected, int64_t* counts)
{
    int64_t const bc = blockIdx.x;
    int64_t const b = bc / a.nbClasses;
    int64_t const c = bc % a.nbClasses;
    int32_t* kept = selected + bc * a.nbBoxes;
    int64_t const maxPerClass = scalarInt(a.maxPerClass);
    float const iouThreshold = scalarFloat(a.iouThreshold);
    int64_t count = 0;
    int64_t const end = a.limit < a.candidates ? (a.limit < 0 ? 0 : a.limit) : a.candidates;
    for (int64_t p = 0; p < end && count < maxPerClass; ++p)
    {
        uint64_t const key = sorted[b * a.candidates + p];
        if ((key >> 32) == 0)
        {
            break; // below the score threshold, and so is everything after it
        }
        int64_t const idx = static_cast<int64_t>(0xFFFFFFFFULL - (key & 0xFFFFFFFFULL));
        if (idx % a.nbClasses != c)
        {
            continue;
        }
        int64_t const n = idx / a.nbClasses;
        DeviceBox const box = boxAt(a, b, n, c);
        int suppressed = 0;
        for (int64_t j = threadIdx.x; j < count && suppressed == 0; j += blockDim.x)
        {
            suppressed = iou(box, boxAt(a, b, kept[j], c)) > iouThreshold ? 1 : 0;
        }
        if (__syncthreads_or(suppressed) != 0)
        {
            continue;
        }
        if (threadIdx.x == 0)
        {
            kept[count] = static_cast<int32_t>(n);
        }
        ++count;
        __syncthreads(); // kept[count - 1] visible to the block
    }
    if (threadIdx.x == 0)
    {
        counts[bc] = count;
    }
}

//! Rows (b, c, box) at their scanned positions, and the total into the size tensor.
__global__ void nmsRows(NMSArgs a, int32_t const* selected, int64_t const* counts, int64_t const* offsets,
    void* rows, DataType rowType, void* countOut, DataType countType)
{
    int64_t const pairs = a.batch * a.nbClasses;
    if (dev::globalThread() == 0)
    {
        dev::storeInt(countOut, countType, 0, offsets[pairs - 1] + counts[pairs - 1]);
    }
    int64_t const total = pairs * a.nbBoxes;
    for (int64_t i = dev::globalThread(); i < total; i += dev::gridThreads())
    {
        int64_t const bc = i / a.nbBoxes;
        int64_t const j = i % a.nbBoxes;
        if (j >= counts[bc])
        {
            continue;
        }
        int64_t const r = offsets[bc] + j;
        dev::storeInt(rows, rowType, r * 3, bc / a.nbClasses);
        dev::storeInt(rows, rowType, r * 3 + 1, bc % a.nbClasses);
        dev::storeInt(rows, rowType, r * 3 + 2, selected[i]);
    }
}

struct NMSWorkspace
{
    int64_t keysIn{0};
    int64_t keysOut{0};
    int64_t offsets{0};
    int64_t sortTemp{0};
    size_t sortBytes{0};
    int64_t selected{0};
    int64_t counts{0};
    int64_t rowOffsets{0};
    int64_t scanTemp{0};
    size_t scanBytes{0};
    int64_t total{0};
};

NMSWorkspace nmsWorkspace(int64_t batch, int64_t candidates, int64_t nbClasses)
{
    NMSWorkspace w;
    int64_t const items = batch * candidates;
    int64_t const pairs = batch * nbClasses;
    if (items <= 0 || items > INT_MAX)
    {
        return w;
    }
    (void) cub::DeviceSegmentedRadixSort::SortKeysDescending(nullptr, w.sortBytes,
        static_cast<uint64_t const*>(nullptr), static_cast<uint64_t*>(nullptr), static_cast<int>(items),
        static_cast<int>(batch), static_cast<int32_t const*>(nullptr), static_cast<int32_t const*>(nullptr));
    (void) cub::DeviceScan::ExclusiveSum(
        nullptr, w.scanBytes, static_cast<int64_t const*>(nullptr), static_cast<int64_t*>(nullptr), pairs);
    WorkspaceLayout layout;
    w.keysIn = layout.add(items * 8);
    w.keysOut = layout.add(items * 8);
    w.offsets = layout.add((batch + 1) * 4);
    w.sortTemp = layout.add(static_cast<int64_t>(w.sortBytes));
    w.selected = layout.add(items * 4); // nbBoxes per (batch, class)
    w.counts = layout.add(pairs * 8);
    w.rowOffsets = layout.add(pairs * 8);
    w.scanTemp = layout.add(static_cast<int64_t>(w.scanBytes));
    w.total = layout.total();
    return w;
}

//! Where scalar input `i` comes from: its host value (integers that shape inference knows, as the CPU prefers them),
//! its device data (`onDevice`: the run passes the address), or nowhere (absent or empty: 0).
Scalar scalarOf(std::vector<TensorView> const& inputs, size_t i, bool& onDevice)
{
    Scalar s;
    onDevice = false;
    if (i >= inputs.size())
    {
        return s;
    }
    TensorView const& v = inputs[i];
    bool const integer = v.type == DataType::kINT32 || v.type == DataType::kINT64;
    if (integer && v.values != nullptr)
    {
        s.value = static_cast<double>(v.values[0]);
    }
    else if (v.data != nullptr && v.volume() > 0)
    {
        onDevice = true; // read on the device
        s.type = v.type;
    }
    return s;
}

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks, the
//! workspace layout and the launch arguments (host-known scalars included); run: the data addresses and the five
//! steps of the file comment.
class NMSCudaKernel final : public Kernel
{
public:
    explicit NMSCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const&) const override
    {
        if (inputs.size() < 2 || inputs[1].dims.nbDims != 3)
        {
            return 0;
        }
        nvinfer1::Dims const& d = inputs[1].dims;
        return nmsWorkspace(d.d[0], d.d[1] * d.d[2], d.d[2]).total;
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mItems = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(NMSParams const p, makeNMSParams(mSetup, v.inputs, v.outputs));
        int64_t const candidates = p.nbBoxes * p.nbClasses;
        int64_t const items = p.batch * candidates;
        if (items > INT_MAX || candidates > 0xFFFFFFFFLL)
        {
            return nmsError(mSetup, "the CUDA kernel supports at most " + std::to_string(INT_MAX) + " candidates");
        }
        NMSArgs a{};
        a.format = p.format;
        a.batch = p.batch;
        a.nbBoxes = p.nbBoxes;
        a.nbClasses = p.nbClasses;
        a.candidates = candidates;
        a.limit = p.limit;
        a.perClassBoxes = p.perClassBoxes;
        a.boxType = inputs[0].type;
        a.scoreType = inputs[1].type;
        a.maxPerClass = scalarOf(v.inputs, 2, mScalarOnDevice[0]);
        a.iouThreshold = scalarOf(v.inputs, 3, mScalarOnDevice[1]);
        a.scoreThreshold = scalarOf(v.inputs, 4, mScalarOnDevice[2]);
        mArgs = a;
        mWorkspace = nmsWorkspace(p.batch, candidates, p.nbClasses);
        mItems = items;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mItems < 0)
        {
            return notReshaped(nodeLabel(mSetup, "NMS"));
        }
        TensorView const& count = outputs[1];
        bool const noneSelectable = !mScalarOnDevice[0] && mArgs.maxPerClass.value <= 0.0;
        if (mItems == 0 || outputs[0].volume() == 0 || noneSelectable)
        {
            // Nothing to select, or no room for any selection (a limit of 0 boxes per class): the count is 0.
            KILN_CUDA_CHECK(cudaMemsetAsync(count.data, 0, static_cast<size_t>(elementSize(count.type)), ctx.stream));
            return Status::ok();
        }
        if (outputs[0].data == nullptr)
        {
            return nmsError(mSetup, "the selected-indices output has no memory");
        }
        NMSWorkspace const& w = mWorkspace;
        if (ctx.workspace == nullptr || ctx.workspaceBytes < w.total)
        {
            return nmsError(mSetup, "needs " + std::to_string(w.total) + " bytes of workspace, got "
                + std::to_string(ctx.workspaceBytes));
        }
        NMSArgs a = mArgs;
        a.boxes = inputs[0].data;
        a.scores = inputs[1].data;
        Scalar* scalars[3] = {&a.maxPerClass, &a.iouThreshold, &a.scoreThreshold};
        for (size_t k = 0; k < 3; ++k)
        {
            if (mScalarOnDevice[k])
            {
                scalars[k]->data = inputs[k + 2].data;
            }
        }
        void* ws = ctx.workspace;
        auto* keysIn = WorkspaceLayout::at<uint64_t>(ws, w.keysIn);
        auto* keysOut = WorkspaceLayout::at<uint64_t>(ws, w.keysOut);
        auto* offsets = WorkspaceLayout::at<int32_t>(ws, w.offsets);
        auto* selected = WorkspaceLayout::at<int32_t>(ws, w.selected);
        auto* counts = WorkspaceLayout::at<int64_t>(ws, w.counts);
        auto* rowOffsets = WorkspaceLayout::at<int64_t>(ws, w.rowOffsets);
        nmsKeys<<<gridFor(mItems > a.batch ? mItems : a.batch + 1), kBLOCK, 0, ctx.stream>>>(a, keysIn, offsets);
        KILN_RETURN_IF_ERROR(launchStatus("NMS key kernel"));
        size_t sortBytes = w.sortBytes;
        KILN_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeysDescending(WorkspaceLayout::at<void>(ws, w.sortTemp),
            sortBytes, static_cast<uint64_t const*>(keysIn), keysOut, static_cast<int>(mItems),
            static_cast<int>(a.batch), static_cast<int32_t const*>(offsets), static_cast<int32_t const*>(offsets + 1),
            0, 64, ctx.stream));
        int64_t const pairs = a.batch * a.nbClasses;
        nmsSelect<<<static_cast<unsigned int>(pairs), kNMS_BLOCK, 0, ctx.stream>>>(a, keysOut, selected, counts);
        KILN_RETURN_IF_ERROR(launchStatus("NMS selection kernel"));
        size_t scanBytes = w.scanBytes;
        KILN_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(WorkspaceLayout::at<void>(ws, w.scanTemp), scanBytes,
            static_cast<int64_t const*>(counts), rowOffsets, pairs, ctx.stream));
        nmsRows<<<gridFor(mItems), kBLOCK, 0, ctx.stream>>>(a, selected, counts, rowOffsets, outputs[0].data,
            outputs[0].type, count.data, count.type);
        return launchStatus("NMS row kernel");
    }

private:
    KernelSetup mSetup;
    NMSArgs mArgs{};
    bool mScalarOnDevice[3]{}; //!< maxOutputBoxesPerClass, IoU threshold, score threshold read on the device
    NMSWorkspace mWorkspace;
    int64_t mItems{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createNMSCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("NMS kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<NMSCudaKernel>(setup));
}

} // namespace kiln::cuda
