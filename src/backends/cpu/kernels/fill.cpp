// CPU kernel of IFillLayer. Linspace: alpha + sum(beta[d] * index[d]), exact in int64 for integer parameters
// and outputs. Random fills use a counter-based generator (SplitMix64 of seed and element index), so element i
// has the same value on every run and for every thread split; uniform values lie in [alpha, beta], normal
// values come from the Box-Muller transform with mean alpha and standard deviation beta.
#include "backends/common/fillParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::FillOperation;

namespace
{

//! Element i of a parameter input, from evaluated values (shape tensors) or from its data.
StatusOr<double> paramAt(TensorView const& t, int64_t i)
{
    if (t.values != nullptr)
    {
        return static_cast<double>(t.values[i]);
    }
    if (t.data == nullptr)
    {
        return internalError("fill: a parameter input has no data");
    }
    return loadElement(t.data, t.type, i);
}

StatusOr<int64_t> paramIntAt(TensorView const& t, int64_t i)
{
    if (t.values != nullptr)
    {
        return t.values[i];
    }
    if (t.data == nullptr)
    {
        return internalError("fill: a parameter input has no data");
    }
    return loadInt(t.data, t.type, i);
}

Status runFill(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(FillParams const p,
        makeFillParams(setup, inputs, outputs, [](DataType t) { return elementSize(t) > 0; }));
    if (p.volume == 0)
    {
        return Status::ok();
    }
    Attributes const& attrs = setup.node->attrs;
    TensorView const& out = outputs[0];
    FillOperation const op = p.op;
    int64_t const seed = p.seed;
    int64_t const volume = p.volume;
    int32_t const rank = out.dims.nbDims;
    bool const dynamic = p.dynamic;
    bool const intParams = !dynamic && attrs.getInt("int_params", 0) != 0;
    bool const dynIntParams = dynamic && (inputs[1].type == DataType::kINT32 || inputs[1].type == DataType::kINT64);
    bool const intOut = out.type == DataType::kINT32 || out.type == DataType::kINT64;

    if (op == FillOperation::kLINSPACE)
    {
        std::vector<int64_t> const strides = contiguousStrides(out.dims);
        if ((intParams || dynIntParams) && intOut)
        {
            // Exact integer arithmetic.
            int64_t alpha = attrs.getInt("alpha_int", 0);
            std::vector<int64_t> beta(static_cast<size_t>(rank), attrs.getInt("beta_int", 1));
            if (dynamic)
            {
                KILN_ASSIGN_OR_RETURN(alpha, paramIntAt(inputs[1], 0));
                if (inputs[2].volume() != rank)
                {
                    return invalidArgument("fill: beta must have one element per output dimension");
                }
                for (int32_t d = 0; d < rank; ++d)
                {
                    KILN_ASSIGN_OR_RETURN(beta[static_cast<size_t>(d)], paramIntAt(inputs[2], d));
                }
            }
            for (int64_t i = 0; i < volume; ++i)
            {
                int64_t v = alpha;
                int64_t rest = i;
                for (int32_t d = 0; d < rank; ++d)
                {
                    int64_t const idx = rest / strides[static_cast<size_t>(d)];
                    rest -= idx * strides[static_cast<size_t>(d)];
                    v += beta[static_cast<size_t>(d)] * idx;
                }
                storeInt(out.data, out.type, i, v);
            }
            return Status::ok();
        }
        double alpha = intParams ? static_cast<double>(attrs.getInt("alpha_int", 0)) : attrs.getFloat("alpha", 0.0);
        std::vector<double> beta(static_cast<size_t>(rank),
            intParams ? static_cast<double>(attrs.getInt("beta_int", 1)) : attrs.getFloat("beta", 1.0));
        if (dynamic)
        {
            KILN_ASSIGN_OR_RETURN(alpha, paramAt(inputs[1], 0));
            if (inputs[2].volume() != rank)
            {
                return invalidArgument("fill: beta must have one element per output dimension");
            }
            for (int32_t d = 0; d < rank; ++d)
            {
                KILN_ASSIGN_OR_RETURN(beta[static_cast<size_t>(d)], paramAt(inputs[2], d));
            }
        }
        for (int64_t i = 0; i < volume; ++i)
        {
            double v = alpha;
            int64_t rest = i;
            for (int32_t d = 0; d < rank; ++d)
            {
                int64_t const idx = rest / strides[static_cast<size_t>(d)];
                rest -= idx * strides[static_cast<size_t>(d)];
                v += beta[static_cast<size_t>(d)] * static_cast<double>(idx);
            }
            storeElement(out.data, out.type, i, v);
        }
        return Status::ok();
    }

    double alpha = intParams ? static_cast<double>(attrs.getInt("alpha_int", 0)) : attrs.getFloat("alpha", 0.0);
    double beta = intParams ? static_cast<double>(attrs.getInt("beta_int", 1)) : attrs.getFloat("beta", 1.0);
    if (dynamic)
    {
        KILN_ASSIGN_OR_RETURN(alpha, paramAt(inputs[1], 0));
        KILN_ASSIGN_OR_RETURN(beta, paramAt(inputs[2], 0));
    }
    auto const s = static_cast<uint64_t>(seed);
    if (op == FillOperation::kRANDOM_UNIFORM)
    {
        for (int64_t i = 0; i < volume; ++i)
        {
            double const u = uniformAt(s, static_cast<uint64_t>(i));
            storeElement(out.data, out.type, i, alpha + (beta - alpha) * u);
        }
        return Status::ok();
    }
    constexpr double kTWO_PI = 6.283185307179586476925286766559;
    for (int64_t i = 0; i < volume; ++i)
    {
        double const u1 = 1.0 - uniformAt(s, 2 * static_cast<uint64_t>(i)); // (0, 1]: log stays finite
        double const u2 = uniformAt(s, 2 * static_cast<uint64_t>(i) + 1);
        double const z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTWO_PI * u2);
        storeElement(out.data, out.type, i, alpha + beta * z);
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createFillKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("fill: no plan node");
    }
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInt("op").status());
    KILN_RETURN_IF_ERROR(setup.node->attrs.requireInt("seed").status());
    return makeFunctionKernel(setup, runFill);
}

} // namespace kiln
