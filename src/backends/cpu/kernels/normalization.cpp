// CPU reference kernel of INormalizationLayer: y = (x - mean) / sqrt(var + eps) * scale + bias. Mean and (biased)
// variance are taken over the masked axes, and with nbGroups > 1 also over the channels (axis 1) of each group.
// Statistics use two passes in double; FP16/BF16 storage is read and written through float. The compute precision
// attribute is accepted but the CPU always computes at least in FP32.
#include "backends/common/normalizationParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

Status executeNormalization(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(NormalizationParams const p, makeNormalizationParams(setup, inputs, outputs));
    double const eps = p.eps;
    int64_t const mask = p.mask;
    int64_t const groups = p.groups;
    int64_t const perGroup = p.perGroup;
    bool const perGroupScale = p.perGroupScale;
    int32_t const rank = p.rank;
    TensorView const& x = inputs[0];
    TensorView const& scale = inputs[1];
    TensorView const& bias = inputs[2];
    TensorView const& y = outputs[0];

    // Statistics key of an element: its coordinates with reduced axes dropped and the channel mapped to its group.
    std::vector<int64_t> keyStrides(static_cast<size_t>(rank), 0);
    int64_t keys = 1;
    for (int32_t d = rank - 1; d >= 0; --d)
    {
        if ((mask >> d) & 1)
        {
            continue;
        }
        int64_t const extent = (d == 1 && groups > 1) ? groups : x.dims.d[d];
        keyStrides[static_cast<size_t>(d)] = keys;
        keys *= extent;
    }
    std::vector<int64_t> const scaleStrides = contiguousStrides(scale.dims);
    std::vector<int64_t> const biasStrides = contiguousStrides(bias.dims);
    int64_t const volume = x.volume();
    if (volume == 0)
    {
        return Status::ok();
    }
    std::vector<double> sum(static_cast<size_t>(keys), 0.0);
    std::vector<double> squares(static_cast<size_t>(keys), 0.0);
    std::vector<int64_t> count(static_cast<size_t>(keys), 0);
    std::vector<int64_t> keyOf(static_cast<size_t>(volume));
    std::vector<int64_t> scaleIndex(static_cast<size_t>(volume));
    std::vector<int64_t> biasIndex(static_cast<size_t>(volume));
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
            int64_t const grouped = (d == 1 && groups > 1) ? c / perGroup : c;
            key += grouped * keyStrides[ds];
            int64_t const sc = d == 1 && perGroupScale ? grouped : c;
            si += (scale.dims.d[d] == 1 ? 0 : sc) * scaleStrides[ds];
            bi += (bias.dims.d[d] == 1 ? 0 : sc) * biasStrides[ds];
        }
        keyOf[static_cast<size_t>(flat)] = key;
        scaleIndex[static_cast<size_t>(flat)] = si;
        biasIndex[static_cast<size_t>(flat)] = bi;
        sum[static_cast<size_t>(key)] += loadElement(x.data, x.type, flat);
        ++count[static_cast<size_t>(key)];
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            if (++coord[static_cast<size_t>(d)] < x.dims.d[d])
            {
                break;
            }
            coord[static_cast<size_t>(d)] = 0;
        }
    }
    std::vector<double> mean(static_cast<size_t>(keys), 0.0);
    for (int64_t k = 0; k < keys; ++k)
    {
        size_t const ks = static_cast<size_t>(k);
        mean[ks] = count[ks] > 0 ? sum[ks] / static_cast<double>(count[ks]) : 0.0;
    }
    for (int64_t flat = 0; flat < volume; ++flat)
    {
        size_t const k = static_cast<size_t>(keyOf[static_cast<size_t>(flat)]);
        double const diff = loadElement(x.data, x.type, flat) - mean[k];
        squares[k] += diff * diff;
    }
    std::vector<double> invStd(static_cast<size_t>(keys), 0.0);
    for (int64_t k = 0; k < keys; ++k)
    {
        size_t const ks = static_cast<size_t>(k);
        double const var = count[ks] > 0 ? squares[ks] / static_cast<double>(count[ks]) : 0.0;
        invStd[ks] = 1.0 / std::sqrt(var + eps);
    }
    for (int64_t flat = 0; flat < volume; ++flat)
    {
        size_t const fs = static_cast<size_t>(flat);
        size_t const k = static_cast<size_t>(keyOf[fs]);
        double const normalized = (loadElement(x.data, x.type, flat) - mean[k]) * invStd[k];
        double const value = normalized * loadElement(scale.data, scale.type, scaleIndex[fs])
            + loadElement(bias.data, bias.type, biasIndex[fs]);
        storeElement(y.data, y.type, flat, value);
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createNormalizationKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Normalization kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeNormalization);
}

} // namespace kiln
