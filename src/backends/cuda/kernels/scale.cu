// CUDA kernel of IScaleLayer with the CPU reference's semantics (backends/cpu/kernels/scale.cpp): output =
// (input * scale + shift) ^ power in float, with uniform, per-channel or per-element coefficients (weights slots
// 0 shift, 1 scale, 2 power; empty slots are identities). The coefficients are the engine's device copy, or, where
// there is none (tests, the builder's tactic timing), uploaded at kernel creation into device memory the kernel owns.
#include "backends/common/scaleParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <array>

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::ScaleMode;

namespace
{

struct ScaleCoefficients
{
    void const* data[3]{};           //!< shift, scale, power (nullptr when absent)
    DataType type[3]{DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT};
};

__global__ void scaleKernel(IndexMap map, int64_t n, void const* in, DataType ti, ScaleCoefficients c, void* out,
    DataType to)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off); // off[0] input, off[1] coefficients
        float x = dev::loadFloat(in, ti, off[0]);
        if (c.data[1] != nullptr)
        {
            x *= dev::loadFloat(c.data[1], c.type[1], off[1]);
        }
        if (c.data[0] != nullptr)
        {
            x += dev::loadFloat(c.data[0], c.type[0], off[1]);
        }
        if (c.data[2] != nullptr)
        {
            x = powf(x, dev::loadFloat(c.data[2], c.type[2], off[1]));
        }
        dev::storeFloat(out, to, i, x);
    }
}

//! create: the node's checks (checkScaleSetup) and the coefficients' upload; reshape: the shape checks
//! (makeScaleParams) and the broadcast map of input and coefficients; run: one launch.
class ScaleKernel final : public Kernel
{
public:
    explicit ScaleKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status init()
    {
        for (size_t s = 0; s < 3; ++s)
        {
            WeightsView const& w = mSetup.weights[s];
            if (w.present())
            {
                if (w.device == nullptr)
                {
                    KILN_RETURN_IF_ERROR(mWeights[s].upload(w.data, w.count * elementSize(w.type)));
                }
                mCoefficients.data[s] = w.device != nullptr ? w.device : mWeights[s].data();
                mCoefficients.type[s] = w.type;
            }
        }
        return Status::ok();
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(ScaleParams const p, makeScaleParams(mSetup, v.inputs, v.outputs));
        TensorView const& out = outputs[0];
        auto map = makeBroadcastMap(out.dims, {inputs[0].dims, p.coeffDims});
        if (!map.isOk())
        {
            return map.status().withContext(nodeLabel(mSetup, "Scale"));
        }
        mMap = *map;
        mVolume = out.volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Scale"));
        }
        scaleKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mMap, mVolume, inputs[0].data, inputs[0].type,
            mCoefficients, outputs[0].data, outputs[0].type);
        return launchStatus("Scale kernel");
    }

private:
    KernelSetup mSetup;
    std::array<DeviceBuffer, 3> mWeights;
    ScaleCoefficients mCoefficients;
    IndexMap mMap;
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createScaleCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(checkScaleSetup(setup));
    auto kernel = std::make_unique<ScaleKernel>(setup);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(nodeLabel(setup, "Scale") + ": uploading the weights"));
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
