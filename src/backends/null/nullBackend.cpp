// The null backend (see nullBackend.h): host memory, synchronous copies, kernels that refuse to run (or, with
// tactic timing claimed, two tactics whose kernels run as no-ops and count their runs).
#include "backends/null/nullBackend.h"

#include "backends/hostMemoryBackend.h"

#include <atomic>

namespace kiln
{

namespace
{

std::atomic<int64_t> gTimedRuns{0};

class NullKernel final : public Kernel
{
public:
    explicit NullKernel(bool timed)
        : mTimed(timed)
    {
    }
    Status run(std::vector<TensorView> const&, std::vector<TensorView> const&, RunContext const&) override
    {
        if (mTimed)
        {
            gTimedRuns.fetch_add(1);
            return Status::ok();
        }
        return unsupported("the null backend runs no kernels (it exists for builder tests)");
    }

private:
    bool mTimed;
};

class NullSession final : public BackendSession
{
public:
    explicit NullSession(bool timed)
        : mTimed(timed)
    {
    }
    StatusOr<std::unique_ptr<Kernel>> createKernel(KernelSetup const&) override
    {
        return std::unique_ptr<Kernel>(std::make_unique<NullKernel>(mTimed));
    }

private:
    bool mTimed;
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
        if (!implements(setup.node->kind))
        {
            return {};
        }
        return mCapabilities.timesTactics ? std::vector<std::string>{"null", "null-b"} : std::vector<std::string>{"null"};
    }
    StatusOr<std::unique_ptr<BackendSession>> createSession() const override
    {
        return std::unique_ptr<BackendSession>(std::make_unique<NullSession>(mCapabilities.timesTactics));
    }


private:
    BackendCapabilities mCapabilities;
    std::string mName;
};

} // namespace

int64_t nullKernelRuns()
{
    return gTimedRuns.load();
}

std::unique_ptr<Backend> createNullBackend(BackendCapabilities const& capabilities, std::string name)
{
    return std::make_unique<NullBackend>(capabilities, std::move(name));
}

} // namespace kiln
