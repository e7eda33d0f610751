// The null backend (see nullBackend.h): host memory, synchronous copies, kernels that refuse to run.
#include "backends/null/nullBackend.h"

#include "backends/hostMemoryBackend.h"

namespace kiln
{

namespace
{

class NullKernel final : public Kernel
{
public:
    Status run(std::vector<TensorView> const&, std::vector<TensorView> const&, RunContext const&) override
    {
        return unsupported("the null backend runs no kernels (it exists for builder tests)");
    }
};

class NullSession final : public BackendSession
{
public:
    StatusOr<std::unique_ptr<Kernel>> createKernel(KernelSetup const&) override
    {
        return std::unique_ptr<Kernel>(std::make_unique<NullKernel>());
    }
};

class NullBackend final : public HostMemoryBackend
{
public:
    NullBackend(BackendCapabilities const& capabilities, std::string name)
        : mCapabilities(capabilities)
        , mName(std::move(name))
    {
        mCapabilities.workspaceFreeTactic = nullptr;
        mCapabilities.forcedTacticVariable = nullptr;
    }
    char const* name() const override { return mName.c_str(); }
    BackendCapabilities const& capabilities() const override { return mCapabilities; }
    std::string deviceName() const override { return "no device (null backend)"; }

    bool implements(nvinfer1::LayerType kind) const override { return cpuBackend().implements(kind); }
    std::vector<std::string> tactics(KernelSetup const& setup) const override
    {
        return implements(setup.node->kind) ? std::vector<std::string>{"null"} : std::vector<std::string>{};
    }
    StatusOr<std::unique_ptr<BackendSession>> createSession() const override
    {
        return std::unique_ptr<BackendSession>(std::make_unique<NullSession>());
    }


private:
    BackendCapabilities mCapabilities;
    std::string mName;
};

} // namespace

std::unique_ptr<Backend> createNullBackend(BackendCapabilities const& capabilities, std::string name)
{
    return std::make_unique<NullBackend>(capabilities, std::move(name));
}

} // namespace kiln
