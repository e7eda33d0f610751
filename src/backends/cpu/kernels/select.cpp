// CPU kernel of ISelectLayer: output = condition ? then : else with broadcasting of all three inputs. When the
// then/else/output types agree, elements are copied bit for bit; otherwise they are converted.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/kernelFactories.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{

template <typename C>
void selectConverted(ew::BroadcastWalker const& walker, TensorView const& c, TensorView const& t, TensorView const& e,
    TensorView const& out)
{
    walker.forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
        int64_t cond[ew::kCHUNK];
        C x[ew::kCHUNK];
        C y[ew::kCHUNK];
        ew::loadChunk(c.data, c.type, offsets[0], strides[0], n, cond);
        ew::loadChunk(t.data, t.type, offsets[1], strides[1], n, x);
        ew::loadChunk(e.data, e.type, offsets[2], strides[2], n, y);
        for (int64_t i = 0; i < n; ++i)
        {
            x[i] = cond[i] != 0 ? x[i] : y[i];
        }
        ew::storeChunk(out.data, out.type, outOffset, n, x);
    });
}

//! create: whether elements are copied as bits or converted; reshape: the broadcast walk of the three inputs.
class SelectKernel final : public Kernel
{
public:
    explicit SelectKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mCopyBits(setup.inputTypes[1] == setup.outputTypes[0] && setup.inputTypes[2] == setup.outputTypes[0])
        , mFloat(ew::isFloatKernelType(setup.inputTypes[1]) || ew::isFloatKernelType(setup.inputTypes[2]))
        , mElementBytes(static_cast<size_t>(elementSize(setup.outputTypes[0])))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(ew::checkViewCounts(mSetup, inputs, outputs, 3, 1));
        auto walker = ew::BroadcastWalker::make(outputs[0].dims, {inputs[0].dims, inputs[1].dims, inputs[2].dims});
        if (!walker.isOk())
        {
            return walker.status().withContext("Select node '" + mSetup.node->name + "'");
        }
        mWalker = std::move(*walker);
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Select");
        }
        TensorView const& c = inputs[0];
        TensorView const& t = inputs[1];
        TensorView const& e = inputs[2];
        TensorView const& out = outputs[0];
        if (mCopyBits)
        {
            size_t const size = mElementBytes;
            auto const* tp = static_cast<uint8_t const*>(t.data);
            auto const* ep = static_cast<uint8_t const*>(e.data);
            auto* op = static_cast<uint8_t*>(out.data);
            mWalker.forEachChunk([&](int64_t outOffset, int64_t const* offsets, int64_t const* strides, int64_t n) {
                int64_t cond[ew::kCHUNK];
                ew::loadChunk(c.data, c.type, offsets[0], strides[0], n, cond);
                for (int64_t i = 0; i < n; ++i)
                {
                    uint8_t const* src = cond[i] != 0 ? tp + static_cast<size_t>(offsets[1] + i * strides[1]) * size
                                                      : ep + static_cast<size_t>(offsets[2] + i * strides[2]) * size;
                    std::memcpy(op + static_cast<size_t>(outOffset + i) * size, src, size);
                }
            });
        }
        else if (mFloat)
        {
            selectConverted<float>(mWalker, c, t, e, out);
        }
        else
        {
            selectConverted<int64_t>(mWalker, c, t, e, out);
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    bool mCopyBits;
    bool mFloat;
    size_t mElementBytes;
    bool mReady{false};
    ew::BroadcastWalker mWalker;
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSelectKernel(KernelSetup const& setup)
{
    KILN_RETURN_IF_ERROR(ew::checkIoCounts(setup, 3, 1, "Select"));
    for (DataType t : setup.inputTypes)
    {
        if (!ew::isKernelType(t))
        {
            return invalidArgument("Select node '" + setup.node->name + "': unsupported input type " + dataTypeName(t));
        }
    }
    if (!ew::isKernelType(setup.outputTypes[0]))
    {
        return invalidArgument("Select node '" + setup.node->name + "': unsupported output type "
            + dataTypeName(setup.outputTypes[0]));
    }
    return std::unique_ptr<Kernel>(std::make_unique<SelectKernel>(setup));
}

} // namespace kiln
