// CPU kernel of IFillLayer. Linspace: alpha + sum(beta[d] * index[d]), exact in int64 for integer parameters
// and outputs. Random fills use a counter-based generator (SplitMix64 of seed and element index), so element i
// has the same value on every run and for every thread split; uniform values lie in [alpha, beta], normal
// values come from the Box-Muller transform with mean alpha and standard deviation beta.
#include "backends/common/fillParams.h"
#include "backends/cpu/kernels/indexing.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <array>
#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::FillOperation;

namespace
{

bool anyElementType(DataType t)
{
    return elementSize(t) > 0;
}

//! alpha and the per-dimension (linspace) or second (random) beta, as doubles and, for exact integer linspaces, as
//! int64.
struct FillCoefficients
{
    double alpha{0.0};
    std::array<double, nvinfer1::Dims::MAX_DIMS> beta{};
    int64_t alphaInt{0};
    DimArray betaInt{};
};

//! create: operation, seed and the static alpha/beta; reshape: the output's strides and, for alpha/beta inputs whose
//! values shape inference evaluated, the coefficients; inputs known only from their data are read at each run.
class FillKernel final : public Kernel
{
public:
    FillKernel(KernelSetup const& setup, FillParams params)
        : mSetup(setup)
        , mParams(params)
    {
        Attributes const& attrs = setup.node->attrs;
        mIntParams = attrs.getInt("int_params", 0) != 0;
        mStatic.alpha = mIntParams ? static_cast<double>(attrs.getInt("alpha_int", 0)) : attrs.getFloat("alpha", 0.0);
        mStatic.beta.fill(mIntParams ? static_cast<double>(attrs.getInt("beta_int", 1)) : attrs.getFloat("beta", 1.0));
        mStatic.alphaInt = attrs.getInt("alpha_int", 0);
        mStatic.betaInt.fill(attrs.getInt("beta_int", 1));
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(fillShapes(mSetup, mParams, inputs, outputs, anyElementType));
        TensorView const& out = outputs[0];
        mRank = out.dims.nbDims;
        mStrides = stridesOf(out.dims);
        mIntOut = out.type == DataType::kINT32 || out.type == DataType::kINT64;
        mCoefficients = mStatic;
        mReadAtRun = false;
        if (mParams.volume > 0 && mParams.dynamic)
        {
            if (mParams.op == FillOperation::kLINSPACE && inputs[2].volume() != mRank)
            {
                return invalidArgument("fill: beta must have one element per output dimension");
            }
            mDynamicInt = inputs[1].type == DataType::kINT32 || inputs[1].type == DataType::kINT64;
            mReadAtRun = inputs[1].values == nullptr || inputs[2].values == nullptr;
            if (!mReadAtRun)
            {
                readCoefficients(inputs);
            }
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Fill");
        }
        if (mParams.volume == 0)
        {
            return Status::ok();
        }
        if (mReadAtRun)
        {
            readCoefficients(inputs);
        }
        TensorView const& out = outputs[0];
        if (mParams.op == FillOperation::kLINSPACE)
        {
            bool const exact = (mParams.dynamic ? mDynamicInt : mIntParams) && mIntOut;
            if (exact)
            {
                linspace(mCoefficients.alphaInt, mCoefficients.betaInt, [&](int64_t i, int64_t v) {
                    storeInt(out.data, out.type, i, v);
                });
            }
            else
            {
                linspace(mCoefficients.alpha, mCoefficients.beta, [&](int64_t i, double v) {
                    storeElement(out.data, out.type, i, v);
                });
            }
            return Status::ok();
        }
        double const alpha = mCoefficients.alpha;
        double const beta = mCoefficients.beta[0];
        auto const s = static_cast<uint64_t>(mParams.seed);
        if (mParams.op == FillOperation::kRANDOM_UNIFORM)
        {
            for (int64_t i = 0; i < mParams.volume; ++i)
            {
                double const u = uniformAt(s, static_cast<uint64_t>(i));
                storeElement(out.data, out.type, i, alpha + (beta - alpha) * u);
            }
            return Status::ok();
        }
        constexpr double kTWO_PI = 6.283185307179586476925286766559;
        for (int64_t i = 0; i < mParams.volume; ++i)
        {
            double const u1 = 1.0 - uniformAt(s, 2 * static_cast<uint64_t>(i)); // (0, 1]: log stays finite
            double const u2 = uniformAt(s, 2 * static_cast<uint64_t>(i) + 1);
            double const z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTWO_PI * u2);
            storeElement(out.data, out.type, i, alpha + beta * z);
        }
        return Status::ok();
    }

private:
    //! alpha + sum(beta[d] * index[d]) for every element, handed to `store(i, value)`.
    template <typename V, typename Store>
    void linspace(V alpha, std::array<V, nvinfer1::Dims::MAX_DIMS> const& beta, Store&& store) const
    {
        for (int64_t i = 0; i < mParams.volume; ++i)
        {
            V v = alpha;
            int64_t rest = i;
            for (int32_t d = 0; d < mRank; ++d)
            {
                int64_t const idx = rest / mStrides[static_cast<size_t>(d)];
                rest -= idx * mStrides[static_cast<size_t>(d)];
                v += beta[static_cast<size_t>(d)] * static_cast<V>(idx);
            }
            store(i, v);
        }
    }

    //! Element i of a parameter input, from its evaluated values (shape tensors) or from its data.
    static double paramAt(TensorView const& t, int64_t i)
    {
        return t.values != nullptr ? static_cast<double>(t.values[i]) : loadElement(t.data, t.type, i);
    }
    static int64_t paramIntAt(TensorView const& t, int64_t i)
    {
        return t.values != nullptr ? t.values[i] : loadInt(t.data, t.type, i);
    }

    //! The dynamic alpha (input 1) and beta (input 2: one per dimension for a linspace, else one).
    void readCoefficients(std::vector<TensorView> const& inputs)
    {
        int32_t const nbBeta = mParams.op == FillOperation::kLINSPACE ? mRank : 1;
        mCoefficients.alpha = paramAt(inputs[1], 0);
        mCoefficients.alphaInt = paramIntAt(inputs[1], 0);
        for (int32_t d = 0; d < nbBeta; ++d)
        {
            mCoefficients.beta[static_cast<size_t>(d)] = paramAt(inputs[2], d);
            mCoefficients.betaInt[static_cast<size_t>(d)] = paramIntAt(inputs[2], d);
        }
    }

    KernelSetup mSetup;
    FillParams mParams;
    bool mIntParams{false};          //!< static alpha/beta are integers ("int_params")
    FillCoefficients mStatic;        //!< from the attributes
    FillCoefficients mCoefficients;  //!< of the current shapes (static, or from the inputs)
    int32_t mRank{0};
    DimArray mStrides{};             //!< row-major strides of the output
    bool mIntOut{false};
    bool mDynamicInt{false};         //!< the alpha input is an integer tensor
    bool mReadAtRun{false};          //!< alpha/beta inputs without evaluated values: read their data at each run
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createFillKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(FillParams const params, readFillParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<FillKernel>(setup, params));
}

} // namespace kiln
