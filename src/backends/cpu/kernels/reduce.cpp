// CPU reference kernel of IReduceLayer: kSUM, kPROD, kMAX, kMIN, kAVG over any axes mask. Floating-point storage
// accumulates in double (NaN propagates through kMAX/kMIN); INT32/INT64 compute exactly with two's-complement
// wrap-around, kAVG truncating toward zero. Empty reductions give TensorRT's identities (0, 1, lowest, highest; kAVG
// gives NaN for floats and 0 for integers). The leading axes that are not reduced split the work over the CPU thread
// pool; a block whose reduced axes are all trailing is one contiguous row, summed with eight accumulators (reduceRow:
// global pooling in FP32/FP16/BF16). In the builder's region plan (channelLastPass) a reduction over the spatial axes of a 4-D FP32 tensor (a
// global average pool) reads the region format (kHWC, kCHW16, ...) and writes its linear [N, C(, 1, 1)] output: the
// spatial reduction of channel vectors (RegionReduceKernel).
#include "backends/common/reduceParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"
#include "core/threadPool.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <algorithm>
#include <array>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::ReduceOperation;

//! The walk of one reduction, prepared at reshape.
struct ReducePlan
{
    int32_t rank{0};
    int64_t inVolume{1};
    int64_t outVolume{1};
    int64_t count{1};                                                  // elements combined into each output
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> extents{};    // input extents
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> outStrides{}; // per input dimension; 0 for reduced axes
};

template <typename Acc, typename T, typename Combine>
void accumulate(ReducePlan const& plan, T const* in, Acc* acc, Combine combine)
{
    std::array<int64_t, nvinfer1::Dims::MAX_DIMS> coord{};
    int64_t o = 0;
    for (int64_t flat = 0; flat < plan.inVolume; ++flat)
    {
        acc[o] = combine(acc[o], in[flat]);
        // Odometer over the input coordinates, keeping the output offset in step.
        for (int32_t d = plan.rank - 1; d >= 0; --d)
        {
            size_t const ds = static_cast<size_t>(d);
            o += plan.outStrides[ds];
            if (++coord[ds] < plan.extents[ds])
            {
                break;
            }
            o -= plan.outStrides[ds] * coord[ds];
            coord[ds] = 0;
        }
    }
}

template <typename T>
void reduceFloat(ReducePlan const& plan, ReduceOperation op, T const* in, T* out, double* acc)
{
    double identity = 0.0;
    switch (op)
    {
    case ReduceOperation::kSUM:
    case ReduceOperation::kAVG: identity = 0.0; break;
    case ReduceOperation::kPROD: identity = 1.0; break;
    case ReduceOperation::kMAX: identity = -INFINITY; break;
    case ReduceOperation::kMIN: identity = INFINITY; break;
    default: break;
    }
    std::fill(acc, acc + plan.outVolume, identity);
    switch (op)
    {
    case ReduceOperation::kSUM:
    case ReduceOperation::kAVG:
        accumulate(plan, in, acc, [](double a, T x) { return a + static_cast<double>(static_cast<float>(x)); });
        break;
    case ReduceOperation::kPROD:
        accumulate(plan, in, acc, [](double a, T x) { return a * static_cast<double>(static_cast<float>(x)); });
        break;
    case ReduceOperation::kMAX:
        accumulate(plan, in, acc, [](double a, T x) {
            double const v = static_cast<double>(static_cast<float>(x));
            return (std::isnan(a) || std::isnan(v)) ? NAN : (v > a ? v : a);
        });
        break;
    case ReduceOperation::kMIN:
        accumulate(plan, in, acc, [](double a, T x) {
            double const v = static_cast<double>(static_cast<float>(x));
            return (std::isnan(a) || std::isnan(v)) ? NAN : (v < a ? v : a);
        });
        break;
    default: break;
    }
    for (int64_t i = 0; i < plan.outVolume; ++i)
    {
        double v = acc[i];
        if (op == ReduceOperation::kAVG)
        {
            v = plan.count == 0 ? NAN : v / static_cast<double>(plan.count);
        }
        out[i] = T(static_cast<float>(v));
    }
}

//! kSUM, kAVG, kMAX or kMIN of one contiguous row into one output (the reduced axes are the trailing ones: global
//! pooling, row statistics): eight independent accumulators that the compiler keeps in vector registers, where the
//! odometer walk of `accumulate` costs a branch per element. Sums in double, as reduceFloat; NaN propagates.
template <typename T>
T reduceRow(ReduceOperation op, T const* in, int64_t n, int64_t count)
{
    constexpr int32_t kLANES = 8;
    if (op == ReduceOperation::kSUM || op == ReduceOperation::kAVG)
    {
        std::array<double, kLANES> acc{};
        int64_t i = 0;
        for (; i + kLANES <= n; i += kLANES)
        {
            for (int32_t j = 0; j < kLANES; ++j)
            {
                acc[static_cast<size_t>(j)] += static_cast<double>(static_cast<float>(in[i + j]));
            }
        }
        double total = 0.0;
        for (double a : acc)
        {
            total += a;
        }
        for (; i < n; ++i)
        {
            total += static_cast<double>(static_cast<float>(in[i]));
        }
        if (op == ReduceOperation::kAVG)
        {
            total = count == 0 ? NAN : total / static_cast<double>(count);
        }
        return T(static_cast<float>(total));
    }
    bool const isMax = op == ReduceOperation::kMAX;
    float best = isMax ? -INFINITY : INFINITY;
    bool nan = false;
    for (int64_t i = 0; i < n; ++i)
    {
        float const v = static_cast<float>(in[i]);
        nan = nan || std::isnan(v);
        best = isMax ? std::max(best, v) : std::min(best, v);
    }
    return T(nan ? NAN : best);
}

//! Integer reductions accumulate in int64: kAVG sums exactly in 64 bits (INT64 sums that overflow wrap), the others
//! hold values of T and combine them with T's two's-complement wrap-around.
template <typename T>
void reduceInt(ReducePlan const& plan, ReduceOperation op, T const* in, T* out, int64_t* acc)
{
    using U = std::make_unsigned_t<T>;
    if (op == ReduceOperation::kAVG)
    {
        std::fill(acc, acc + plan.outVolume, int64_t{0});
        accumulate(plan, in, acc, [](int64_t a, T x) {
            return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(static_cast<int64_t>(x)));
        });
        for (int64_t i = 0; i < plan.outVolume; ++i)
        {
            out[i] = plan.count == 0 ? T(0) : static_cast<T>(acc[i] / plan.count);
        }
        return;
    }
    T identity = 0;
    switch (op)
    {
    case ReduceOperation::kPROD: identity = 1; break;
    case ReduceOperation::kMAX: identity = std::numeric_limits<T>::lowest(); break;
    case ReduceOperation::kMIN: identity = std::numeric_limits<T>::max(); break;
    default: identity = 0; break;
    }
    std::fill(acc, acc + plan.outVolume, static_cast<int64_t>(identity));
    auto const wrap = [](auto f) {
        return [f](int64_t a, T x) { return static_cast<int64_t>(f(static_cast<T>(a), x)); };
    };
    switch (op)
    {
    case ReduceOperation::kSUM:
        accumulate(plan, in, acc, wrap([](T a, T x) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(x)); }));
        break;
    case ReduceOperation::kPROD:
        accumulate(plan, in, acc, wrap([](T a, T x) { return static_cast<T>(static_cast<U>(a) * static_cast<U>(x)); }));
        break;
    case ReduceOperation::kMAX: accumulate(plan, in, acc, wrap([](T a, T x) { return x > a ? x : a; })); break;
    case ReduceOperation::kMIN: accumulate(plan, in, acc, wrap([](T a, T x) { return x < a ? x : a; })); break;
    default: break;
    }
    for (int64_t i = 0; i < plan.outVolume; ++i)
    {
        out[i] = static_cast<T>(acc[i]);
    }
}

template <typename T>
constexpr bool kIS_FLOAT_STORAGE = std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool kIS_INT_STORAGE = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

//! create: operation, axes and keepDims; reshape: the walk (extents and output strides) and the accumulators.
class ReduceKernel final : public Kernel
{
public:
    ReduceKernel(KernelSetup const& setup, ReduceParams params)
        : mSetup(setup)
        , mParams(params)
        , mFloat(isFloatType(setup.inputTypes[0]))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(reduceShapes(mSetup, mParams, inputs, outputs));
        TensorView const& in = inputs[0];
        mPlan.rank = mParams.rank;
        mPlan.inVolume = mParams.inVolume;
        mPlan.outVolume = mParams.outVolume;
        mPlan.count = mParams.count;
        int64_t stride = 1;
        for (int32_t d = mPlan.rank - 1; d >= 0; --d)
        {
            size_t const ds = static_cast<size_t>(d);
            mPlan.extents[ds] = in.dims.d[d];
            mPlan.outStrides[ds] = 0;
            if (((mParams.mask >> d) & 1) == 0)
            {
                mPlan.outStrides[ds] = stride;
                stride *= in.dims.d[d];
            }
        }
        // The leading axes that are kept split the work: each of their coordinates reduces its own block of the
        // input into its own block of the output (the plan of the remaining axes, mBlock).
        int32_t kept = 0;
        mBlocks = 1;
        while (kept < mPlan.rank && ((mParams.mask >> kept) & 1) == 0)
        {
            mBlocks *= mPlan.extents[static_cast<size_t>(kept)];
            ++kept;
        }
        mBlock = mPlan;
        if (mBlocks > 1)
        {
            mBlock.rank = mPlan.rank - kept;
            for (int32_t d = 0; d < mBlock.rank; ++d)
            {
                mBlock.extents[static_cast<size_t>(d)] = mPlan.extents[static_cast<size_t>(d + kept)];
                mBlock.outStrides[static_cast<size_t>(d)] = mPlan.outStrides[static_cast<size_t>(d + kept)];
            }
            mBlock.inVolume = mPlan.inVolume / mBlocks;
            mBlock.outVolume = mPlan.outVolume / mBlocks;
        }
        if (mFloat)
        {
            mFloatAcc.resize(static_cast<size_t>(mPlan.outVolume));
        }
        else
        {
            mIntAcc.resize(static_cast<size_t>(mPlan.outVolume));
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Reduce");
        }
        if (mPlan.outVolume == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        if (mPlan.inVolume == 0 || mBlocks <= 1)
        {
            reduceBlocks(in, out, mPlan, 0, 1);
            return Status::ok();
        }
        // Blocks split over the thread pool, >= 16384 input elements a task.
        int64_t const grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(mBlock.inVolume, 1));
        parallelFor(mBlocks, grain, [&](int64_t begin, int64_t end) { reduceBlocks(in, out, mBlock, begin, end); });
        return Status::ok();
    }

private:
    //! Blocks [begin, end) of `plan` (offsets in units of the plan's input and output volumes).
    void reduceBlocks(TensorView const& in, TensorView const& out, ReducePlan const& plan, int64_t begin, int64_t end)
    {
        dispatchType(in.type, [&](auto tag) {
            using T = decltype(tag);
            for (int64_t b = begin; b < end; ++b)
            {
                auto const* x = static_cast<T const*>(in.data) + b * plan.inVolume;
                auto* y = static_cast<T*>(out.data) + b * plan.outVolume;
                if constexpr (kIS_FLOAT_STORAGE<T>)
                {
                    if (plan.outVolume == 1 && mParams.op != ReduceOperation::kPROD && mParams.op != ReduceOperation::kNONE)
                    {
                        *y = reduceRow(mParams.op, x, plan.inVolume, plan.count);
                    }
                    else
                    {
                        reduceFloat(plan, mParams.op, x, y, mFloatAcc.data() + b * plan.outVolume);
                    }
                }
                else if constexpr (kIS_INT_STORAGE<T>)
                {
                    reduceInt(plan, mParams.op, x, y, mIntAcc.data() + b * plan.outVolume);
                }
            }
        });
    }

    KernelSetup mSetup;
    ReduceParams mParams;
    bool mFloat;
    ReducePlan mPlan;
    ReducePlan mBlock;   //!< the axes after the leading kept ones (mBlocks blocks of them)
    int64_t mBlocks{1};  //!< product of the leading kept axes
    std::vector<double> mFloatAcc; //!< one accumulator per output (floating-point storage)
    std::vector<int64_t> mIntAcc;  //!< one accumulator per output (integer storage)
    bool mReady{false};
};

//! kSUM, kAVG, kMAX or kMIN over axes 2 and 3 of a 4-D FP32 input stored in a vectorized or channel-last format
//! (FormatLayout), output kLINEAR. create: the layout; reshape: the extents; run: per image, each channel vector of the
//! storage accumulated in double over the spatial positions (padding channels skipped).
class RegionReduceKernel final : public Kernel
{
public:
    RegionReduceKernel(KernelSetup const& setup, ReduceParams params, FormatLayout layout)
        : mSetup(setup)
        , mParams(params)
        , mLayout(layout)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(reduceShapes(mSetup, mParams, inputs, outputs));
        nvinfer1::Dims const& d = inputs[0].dims;
        mImages = d.d[0];
        mChannels = d.d[1];
        mSpatial = d.d[2] * d.d[3];
        int64_t const v = mLayout.vector;
        int64_t const padded = (mChannels + v - 1) / v * v;
        // Lanes of one stored channel vector, and vectors per spatial position group.
        mLanes = mLayout.channelLast ? padded : v;
        mGroups = mLayout.channelLast ? 1 : padded / v;
        mAcc.assign(static_cast<size_t>(mImages * mGroups * mLanes), 0.0);
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Reduce");
        }
        auto const* x = static_cast<float const*>(inputs[0].data);
        auto* y = static_cast<float*>(outputs[0].data);
        ReduceOperation const op = mParams.op;
        bool const extreme = op == ReduceOperation::kMAX || op == ReduceOperation::kMIN;
        double const empty = op == ReduceOperation::kMAX ? -std::numeric_limits<double>::infinity()
            : op == ReduceOperation::kMIN               ? std::numeric_limits<double>::infinity()
                                                        : 0.0;
        int64_t const perImage = mGroups * mLanes;
        parallelFor(mImages, 1, [&](int64_t begin, int64_t end) {
            for (int64_t n = begin; n < end; ++n)
            {
                for (int64_t g = 0; g < mGroups; ++g)
                {
                    double* acc = mAcc.data() + n * perImage + g * mLanes;
                    std::fill(acc, acc + mLanes, empty);
                    float const* base = x + (n * mGroups + g) * mSpatial * mLanes;
                    for (int64_t sp = 0; sp < mSpatial; ++sp)
                    {
                        float const* row = base + sp * mLanes;
                        for (int64_t l = 0; l < mLanes; ++l)
                        {
                            double const v = row[l];
                            acc[l] = !extreme ? acc[l] + v
                                : op == ReduceOperation::kMAX ? (std::isnan(v) || v > acc[l] ? v : acc[l])
                                                              : (std::isnan(v) || v < acc[l] ? v : acc[l]);
                        }
                    }
                }
                double const scale = op == ReduceOperation::kAVG ? 1.0 / static_cast<double>(mSpatial) : 1.0;
                for (int64_t c = 0; c < mChannels; ++c)
                {
                    double const a = mAcc[static_cast<size_t>(n * perImage + c)];
                    y[n * mChannels + c] = static_cast<float>(mSpatial == 0 && op == ReduceOperation::kAVG
                            ? std::numeric_limits<double>::quiet_NaN()
                            : a * scale);
                }
            }
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    ReduceParams mParams;
    FormatLayout mLayout;
    int64_t mImages{0};
    int64_t mChannels{0};
    int64_t mSpatial{0};
    int64_t mLanes{0};
    int64_t mGroups{0};
    std::vector<double> mAcc; //!< per image, the stored channel vectors' accumulators (channel c at index c)
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createReduceKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Reduce kernel: no plan node");
    }
    if (setup.inputTypes.size() != 1 || setup.outputTypes.size() != 1 || !setup.inputPresent[0])
    {
        return reduceError(setup, "expects one input and one output");
    }
    KILN_ASSIGN_OR_RETURN(ReduceParams const params, readReduceParams(setup));
    bool supported = false;
    dispatchType(setup.inputTypes[0], [&](auto tag) {
        using T = decltype(tag);
        supported = kIS_FLOAT_STORAGE<T> || kIS_INT_STORAGE<T>;
    });
    if (!supported)
    {
        return reduceError(setup, std::string("type ") + dataTypeName(setup.inputTypes[0]) + " is not supported");
    }
    nvinfer1::TensorFormat const format = setup.inputFormats.empty() ? nvinfer1::TensorFormat::kLINEAR : setup.inputFormats[0];
    if (format != nvinfer1::TensorFormat::kLINEAR)
    {
        FormatLayout layout;
        bool const spatial = params.mask == 0b1100 && setup.inputRanks[0] == 4;
        bool const opOk = params.op != ReduceOperation::kPROD;
        if (!formatLayout(format, 4, layout) || layout.linear || !spatial || !opOk
            || setup.inputTypes[0] != nvinfer1::DataType::kFLOAT || setup.outputTypes[0] != nvinfer1::DataType::kFLOAT)
        {
            return unsupported("layer '" + setup.node->name + "' (Reduce): reads " + formatName(format)
                + " only as an FP32 sum, average, maximum or minimum over axes 2 and 3 of a 4-D tensor");
        }
        return std::unique_ptr<Kernel>(std::make_unique<RegionReduceKernel>(setup, params, layout));
    }
    return std::unique_ptr<Kernel>(std::make_unique<ReduceKernel>(setup, params));
}

} // namespace kiln
