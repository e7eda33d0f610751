// KernelProbe (see kernelProbe.h): one backend session per probe, created on first use, and the expression values of
// every profile shape, evaluated once.
#include "builder/kernelProbe.h"

namespace kiln
{

nvinfer1::Dims KernelProbe::extents(PlanTensor const& t, std::vector<int64_t> const& values)
{
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(t.dims.size());
    for (size_t i = 0; i < t.dims.size() && i < static_cast<size_t>(nvinfer1::Dims::MAX_DIMS); ++i)
    {
        d.d[i] = values[static_cast<size_t>(t.dims[i])];
    }
    return d;
}

Status KernelProbe::init()
{
    if (mReady)
    {
        return mInit;
    }
    mReady = true;
    mBackend = mCtx.backend != nullptr ? mCtx.backend : &cpuBackend();
    auto session = mBackend->createSession();
    if (!session.isOk())
    {
        mInit = session.status();
        return mInit;
    }
    mSession = std::move(session).value();
    Plan const& plan = mCtx.plan;
    for (PlanProfile const& profile : plan.profiles)
    {
        for (int32_t selector = 0; selector < 3; ++selector)
        {
            auto symbols = profileSymbolValues(plan, profile, selector);
            std::vector<int64_t> values;
            Status st = symbols.isOk() ? plan.shapes.evaluate(symbols.value(), values) : symbols.status();
            if (!st.isOk())
            {
                mInit = st;
                return mInit;
            }
            mShapeSets.push_back(std::move(values));
        }
    }
    if (mShapeSets.empty())
    {
        mInit = invalidArgument("the plan has no optimisation profile to probe kernels with");
    }
    return mInit;
}

std::string KernelProbe::refusal(PlanNode const& original, KernelSetup setup, std::string const& tactic)
{
    Status const ready = init();
    if (!ready.isOk())
    {
        return ready.message();
    }
    PlanNode node = original;
    setup.node = &node;
    if (tactic.empty())
    {
        std::vector<std::string> const tactics = mBackend->tactics(setup);
        if (tactics.empty())
        {
            return "the backend has no kernel for these types";
        }
        node.tactic = tactics.front();
    }
    else
    {
        node.tactic = tactic;
    }
    auto kernel = mSession->createKernel(setup);
    if (!kernel.isOk())
    {
        return kernel.status().message();
    }
    Plan const& plan = mCtx.plan;
    for (std::vector<int64_t> const& values : mShapeSets)
    {
        std::vector<TensorView> ins(node.inputs.size());
        for (size_t s = 0; s < node.inputs.size(); ++s)
        {
            int32_t const t = node.inputs[s];
            if (t >= 0)
            {
                PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
                ins[s].type = pt.type;
                ins[s].dims = extents(pt, values);
            }
        }
        std::vector<TensorView> outs(node.outputs.size());
        for (size_t s = 0; s < node.outputs.size(); ++s)
        {
            PlanTensor const& pt = plan.tensors[static_cast<size_t>(node.outputs[s])];
            outs[s].type = pt.type;
            outs[s].dims = extents(pt, values);
        }
        Status const st = kernel.value()->reshape(ins, outs);
        if (!st.isOk())
        {
            return st.message();
        }
    }
    return std::string();
}

} // namespace kiln
