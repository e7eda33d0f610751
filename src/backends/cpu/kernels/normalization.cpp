// CPU kernel of INormalizationLayer: y = (x - mean) / sqrt(var + eps) * scale + bias. Mean and (biased) variance are
// taken over the masked axes, and with nbGroups > 1 also over the channels (axis 1) of each group. Statistics use
// two passes in double; FP16/BF16 storage is read and written through float. The compute precision attribute is
// accepted but the CPU always computes at least in FP32.
// Tactic "rows": tensors normalized over their trailing axes (layer normalization) with a scale and bias that do not
// vary across the normalized rows take a row kernel: each row's statistics in double with several partial sums, the
// rows split over the CPU thread pool; BF16/FP16 rows are converted to float a row at a time (reducedFloat.h) and
// rounded back to nearest even. Tactic "onednn" (BF16 x and y): oneDNN's layer_normalization (float statistics,
// FP32 scale and shift copied from scale and bias) on the row plan where scale and bias are dense over the row, the
// row kernel elsewhere; 3-4x faster than the row kernel on BF16 rows of 256 and 768 (docs/cpu-backend.md). Tactic
// "reference", and shapes the row kernel does not serve, run the general per-element walk.
// The fused residual form (normalizationParams.h, "fuse.residualNorm"): the sum x + r is computed first, in float and
// rounded to x's type as the unfused addition stores it, into the sum output (or a scratch buffer when the sum has no
// other reader), and then normalised by the same tactics.
#include "backends/common/normalizationParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/fastMath.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/reducedFloat.h"
#include "backends/cpu/kernels/simd.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

//! Rows of `length` elements normalized one by one; scale/bias at scaleIndex[p]/biasIndex[p] for position p of every
//! row (or directly at p when dense). FP32 rows are read and written in place; BF16/FP16 rows are converted into a
//! per-task float row first and rounded back from it (reducedFloat.h).
struct RowNormalization
{
    int64_t rows{0};
    int64_t length{0};
    double eps{0.0};
    std::vector<int64_t> scaleIndex;
    std::vector<int64_t> biasIndex;
    bool scaleDense{false};
    bool biasDense{false};
};

//! One row: statistics in double over xr, then yr (which may be xr).
[[gnu::always_inline]] inline void normalizeRow(
    RowNormalization const& plan, float const* xr, float const* scale, float const* bias, float* yr)
{
    int64_t const length = plan.length;
    double const n = static_cast<double>(length);
    double const mean = rowSumDouble(xr, length) / n;
    double const var = rowSquaredDeviations(xr, length, mean) / n;
    double const invStd = 1.0 / std::sqrt(var + plan.eps);
    if (plan.scaleDense && plan.biasDense)
    {
        using detail::Double8;
        using detail::Float8;
        int64_t i = 0;
        for (; i + 8 <= length; i += 8)
        {
            Double8 v;
            Double8 s;
            Double8 b;
            detail::loadAsDouble8(xr + i, v);
            detail::loadAsDouble8(scale + i, s);
            detail::loadAsDouble8(bias + i, b);
            Float8 const r = __builtin_convertvector((v - mean) * invStd * s + b, Float8);
            std::memcpy(yr + i, &r, sizeof(r));
        }
        for (; i < length; ++i)
        {
            yr[i] = static_cast<float>((static_cast<double>(xr[i]) - mean) * invStd * scale[i] + bias[i]);
        }
        return;
    }
    for (int64_t i = 0; i < length; ++i)
    {
        size_t const is = static_cast<size_t>(i);
        double const s = scale[plan.scaleDense ? i : plan.scaleIndex[is]];
        double const b = bias[plan.biasDense ? i : plan.biasIndex[is]];
        yr[i] = static_cast<float>((static_cast<double>(xr[i]) - mean) * invStd * s + b);
    }
}

//! Rows [begin, end) of FP32 x into FP32 y.
KILN_CPU_CLONES void normalizeRows(RowNormalization const& plan, float const* x, float const* scale,
    float const* bias, float* y, int64_t begin, int64_t end)
{
    for (int64_t r = begin; r < end; ++r)
    {
        normalizeRow(plan, x + r * plan.length, scale, bias, y + r * plan.length);
    }
}

//! Rows [begin, end) of x and y of any float storage type (one of them BF16/FP16) through `row` (length floats).
KILN_CPU_CLONES void normalizeConvertedRows(RowNormalization const& plan, TensorView const& x, float const* scale,
    float const* bias, TensorView const& y, int64_t begin, int64_t end, float* row)
{
    int64_t const length = plan.length;
    bool const floatIn = x.type == DataType::kFLOAT;
    bool const floatOut = y.type == DataType::kFLOAT;
    for (int64_t r = begin; r < end; ++r)
    {
        float const* xr = static_cast<float const*>(x.data) + (floatIn ? r * length : 0);
        if (!floatIn)
        {
            loadFloatRow(x.data, x.type, r * length, length, row);
            xr = row;
        }
        float* yr = floatOut ? static_cast<float*>(y.data) + r * length : row;
        normalizeRow(plan, xr, scale, bias, yr);
        if (!floatOut)
        {
            storeFloatRow(row, y.type, r * length, length, y.data);
        }
    }
}

//! The row kernel's plan when x is normalized over its trailing axes [first, rank) and scale/bias do not vary
//! across rows (extent 1 on every axis before `first`); nullopt otherwise.
std::optional<RowNormalization> planRows(NormalizationParams const& p, std::vector<TensorView> const& inputs)
{
    nvinfer1::Dims const& x = inputs[0].dims;
    if (p.groups > 1 || p.rank < 1)
    {
        return std::nullopt;
    }
    int32_t first = p.rank;
    while (first > 0 && ((p.mask >> (first - 1)) & 1))
    {
        --first;
    }
    if (first == p.rank || (p.mask >> first) << first != p.mask)
    {
        return std::nullopt; // no trailing reduced axis, or reduced axes before the trailing block
    }
    for (size_t k = 1; k < 3; ++k)
    {
        for (int32_t d = 0; d < first; ++d)
        {
            if (inputs[k].dims.d[d] != 1)
            {
                return std::nullopt;
            }
        }
    }
    RowNormalization plan;
    plan.eps = p.eps;
    plan.length = 1;
    for (int32_t d = first; d < p.rank; ++d)
    {
        plan.length *= x.d[d];
    }
    plan.rows = plan.length == 0 ? 0 : inputs[0].volume() / plan.length;
    // Offsets of every row position in scale and bias (broadcast axes stay at 0).
    for (size_t k = 1; k < 3; ++k)
    {
        nvinfer1::Dims const& w = inputs[k].dims;
        std::vector<int64_t> const strides = contiguousStrides(w);
        std::vector<int64_t>& index = k == 1 ? plan.scaleIndex : plan.biasIndex;
        index.assign(static_cast<size_t>(plan.length), 0);
        bool dense = true;
        for (int64_t pos = 0; pos < plan.length; ++pos)
        {
            int64_t rest = pos;
            int64_t offset = 0;
            for (int32_t d = p.rank - 1; d >= first; --d)
            {
                int64_t const c = rest % x.d[d];
                rest /= x.d[d];
                offset += (w.d[d] == 1 ? 0 : c) * strides[static_cast<size_t>(d)];
            }
            index[static_cast<size_t>(pos)] = offset;
            dense = dense && offset == pos;
        }
        (k == 1 ? plan.scaleDense : plan.biasDense) = dense;
    }
    return plan;
}

constexpr char const* kTACTIC_ROWS = "rows";
constexpr char const* kTACTIC_REFERENCE_WALK = "reference";
constexpr char const* kTACTIC_ONEDNN_ROWS = "onednn";

//! oneDNN's layer normalization serves BF16 x and y (its source and destination share one type; FP16 it has not on
//! the CPU, and FP32 stays on Kiln's rows, which keep the statistics in double).
bool oneDnnRowsApply(KernelSetup const& setup)
{
    return oneDnnBuilt() && setup.inputTypes[0] == DataType::kBF16 && setup.outputTypes[0] == DataType::kBF16;
}

//! Whether the row kernel serves the node: float storage types (FP32, FP16, BF16) everywhere, no groups, and the
//! normalized axes a trailing block (rank from the setup; at reshape scale and bias must also not vary across rows,
//! else that shape takes the general walk).
bool rowKernelApplies(KernelSetup const& setup, NormalizationParams const& p)
{
    bool const types = std::all_of(setup.inputTypes.begin(), setup.inputTypes.end(), isFloatStorageType)
        && !setup.outputTypes.empty() && std::all_of(setup.outputTypes.begin(), setup.outputTypes.end(), isFloatStorageType);
    int32_t const rank = setup.inputRanks.empty() ? 0 : setup.inputRanks[0];
    if (!types || p.groups > 1 || rank < 1 || p.mask <= 0 || (p.mask >> rank) != 0)
    {
        return false;
    }
    // A trailing block of axes [first, rank) plus its lowest bit carries into bit `rank` and nowhere else.
    return p.mask + (p.mask & -p.mask) == (int64_t{1} << rank);
}

//! create: epsilon, axes, groups; reshape: for every element its statistics key and its scale and bias offsets, the
//! element count of every key, and the statistics buffers; run: two passes for mean and variance, then the output.
class NormalizationKernel final : public Kernel
{
public:
    NormalizationKernel(KernelSetup const& setup, NormalizationParams params, bool rowTactic, bool oneDnnTactic)
        : mSetup(setup)
        , mParams(params)
        , mRowTactic(rowTactic)
        , mOneDnnTactic(oneDnnTactic)
        , mResidual(isResidualNormalization(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        if (!mResidual)
        {
            return reshapeLayer(inputs, outputs);
        }
        KILN_ASSIGN_OR_RETURN(mResidualShapes, residualNormShapes(mSetup, inputs, outputs));
        int64_t const bytes = mResidualShapes.sumOutput ? 0 : inputs[0].volume() * elementSize(inputs[0].type);
        mSumScratch.resize(static_cast<size_t>(bytes));
        return reshapeLayer(normalizationInputs(inputs), normalizationOutputs(outputs));
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const& ctx) override
    {
        if (!mResidual)
        {
            return runLayer(inputs, outputs, ctx);
        }
        if (!mReady)
        {
            return notReshaped(mSetup, "Normalization");
        }
        TensorView sum = inputs[0];
        sum.data = mResidualShapes.sumOutput ? outputs[1].data : static_cast<void*>(mSumScratch.data());
        addResidual(inputs[0], inputs[3], sum);
        return runLayer({sum, inputs[1], inputs[2]}, normalizationOutputs(outputs), ctx);
    }

private:
    //! sum = x + r (r repeating every mResidualShapes.period elements), added in float and rounded to x's type.
    void addResidual(TensorView const& x, TensorView const& r, TensorView const& sum) const
    {
        int64_t const period = mResidualShapes.period;
        int64_t const rows = period > 0 ? x.volume() / period : 0;
        int64_t const grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(period, 1));
        if (x.type == DataType::kFLOAT)
        {
            auto const* xf = static_cast<float const*>(x.data);
            auto const* rf = static_cast<float const*>(r.data);
            auto* sf = static_cast<float*>(sum.data);
            parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
                for (int64_t row = begin; row < end; ++row)
                {
                    for (int64_t i = 0; i < period; ++i)
                    {
                        sf[row * period + i] = xf[row * period + i] + rf[i];
                    }
                }
            });
            return;
        }
        parallelFor(rows, grain, [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end; ++row)
            {
                for (int64_t i = 0; i < period; ++i)
                {
                    int64_t const e = row * period + i;
                    float const v = static_cast<float>(loadElement(x.data, x.type, e))
                        + static_cast<float>(loadElement(r.data, r.type, i));
                    storeElement(sum.data, sum.type, e, static_cast<double>(v));
                }
            }
        });
    }

    //! The layer itself: inputs (x, scale, bias), output y.
    Status reshapeLayer(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
    {
        KILN_RETURN_IF_ERROR(normalizationShapes(mSetup, mParams, inputs, outputs));
        NormalizationParams const& p = mParams;
        mRows.reset();
        if (mRowTactic)
        {
            mRows = planRows(p, inputs);
            if (mRows.has_value())
            {
                prepareRowScratch(inputs, outputs);
#if KILN_HAVE_ONEDNN
                mUseOneDnn = mOneDnnTactic && prepareOneDnn(inputs);
#endif
                mReady = true;
                return Status::ok();
            }
        }
        nvinfer1::Dims const& x = inputs[0].dims;
        nvinfer1::Dims const& scale = inputs[1].dims;
        nvinfer1::Dims const& bias = inputs[2].dims;
        int32_t const rank = p.rank;
        bool const grouped = p.groups > 1;
        // Statistics key of an element: its coordinates with reduced axes dropped and the channel mapped to its group.
        std::vector<int64_t> keyStrides(static_cast<size_t>(rank), 0);
        int64_t keys = 1;
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            if ((p.mask >> d) & 1)
            {
                continue;
            }
            keyStrides[static_cast<size_t>(d)] = keys;
            keys *= (d == 1 && grouped) ? p.groups : x.d[d];
        }
        std::vector<int64_t> const scaleStrides = contiguousStrides(scale);
        std::vector<int64_t> const biasStrides = contiguousStrides(bias);
        int64_t const volume = inputs[0].volume();
        mKeyOf.resize(static_cast<size_t>(volume));
        mScaleIndex.resize(static_cast<size_t>(volume));
        mBiasIndex.resize(static_cast<size_t>(volume));
        mCount.assign(static_cast<size_t>(keys), 0);
        mSum.resize(static_cast<size_t>(keys));
        mSquares.resize(static_cast<size_t>(keys));
        mMean.resize(static_cast<size_t>(keys));
        mInvStd.resize(static_cast<size_t>(keys));
        std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
        for (int64_t flat = 0; flat < volume; ++flat)
        {
            int64_t key = 0;
            int64_t si = 0;
            int64_t bi = 0;
            for (int32_t d = 0; d < rank; ++d)
            {
                size_t const ds = static_cast<size_t>(d);
                int64_t const c = coord[ds];
                int64_t const group = (d == 1 && grouped) ? c / p.perGroup : c;
                key += group * keyStrides[ds];
                int64_t const sc = d == 1 && p.perGroupScale ? group : c;
                si += (scale.d[d] == 1 ? 0 : sc) * scaleStrides[ds];
                bi += (bias.d[d] == 1 ? 0 : sc) * biasStrides[ds];
            }
            size_t const fs = static_cast<size_t>(flat);
            mKeyOf[fs] = key;
            mScaleIndex[fs] = si;
            mBiasIndex[fs] = bi;
            ++mCount[static_cast<size_t>(key)];
            for (int32_t d = rank - 1; d >= 0; --d)
            {
                if (++coord[static_cast<size_t>(d)] < x.d[d])
                {
                    break;
                }
                coord[static_cast<size_t>(d)] = 0;
            }
        }
        mReady = true;
        return Status::ok();
    }

    Status runLayer(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&)
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Normalization");
        }
        TensorView const& x = inputs[0];
        TensorView const& scale = inputs[1];
        TensorView const& bias = inputs[2];
        TensorView const& y = outputs[0];
#if KILN_HAVE_ONEDNN
        if (mRows.has_value() && mUseOneDnn)
        {
            return runOneDnn(x, scale, bias, y);
        }
#endif
        if (mRows.has_value())
        {
            runRows(x, scale, bias, y);
            return Status::ok();
        }
        size_t const volume = mKeyOf.size();
        size_t const keys = mCount.size();
        std::fill(mSum.begin(), mSum.end(), 0.0);
        std::fill(mSquares.begin(), mSquares.end(), 0.0);
        for (size_t flat = 0; flat < volume; ++flat)
        {
            mSum[static_cast<size_t>(mKeyOf[flat])] += loadElement(x.data, x.type, static_cast<int64_t>(flat));
        }
        for (size_t k = 0; k < keys; ++k)
        {
            mMean[k] = mCount[k] > 0 ? mSum[k] / static_cast<double>(mCount[k]) : 0.0;
        }
        for (size_t flat = 0; flat < volume; ++flat)
        {
            size_t const k = static_cast<size_t>(mKeyOf[flat]);
            double const diff = loadElement(x.data, x.type, static_cast<int64_t>(flat)) - mMean[k];
            mSquares[k] += diff * diff;
        }
        for (size_t k = 0; k < keys; ++k)
        {
            double const var = mCount[k] > 0 ? mSquares[k] / static_cast<double>(mCount[k]) : 0.0;
            mInvStd[k] = 1.0 / std::sqrt(var + mParams.eps);
        }
        for (size_t flat = 0; flat < volume; ++flat)
        {
            size_t const k = static_cast<size_t>(mKeyOf[flat]);
            auto const i = static_cast<int64_t>(flat);
            double const normalized = (loadElement(x.data, x.type, i) - mMean[k]) * mInvStd[k];
            double const value = normalized * loadElement(scale.data, scale.type, mScaleIndex[flat])
                + loadElement(bias.data, bias.type, mBiasIndex[flat]);
            storeElement(y.data, y.type, i, value);
        }
        return Status::ok();
    }

    //! The row kernel's scratch: float copies of scale and bias unless FP32, one float row per task unless x and y
    //! are FP32.
    void prepareRowScratch(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
    {
        RowNormalization const& plan = *mRows;
        mTasks = cpuThreadPool().threads();
        bool const converted = inputs[0].type != DataType::kFLOAT || outputs[0].type != DataType::kFLOAT;
        mRowScratch.resize(converted && plan.rows > 0 ? static_cast<size_t>(plan.length * mTasks) : 0);
        mScaleFloat.resize(inputs[1].type == DataType::kFLOAT ? 0 : static_cast<size_t>(inputs[1].volume()));
        mBiasFloat.resize(inputs[2].type == DataType::kFLOAT ? 0 : static_cast<size_t>(inputs[2].volume()));
    }

    //! Every row, split over the thread pool (>= 16384 elements a task).
    void runRows(TensorView const& x, TensorView const& scale, TensorView const& bias, TensorView const& y)
    {
        RowNormalization const& plan = *mRows;
        auto const asFloat = [](TensorView const& t, std::vector<float>& copy) {
            if (t.type == DataType::kFLOAT)
            {
                return static_cast<float const*>(t.data);
            }
            loadFloatRow(t.data, t.type, 0, static_cast<int64_t>(copy.size()), copy.data());
            return static_cast<float const*>(copy.data());
        };
        float const* s = asFloat(scale, mScaleFloat);
        float const* b = asFloat(bias, mBiasFloat);
        int64_t const grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(plan.length, 1));
        if (mRowScratch.empty())
        {
            auto const* xf = static_cast<float const*>(x.data);
            auto* yf = static_cast<float*>(y.data);
            parallelFor(plan.rows, grain, [&](int64_t begin, int64_t end) { normalizeRows(plan, xf, s, b, yf, begin, end); });
            return;
        }
        parallelForTasks(plan.rows, grain, mTasks, [&](int32_t task, int64_t begin, int64_t end) {
            normalizeConvertedRows(plan, x, s, b, y, begin, end, mRowScratch.data() + task * plan.length);
        });
    }

#if KILN_HAVE_ONEDNN
    //! oneDNN's layer normalization over the row plan's rows x length (dense scale and bias, read as FP32 copies);
    //! false where it does not apply or oneDNN offers only its reference implementation.
    bool prepareOneDnn(std::vector<TensorView> const& inputs)
    {
        RowNormalization const& plan = *mRows;
        if (!plan.scaleDense || !plan.biasDense || plan.rows == 0)
        {
            return false;
        }
        try
        {
            using Tag = dnnl::memory::format_tag;
            dnnl::engine& engine = oneDnnEngine();
            dnnl::memory::desc const data({plan.rows, plan.length}, oneDnnType(inputs[0].type), Tag::ab);
            dnnl::memory::desc const weights({plan.length}, dnnl::memory::data_type::f32, Tag::a);
            dnnl::layer_normalization_forward::desc const desc(dnnl::prop_kind::forward_inference, data,
                static_cast<float>(plan.eps), dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
            dnnl::layer_normalization_forward::primitive_desc const pd(desc, engine);
            if (isOneDnnReferenceImpl(pd))
            {
                return false;
            }
            mScaleF32.resize(static_cast<size_t>(plan.length));
            mBiasF32.resize(static_cast<size_t>(plan.length));
            mDnnSrc = dnnl::memory(data, engine, DNNL_MEMORY_NONE);
            mDnnDst = dnnl::memory(data, engine, DNNL_MEMORY_NONE);
            mDnnScale = dnnl::memory(weights, engine, mScaleF32.data());
            mDnnShift = dnnl::memory(weights, engine, mBiasF32.data());
            mDnnStep = OneDnnStep(dnnl::layer_normalization_forward(pd), {{DNNL_ARG_SRC, mDnnSrc},
                {DNNL_ARG_DST, mDnnDst}, {DNNL_ARG_SCALE, mDnnScale}, {DNNL_ARG_SHIFT, mDnnShift}});
            if (!mStream.has_value())
            {
                mStream.emplace(engine);
            }
            return true;
        }
        catch (dnnl::error const&)
        {
            return false; // the rows kernel serves it
        }
    }

    Status runOneDnn(TensorView const& x, TensorView const& scale, TensorView const& bias, TensorView const& y)
    {
        int64_t const length = mRows->length;
        loadFloatRow(scale.data, scale.type, 0, length, mScaleF32.data());
        loadFloatRow(bias.data, bias.type, 0, length, mBiasF32.data());
        try
        {
            mDnnSrc.set_data_handle(x.data);
            mDnnDst.set_data_handle(y.data);
            mDnnStep.execute(*mStream);
            mStream->wait();
        }
        catch (dnnl::error const& e)
        {
            return internalError(cpuNodeLabel(mSetup, "Normalization") + ": oneDNN layer normalization failed: "
                + e.what());
        }
        return Status::ok();
    }

    bool mUseOneDnn{false};        //!< oneDNN at the current shapes
    std::vector<float> mScaleF32;  //!< scale as oneDNN reads it
    std::vector<float> mBiasF32;   //!< bias as oneDNN reads it (its shift)
    dnnl::memory mDnnSrc; //!< the step's arguments (it holds their handles only)
    dnnl::memory mDnnDst;
    dnnl::memory mDnnScale;
    dnnl::memory mDnnShift;
    OneDnnStep mDnnStep;
    std::optional<dnnl::stream> mStream;
#endif

    KernelSetup mSetup;
    NormalizationParams mParams;
    std::vector<int64_t> mKeyOf;      //!< per element: its statistics key
    std::vector<int64_t> mScaleIndex; //!< per element: its scale offset
    std::vector<int64_t> mBiasIndex;  //!< per element: its bias offset
    std::vector<int64_t> mCount;      //!< per key: elements
    std::vector<double> mSum;
    std::vector<double> mSquares;
    std::vector<double> mMean;
    std::vector<double> mInvStd;
    bool mRowTactic;                       //!< tactic "rows": the row kernel wherever the shapes allow it
    bool mOneDnnTactic;                    //!< tactic "onednn": oneDNN's layer norm where it applies, else rows
    std::optional<RowNormalization> mRows; //!< the row kernel's plan, when it applies at the current shapes
    int32_t mTasks{1};                     //!< thread-pool tasks that mRowScratch has room for
    std::vector<float> mRowScratch;        //!< one float row per task (BF16/FP16 x or y)
    std::vector<float> mScaleFloat;        //!< scale as float (BF16/FP16 scale)
    std::vector<float> mBiasFloat;         //!< bias as float (BF16/FP16 bias)
    bool mResidual{false};               //!< the fused residual form (normalizationParams.h)
    ResidualNormShapes mResidualShapes;  //!< its shapes at the last reshape
    std::vector<uint8_t> mSumScratch;    //!< the sum when the node does not output it
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createNormalizationKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Normalization kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(NormalizationParams const params, readNormalizationParams(setup));
    std::string const& tactic = setup.node->tactic;
    if (!tactic.empty() && tactic != kTACTIC_ROWS && tactic != kTACTIC_REFERENCE_WALK && tactic != kTACTIC_ONEDNN_ROWS)
    {
        return invalidArgument("layer '" + setup.node->name + "': unknown CPU tactic '" + tactic
            + "' (expected 'onednn', 'rows' or 'reference')");
    }
    bool const rows = tactic != kTACTIC_REFERENCE_WALK && rowKernelApplies(setup, params);
    bool const oneDnn = rows && (tactic.empty() || tactic == kTACTIC_ONEDNN_ROWS) && oneDnnRowsApply(setup);
    return std::unique_ptr<Kernel>(std::make_unique<NormalizationKernel>(setup, params, rows, oneDnn));
}

std::vector<std::string> normalizationTactics(KernelSetup const& setup)
{
    StatusOr<NormalizationParams> params = readNormalizationParams(setup);
    if (params.isOk() && rowKernelApplies(setup, *params) && oneDnnRowsApply(setup))
    {
        return {kTACTIC_ONEDNN_ROWS, kTACTIC_ROWS, kTACTIC_REFERENCE_WALK};
    }
    if (params.isOk() && rowKernelApplies(setup, *params))
    {
        return {kTACTIC_ROWS, kTACTIC_REFERENCE_WALK}; // "reference": KILN_CPU_TACTIC, or no workspace allowed
    }
    return {kTACTIC_REFERENCE_WALK};
}

} // namespace kiln
