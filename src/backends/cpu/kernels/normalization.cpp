// CPU reference kernel of INormalizationLayer: y = (x - mean) / sqrt(var + eps) * scale + bias. Mean and (biased)
// variance are taken over the masked axes, and with nbGroups > 1 also over the channels (axis 1) of each group.
// Statistics use two passes in double; FP16/BF16 storage is read and written through float. The compute precision
// attribute is accepted but the CPU always computes at least in FP32.
#include "backends/common/normalizationParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <algorithm>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

//! create: epsilon, axes, groups; reshape: for every element its statistics key and its scale and bias offsets, the
//! element count of every key, and the statistics buffers; run: two passes for mean and variance, then the output.
class NormalizationKernel final : public Kernel
{
public:
    NormalizationKernel(KernelSetup const& setup, NormalizationParams params)
        : mSetup(setup)
        , mParams(params)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(normalizationShapes(mSetup, mParams, inputs, outputs));
        NormalizationParams const& p = mParams;
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

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Normalization");
        }
        TensorView const& x = inputs[0];
        TensorView const& scale = inputs[1];
        TensorView const& bias = inputs[2];
        TensorView const& y = outputs[0];
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

private:
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
    return std::unique_ptr<Kernel>(std::make_unique<NormalizationKernel>(setup, params));
}

} // namespace kiln
