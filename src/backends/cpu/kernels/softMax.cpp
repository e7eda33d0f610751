// CPU kernel of ISoftMaxLayer: numerically stable softmax (max subtracted) along one axis; FP16/BF16 storage computes
// in float, sums accumulate in double. The slices (outer x inner) are split over the CPU thread pool. Tactic "rows"
// (softmax along the innermost axis): vectorised rows (fastMath.h's exponential), FP32 in the output itself, BF16/FP16
// through a per-task float row (reducedFloat.h). Tactic "onednn" (BF16 along the innermost axis): oneDNN's softmax,
// about 2.5x faster than the rows kernel on BF16 rows of 128 (docs/cpu-backend.md). Tactic "reference": strided
// slices through per-task scratch with std::exp.
#include "backends/common/softMaxParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/fastMath.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/reducedFloat.h"
#include "backends/cpu/kernels/simd.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

template <typename T>
constexpr bool kIS_FLOAT_STORAGE = std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

//! Softmax of slices [begin, end) of outer x inner, slice s = (o, i) with elements base + j * inner; `row` holds n
//! floats.
template <typename T>
void softMaxSlices(T const* in, T* out, int64_t begin, int64_t end, int64_t n, int64_t inner, float* row)
{
    for (int64_t slice = begin; slice < end; ++slice)
    {
        int64_t const o = slice / inner;
        int64_t const i = slice - o * inner;
        int64_t const base = o * n * inner + i;
        float maxValue = -INFINITY;
        for (int64_t j = 0; j < n; ++j)
        {
            float const x = static_cast<float>(in[base + j * inner]);
            row[j] = x;
            // NaN propagates through the sum below; keep the max finite-or-inf for stability.
            maxValue = x > maxValue ? x : maxValue;
        }
        double sum = 0.0;
        for (int64_t j = 0; j < n; ++j)
        {
            float const e = std::exp(row[j] - maxValue);
            row[j] = e;
            sum += static_cast<double>(e);
        }
        float const scale = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < n; ++j)
        {
            out[base + j * inner] = T(row[j] * scale);
        }
    }
}

//! FP32 rows along the innermost axis: the same arithmetic as softMaxSlices, with the exponentials kept in the
//! output row and the maximum taken in independent lanes.
KILN_CPU_CLONES void softMaxRows(float const* in, float* out, int64_t begin, int64_t end, int64_t n)
{
    for (int64_t r = begin; r < end; ++r)
    {
        float const* x = in + r * n;
        float* y = out + r * n;
        // Both reductions in independent vector chains (fastMath.h): one chain of dependent operations cost more
        // than the exponentials.
        float const maxValue = rowMax(x, n);
        for (int64_t j = 0; j < n; ++j)
        {
            y[j] = x[j] - maxValue;
        }
        expNonPositiveInPlace(y, n); // vectorised (fastMath.h); NaN rows stay NaN
        double const sum = rowSumDouble(y, n);
        float const scale = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < n; ++j)
        {
            y[j] *= scale;
        }
    }
}

//! BF16/FP16 rows [begin, end) along the innermost axis: each converted into `row` (n floats), softMaxRows there,
//! rounded back to nearest even.
void softMaxConvertedRows(TensorView const& in, TensorView const& out, int64_t begin, int64_t end, int64_t n,
    float* row)
{
    for (int64_t r = begin; r < end; ++r)
    {
        loadFloatRow(in.data, in.type, r * n, n, row);
        softMaxRows(row, row, 0, 1, n);
        storeFloatRow(row, out.type, r * n, n, out.data);
    }
}

constexpr char const* kTACTIC_ROWS = "rows";
constexpr char const* kTACTIC_REFERENCE_SLICES = "reference";
constexpr char const* kTACTIC_ONEDNN_ROWS = "onednn";

//! oneDNN's softmax serves BF16 input and output along the innermost axis (FP32 and FP16 stay on the rows kernel).
bool oneDnnRowsApply(KernelSetup const& setup, int32_t axis)
{
    return oneDnnBuilt() && setup.inputTypes[0] == DataType::kBF16 && setup.outputTypes[0] == DataType::kBF16
        && axis == setup.inputRanks[0] - 1;
}

//! create: the axis (and the storage type, FLOAT/HALF/BF16); reshape: outer x n x inner and the row scratch.
class SoftMaxKernel final : public Kernel
{
public:
    SoftMaxKernel(KernelSetup const& setup, int32_t axis, bool rowTactic, bool oneDnnTactic)
        : mSetup(setup)
        , mAxis(axis)
        , mRowTactic(rowTactic)
        , mOneDnnTactic(oneDnnTactic)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mSplit, softMaxShapes(mSetup, mAxis, inputs, outputs));
        mTasks = cpuThreadPool().threads();
        // The row scratch only when there are rows (an empty tensor's axis may still be huge).
        mRow.resize(mSplit.outer * mSplit.inner == 0 ? 0 : static_cast<size_t>(mSplit.n * mTasks));
#if KILN_HAVE_ONEDNN
        mUseOneDnn = mOneDnnTactic && mSplit.inner == 1 && mSplit.outer * mSplit.n > 0 && prepareOneDnn();
#endif
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "SoftMax");
        }
        if (mSplit.outer * mSplit.inner == 0 || mSplit.n == 0)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        int64_t const n = mSplit.n;
        int64_t const slices = mSplit.outer * mSplit.inner;
        int64_t const grain = std::max<int64_t>(1, 4096 / n);
#if KILN_HAVE_ONEDNN
        if (mUseOneDnn)
        {
            return runOneDnn(in, out);
        }
#endif
        if (mRowTactic && mSplit.inner == 1 && in.type == DataType::kFLOAT)
        {
            // In place too: each row's maximum is taken before the row is written.
            auto const* x = static_cast<float const*>(in.data);
            auto* y = static_cast<float*>(out.data);
            parallelFor(slices, grain, [&](int64_t begin, int64_t end) { softMaxRows(x, y, begin, end, n); });
            return Status::ok();
        }
        if (mRowTactic && mSplit.inner == 1)
        {
            parallelForTasks(slices, grain, mTasks, [&](int32_t task, int64_t begin, int64_t end) {
                softMaxConvertedRows(in, out, begin, end, n, mRow.data() + task * n);
            });
            return Status::ok();
        }
        dispatchType(in.type, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (kIS_FLOAT_STORAGE<T>)
            {
                auto const* x = static_cast<T const*>(in.data);
                auto* y = static_cast<T*>(out.data);
                parallelForTasks(slices, grain, mTasks, [&](int32_t task, int64_t begin, int64_t end) {
                    softMaxSlices(x, y, begin, end, n, mSplit.inner, mRow.data() + task * n);
                });
            }
        });
        return Status::ok();
    }

private:
#if KILN_HAVE_ONEDNN
    //! oneDNN's softmax over outer x n rows; false where oneDNN offers only its reference implementation.
    bool prepareOneDnn()
    {
        try
        {
            dnnl::engine& engine = oneDnnEngine();
            dnnl::memory::desc const data({mSplit.outer, mSplit.n}, dnnl::memory::data_type::bf16,
                dnnl::memory::format_tag::ab);
            dnnl::softmax_forward::desc const desc(dnnl::prop_kind::forward_inference, data, 1);
            dnnl::softmax_forward::primitive_desc const pd(desc, engine);
            if (isOneDnnReferenceImpl(pd))
            {
                return false;
            }
            mDnnSrc = dnnl::memory(data, engine, DNNL_MEMORY_NONE);
            mDnnDst = dnnl::memory(data, engine, DNNL_MEMORY_NONE);
            mDnnStep = OneDnnStep(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, mDnnSrc}, {DNNL_ARG_DST, mDnnDst}});
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

    Status runOneDnn(TensorView const& in, TensorView const& out)
    {
        try
        {
            mDnnSrc.set_data_handle(in.data);
            mDnnDst.set_data_handle(out.data);
            mDnnStep.execute(*mStream);
            mStream->wait();
        }
        catch (dnnl::error const& e)
        {
            return internalError(cpuNodeLabel(mSetup, "SoftMax") + ": oneDNN softmax failed: " + e.what());
        }
        return Status::ok();
    }

    bool mUseOneDnn{false}; //!< oneDNN at the current shapes
    dnnl::memory mDnnSrc;   //!< the step's arguments (it holds their handles only)
    dnnl::memory mDnnDst;
    OneDnnStep mDnnStep;
    std::optional<dnnl::stream> mStream;
#endif

    KernelSetup mSetup;
    int32_t mAxis;
    bool mRowTactic;    //!< tactic "rows": softMaxRows along the innermost axis
    bool mOneDnnTactic; //!< tactic "onednn": oneDNN's softmax (BF16, innermost axis), else rows
    SoftMaxParams mSplit;
    int32_t mTasks{1};       //!< thread-pool tasks that mRow has room for
    std::vector<float> mRow; //!< one slice along the axis per task
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSoftMaxKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    if (setup.inputTypes.size() != 1 || setup.outputTypes.size() != 1)
    {
        return softMaxError(setup, "expects one input and one output");
    }
    DataType const type = setup.inputTypes[0];
    if (type != DataType::kFLOAT && type != DataType::kHALF && type != DataType::kBF16)
    {
        return softMaxError(setup, std::string("type ") + dataTypeName(type) + " is not supported");
    }
    KILN_ASSIGN_OR_RETURN(int32_t const axis, readSoftMaxAxis(setup, setup.inputRanks[0]));
    std::string const& tactic = setup.node->tactic;
    if (!tactic.empty() && tactic != kTACTIC_ROWS && tactic != kTACTIC_REFERENCE_SLICES
        && tactic != kTACTIC_ONEDNN_ROWS)
    {
        return softMaxError(
            setup, "unknown CPU tactic '" + tactic + "' (expected 'onednn', 'rows' or 'reference')");
    }
    bool const rows = tactic != kTACTIC_REFERENCE_SLICES && axis == setup.inputRanks[0] - 1;
    bool const oneDnn = rows && (tactic.empty() || tactic == kTACTIC_ONEDNN_ROWS) && oneDnnRowsApply(setup, axis);
    return std::unique_ptr<Kernel>(std::make_unique<SoftMaxKernel>(setup, axis, rows, oneDnn));
}

std::vector<std::string> softMaxTactics(KernelSetup const& setup)
{
    if (setup.node == nullptr || setup.inputRanks.size() != 1 || setup.inputTypes.size() != 1
        || !isFloatStorageType(setup.inputTypes[0]))
    {
        return {kTACTIC_REFERENCE_SLICES};
    }
    StatusOr<int32_t> axis = readSoftMaxAxis(setup, setup.inputRanks[0]);
    if (axis.isOk() && oneDnnRowsApply(setup, *axis))
    {
        return {kTACTIC_ONEDNN_ROWS, kTACTIC_ROWS, kTACTIC_REFERENCE_SLICES};
    }
    if (axis.isOk() && *axis == setup.inputRanks[0] - 1)
    {
        return {kTACTIC_ROWS, kTACTIC_REFERENCE_SLICES}; // "reference": KILN_CPU_TACTIC, or no workspace allowed
    }
    return {kTACTIC_REFERENCE_SLICES};
}

} // namespace kiln
