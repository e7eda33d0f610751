// cuDNN graph-API convolutions (through the header-only cuDNN frontend): one operation graph per convolution shape,
// conv_fprop with its epilogue fused (bias, residual add, activation) where cuDNN has an engine for it, the
// execution plan chosen at reshape by timing up to a few of cuDNN's heuristic candidates (autotune.h), and a run that is one cudnnBackendExecute
// with a variant pack built once per set of addresses, later replayed as a captured CUDA graph (ConvGraphLaunch, held
// by the kernel). Tensors are packed NCDHW or channel-last (NHWC, kernel KRSC). Plans are shared process-wide by their
// full description, so identical layers and contexts build each plan once. Compiled to a stub that always refuses
// when Kiln is built without cuDNN or without the frontend headers (KILN_HAVE_CUDNN_FRONTEND=0).
#pragma once

#include "backends/common/convolutionParams.h"
#include "core/status.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::cuda
{

//! A forward convolution of packed NCDHW (or channel-last) tensors with an optional fused epilogue y = act(conv(x, w) + bias + add).
struct ConvGraphSpec
{
    nvinfer1::DataType xType{nvinfer1::DataType::kHALF}; //!< input and kernel: kHALF or kBF16
    nvinfer1::DataType yType{nvinfer1::DataType::kHALF};
    int32_t nbSpatial{2}; //!< 1, 2 or 3 (1-D runs as 2-D with H = 1)
    int64_t n{0};
    int64_t c{0};
    int64_t k{0};
    int64_t groups{1};
    WindowGeometry g; //!< 5-D normalised geometry (index 0 = D)
    bool bias{false};
    nvinfer1::DataType biasType{nvinfer1::DataType::kFLOAT};
    bool add{false}; //!< a tensor of the output's full shape (the caller checks; broadcasts are not expressed)
    nvinfer1::DataType addType{nvinfer1::DataType::kFLOAT};
    bool activation{false};
    nvinfer1::ActivationType activationType{nvinfer1::ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
    int32_t device{0};
    //! x, y and the added tensor are channel-last (NHWC / NDHWC) and the kernel KRSC (output channel outermost, input
    //! channels innermost); else all are packed NCDHW and the kernel KCRS.
    bool channelLast{false};
};

//! Counters of plan builds in this process (tests and diagnostics): plans built with the epilogue fused, plans of the
//! bare convolution, and refusals (no engine, unsupported geometry or type).
struct ConvGraphCounters
{
    int64_t fused{0};
    int64_t bare{0};
    int64_t refused{0};
    std::string lastRefusal; //!< the reason of the latest refusal
};
ConvGraphCounters convGraphCounters();

//! True when this build can use the cuDNN graph API.
bool convGraphBuilt();

//! A kernel's run state for its plan: the cuDNN variant pack (tensor addresses and workspace) built for the addresses
//! of the last run. A run with the same plan and addresses executes it as it is; other addresses rebuild it. From the
//! second run with the same addresses on a stream that is not capturing, the execution is captured once into a CUDA
//! graph and later runs launch that graph (a fraction of cudnnBackendExecute's host time; KILN_CONV_GRAPH_LAUNCH=0
//! turns it off). Owned by one kernel (one execution context), so it is never shared between threads.
class ConvGraphLaunch
{
public:
    ConvGraphLaunch() = default;
    ConvGraphLaunch(ConvGraphLaunch const&) = delete;
    ConvGraphLaunch& operator=(ConvGraphLaunch const&) = delete;
    ~ConvGraphLaunch();

    //! Variant packs built so far (tests: a repeated run with the same addresses builds none).
    int64_t builds() const { return mBuilds; }

private:
    friend class ConvGraphPlanAccess;
    uint64_t mPlan{0}; //!< serial number of the plan the pack was built for (0: none)
    void* mPack{nullptr}; //!< cudnnBackendDescriptor_t of the variant pack
    void const* mAddresses[6]{};
    int64_t mBuilds{0};
    int32_t mRuns{0};                   //!< runs with this pack
    cudaGraphExec_t mGraph{nullptr};    //!< the captured execution of this pack
    bool mGraphRefused{false};          //!< capturing failed once for this pack: plain executions
};

class ConvGraphPlan
{
public:
    //! A built plan for `spec`. With `fuseEpilogue` the bias, add and activation run inside cuDNN; else the graph
    //! is the bare convolution writing the input's type (the caller applies the epilogue). Fails with the reason
    //! when cuDNN has no engine for it.
    static StatusOr<std::shared_ptr<ConvGraphPlan const>> get(ConvGraphSpec const& spec, bool fuseEpilogue);

    virtual ~ConvGraphPlan() = default;
    virtual int64_t workspaceBytes() const = 0;
    //! Records the plan's timed choice for the engine file (autotune.h; nothing when it was the only candidate).
    virtual void recordChoice() const = 0;
    //! True when the epilogue runs inside the plan.
    virtual bool fused() const = 0;
    //! Runs on `stream` (bound to `handle` by the call). `bias`/`add` are ignored when the plan is not fused.
    //! `launch` keeps the variant pack of these addresses for the next run.
    virtual Status run(ConvGraphLaunch& launch, void* handle, cudaStream_t stream, void const* x, void const* w,
        void const* bias, void const* add, void* y, void* workspace) const = 0;
};

} // namespace kiln::cuda
