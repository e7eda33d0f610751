// CUDA kernel of ISelectLayer: output = condition ? then : else, all three inputs broadcast to the output, as the
// CPU reference (backends/cpu/kernels/select.cpp): bit copies when then/else/output types agree, else conversions.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

//! C = void: bit copy of `size`-byte elements; float / int64_t: converted.
template <typename C>
__global__ void selectKernel(IndexMap map, int64_t n, void const* c, DataType tc, void const* t, DataType tt,
    void const* e, DataType te, void* out, DataType to, int32_t size)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        int64_t off[kMAX_OPERANDS];
        mapOffsets(map, i, off);
        bool const cond = dev::loadInt(c, tc, off[0]) != 0;
        if constexpr (std::is_void_v<C>)
        {
            if (cond)
            {
                dev::copyElement(out, i, t, off[1], size);
            }
            else
            {
                dev::copyElement(out, i, e, off[2], size);
            }
        }
        else
        {
            dev::store<C>(out, to, i, cond ? dev::load<C>(t, tt, off[1]) : dev::load<C>(e, te, off[2]));
        }
    }
}

//! How a select run moves elements: as bits when then/else/output types agree, else converted through a compute type.
enum class SelectPath : int32_t
{
    kBITS,
    kFLOAT,
    kINT,
};

//! create: the types; reshape: the shape checks, the broadcast map and the element path; run: one launch.
class SelectCudaKernel final : public Kernel
{
public:
    explicit SelectCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(ew::checkViews(mSetup, v.inputs, v.outputs, 3, 1));
        TensorView const& t = inputs[1];
        TensorView const& e = inputs[2];
        TensorView const& out = outputs[0];
        auto map = makeBroadcastMap(out.dims, {inputs[0].dims, t.dims, e.dims});
        if (!map.isOk())
        {
            return map.status().withContext(nodeLabel(mSetup, "Select"));
        }
        mMap = *map;
        mSize = static_cast<int32_t>(elementSize(out.type));
        mPath = t.type == out.type && e.type == out.type
            ? SelectPath::kBITS
            : (ew::isFloatKernelType(t.type) || ew::isFloatKernelType(e.type) ? SelectPath::kFLOAT : SelectPath::kINT);
        mVolume = out.volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Select"));
        }
        TensorView const& c = inputs[0];
        TensorView const& t = inputs[1];
        TensorView const& e = inputs[2];
        TensorView const& out = outputs[0];
        switch (mPath)
        {
        case SelectPath::kBITS:
            selectKernel<void><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mMap, mVolume, c.data, c.type, t.data,
                t.type, e.data, e.type, out.data, out.type, mSize);
            break;
        case SelectPath::kFLOAT:
            selectKernel<float><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mMap, mVolume, c.data, c.type, t.data,
                t.type, e.data, e.type, out.data, out.type, mSize);
            break;
        case SelectPath::kINT:
            selectKernel<int64_t><<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mMap, mVolume, c.data, c.type, t.data,
                t.type, e.data, e.type, out.data, out.type, mSize);
            break;
        }
        return launchStatus("Select kernel");
    }

private:
    KernelSetup mSetup;
    IndexMap mMap;
    SelectPath mPath{SelectPath::kBITS};
    int32_t mSize{0};
    int64_t mVolume{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSelectCudaKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 3, 1, "Select"));
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isKernelType(t))
        {
            return invalidArgument(nodeLabel(setup, "Select") + ": unsupported input type " + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument(nodeLabel(setup, "Select") + ": unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<SelectCudaKernel>(setup));
}

} // namespace kiln::cuda
