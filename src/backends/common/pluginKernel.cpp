// The kernel of plugin nodes (IPluginV2* and IPluginV3 layers) on every backend: runs the execution context's own
// plugin object with the backend's pointers (host memory on the CPU, device memory on CUDA). reshape() describes
// the new shapes; before a run after a shape change it re-configures the plugin with the real shapes (V2 family:
// configurePlugin with min == opt == max == the real dims; V3: onShapeChange), then run() calls enqueue() with the
// node's workspace in the activation arena and the stream given to enqueueV3. V3 shape inputs (the node's trailing
// inputs) are not passed to the plugin at run time. A plain IPluginV2 object shared by the engine's contexts is
// re-configured whenever another context configured it last.
#include "backends/common/pluginKernel.h"
#include "plugin/pluginAdapter.h"

#include <cstring>

namespace kiln
{

namespace
{

bool sameDims(nvinfer1::Dims const& a, nvinfer1::Dims const& b)
{
    return a.nbDims == b.nbDims
        && std::memcmp(a.d, b.d, sizeof(int64_t) * static_cast<size_t>(a.nbDims < 0 ? 0 : a.nbDims)) == 0;
}

nvinfer1::DynamicPluginTensorDesc runtimeDesc(nvinfer1::PluginTensorDesc const& desc)
{
    nvinfer1::DynamicPluginTensorDesc d{};
    d.desc = desc;
    d.min = desc.dims;
    d.opt = desc.dims;
    d.max = desc.dims;
    return d;
}

class PluginKernel final : public Kernel
{
public:
    PluginKernel(KernelSetup const& setup, size_t nbRegularInputs)
        : mBinding(*setup.plugin)
        , mInDesc(nbRegularInputs)
        , mOutDesc(setup.outputTypes.size())
        , mInPtrs(nbRegularInputs, nullptr)
        , mOutPtrs(setup.outputTypes.size(), nullptr)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        PluginAdapter& plugin = *mBinding.adapter;
        if (inputs.size() < mInDesc.size() || outputs.size() != mOutDesc.size())
        {
            return internalError(plugin.label() + ": the plugin node has " + std::to_string(inputs.size())
                + " inputs and " + std::to_string(outputs.size()) + " outputs at run time, expected "
                + std::to_string(mInDesc.size()) + " and " + std::to_string(mOutDesc.size()));
        }
        bool changed = !mConfigured;
        for (size_t k = 0; k < mInDesc.size(); ++k)
        {
            changed = describe(inputs[k], mBinding.inputFormats[k], mBinding.inputScales[k], mInDesc[k]) || changed;
        }
        for (size_t k = 0; k < mOutDesc.size(); ++k)
        {
            changed = describe(outputs[k], mBinding.outputFormats[k], mBinding.outputScales[k], mOutDesc[k]) || changed;
        }
        mConfigured = mConfigured && !changed;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        PluginAdapter& plugin = *mBinding.adapter;
        for (size_t k = 0; k < mInDesc.size(); ++k)
        {
            mInPtrs[k] = inputs[k].data;
        }
        for (size_t k = 0; k < mOutDesc.size(); ++k)
        {
            mOutPtrs[k] = outputs[k].data;
        }
        bool changed = !mConfigured;
        std::unique_lock<std::mutex> lock;
        if (mBinding.sharedMutex != nullptr)
        {
            lock = std::unique_lock<std::mutex>(*mBinding.sharedMutex);
            changed = changed || *mBinding.sharedConfiguredBy != this;
        }
        if (changed)
        {
            mConfigured = false;
            Status st;
            if (plugin.generation() == PluginGeneration::kV3_ONE)
            {
                st = plugin.onShapeChange(mInDesc, mOutDesc);
            }
            else
            {
                mDynIn.resize(mInDesc.size());
                mDynOut.resize(mOutDesc.size());
                for (size_t k = 0; k < mInDesc.size(); ++k)
                {
                    mDynIn[k] = runtimeDesc(mInDesc[k]);
                }
                for (size_t k = 0; k < mOutDesc.size(); ++k)
                {
                    mDynOut[k] = runtimeDesc(mOutDesc[k]);
                }
                st = plugin.configure(mDynIn, mDynOut);
            }
            if (mBinding.sharedConfiguredBy != nullptr)
            {
                *mBinding.sharedConfiguredBy = st.isOk() ? this : nullptr;
            }
            KILN_RETURN_IF_ERROR(st);
            mConfigured = true;
        }
        return plugin.enqueue(mInDesc, mOutDesc, mInPtrs.data(), mOutPtrs.data(), mBinding.workspace, mBinding.stream);
    }

private:
    //! Fill `desc` from a tensor view; true when its shape differs from the last run's.
    static bool describe(TensorView const& view, nvinfer1::TensorFormat format, float scale,
        nvinfer1::PluginTensorDesc& desc)
    {
        bool const changed = !sameDims(desc.dims, view.dims) || desc.type != view.type;
        desc.dims = view.dims;
        desc.type = view.type;
        desc.format = format;
        desc.scale = scale;
        return changed;
    }

    PluginBinding& mBinding;
    std::vector<nvinfer1::PluginTensorDesc> mInDesc;
    std::vector<nvinfer1::PluginTensorDesc> mOutDesc;
    std::vector<nvinfer1::DynamicPluginTensorDesc> mDynIn;
    std::vector<nvinfer1::DynamicPluginTensorDesc> mDynOut;
    std::vector<void const*> mInPtrs;
    std::vector<void*> mOutPtrs;
    bool mConfigured{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPluginKernel(KernelSetup const& setup)
{
    std::string const layer = "layer '" + setup.node->name + "'";
    PluginBinding const* binding = setup.plugin;
    if (binding == nullptr || binding->adapter == nullptr)
    {
        return invalidArgument(layer + ": a plugin node runs only inside an execution context that holds its plugin "
                                       "object");
    }
    if (binding->nbShapeInputs < 0 || static_cast<size_t>(binding->nbShapeInputs) > setup.inputTypes.size())
    {
        return invalidArgument(binding->adapter->label() + ": " + std::to_string(binding->nbShapeInputs)
            + " shape inputs for a node with " + std::to_string(setup.inputTypes.size()) + " inputs");
    }
    size_t const nbRegular = setup.inputTypes.size() - static_cast<size_t>(binding->nbShapeInputs);
    if (binding->inputFormats.size() != nbRegular || binding->inputScales.size() != nbRegular
        || binding->outputFormats.size() != setup.outputTypes.size()
        || binding->outputScales.size() != setup.outputTypes.size())
    {
        return internalError(binding->adapter->label() + ": the plugin binding does not match the node's I/O");
    }
    for (size_t k = 0; k < nbRegular; ++k)
    {
        if (!setup.inputPresent[k])
        {
            return invalidArgument(binding->adapter->label() + ": input " + std::to_string(k) + " is missing");
        }
    }
    return std::unique_ptr<Kernel>(std::make_unique<PluginKernel>(setup, nbRegular));
}

} // namespace kiln
