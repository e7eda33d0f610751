// The backend-neutral kernel types: tensor and weight views, what a kernel is told when it is created
// (KernelSetup), and the one Kernel interface that every backend's kernels and plugin nodes implement.
//
// Lifecycle (create → reshape → run):
// - create: the backend's factory for the node's kind reads the node's attributes once into typed parameters and
//   validates them and the I/O types and ranks. A factory that fails names the node and the cause.
// - reshape: called before the first run and whenever the node's tensor shapes change. It checks the shapes and
//   computes everything that depends on them (broadcast maps, launch geometry, descriptors, plans, workspace).
// - run: launches (CUDA) or computes (CPU) with the shapes of the last reshape. No string or map lookups, no heap
//   allocation, no validation that could have been done before.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "engine/plan.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace kiln
{

class PluginAdapter;

struct TensorView
{
    void* data{nullptr}; // nullptr for an absent optional input
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::Dims dims{};
    //! Evaluated element values for tensors whose values are known from shape inference (shape tensors).
    int64_t const* values{nullptr};

    bool present() const { return data != nullptr || volume() == 0; }
    int64_t volume() const
    {
        int64_t v = 1;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            v *= dims.d[i];
        }
        return v;
    }
};

struct WeightsView
{
    void const* data{nullptr}; //!< host memory (the plan's weights), always set when present
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    int64_t count{0};
    //! Device copy of the same bytes, uploaded once per engine and shared by its contexts (CUDA engines at run
    //! time); nullptr at build time and in tests: a CUDA kernel that needs the weights on the device then uploads
    //! its own copy.
    void const* device{nullptr};
    bool present() const { return count > 0; }
};

//! What the kernel of a plugin node (kPLUGIN_V2 / kPLUGIN_V3) gets from its execution context: the context's own
//! plugin object, the formats and INT8 scales the builder negotiated, and, refreshed before every run, the
//! workspace and the stream given to enqueueV3. Owned by the execution context; it outlives the kernel.
struct PluginBinding
{
    PluginAdapter* adapter{nullptr};
    //! Set for a plugin object shared by all contexts of the engine (plain IPluginV2): calls are serialized and
    //! *configuredBy names the kernel that configured the object last.
    std::mutex* sharedMutex{nullptr};
    void const** sharedConfiguredBy{nullptr};
    int32_t nbShapeInputs{0}; //!< trailing node inputs that are V3 shape inputs (not passed to enqueue)
    std::vector<nvinfer1::TensorFormat> inputFormats; //!< per regular input
    std::vector<float> inputScales;
    std::vector<nvinfer1::TensorFormat> outputFormats;
    std::vector<float> outputScales;
    // Per run.
    void* workspace{nullptr};
    cudaStream_t stream{nullptr};
};

//! What a kernel knows when it is created: the node (kind, attributes, tactic), I/O types and ranks, weights.
struct KernelSetup
{
    PlanNode const* node{nullptr};
    std::vector<nvinfer1::DataType> inputTypes; // kFLOAT placeholder for absent inputs
    std::vector<bool> inputPresent;
    std::vector<int32_t> inputRanks;
    std::vector<nvinfer1::DataType> outputTypes;
    std::vector<int32_t> outputRanks;
    //! The recorded tensor formats (kLINEAR for absent inputs; an empty list counts as all kLINEAR).
    std::vector<nvinfer1::TensorFormat> inputFormats;
    std::vector<nvinfer1::TensorFormat> outputFormats;
    std::vector<WeightsView> weights; // one per node weights slot (count 0 when absent)
    //! Per input: the plan's weights when the input tensor is a constant of the engine (the same bytes in every run
    //! and every context), else count 0; empty when unknown (tests). Kernels may prepare from them once (the CPU
    //! matrix multiply packs a constant operand into oneDNN's layout at reshape).
    std::vector<WeightsView> constantInputs;
    PluginBinding* plugin{nullptr};    // plugin nodes in an execution context only
    //! The creating backend session's own state (CUDA: its library handles), or nullptr (CPU, build-time checks).
    void* sessionState{nullptr};
};

//! What a kernel gets for one run besides its tensors.
struct RunContext
{
    cudaStream_t stream{nullptr}; //!< the enqueueV3 stream (CPU backend: passed on to plugins only)
    void* workspace{nullptr};     //!< at least the kernel's workspaceSize(), 256-byte aligned (device memory on CUDA)
    int64_t workspaceBytes{0};
};

//! One plan node's implementation in one execution context (or in the builder's tactic timing). Kernels are not
//! shared between threads, so they may keep state without locks.
class Kernel
{
public:
    virtual ~Kernel() = default;
    //! New shapes for the node's tensors (views carry dims and shape-tensor values; data pointers may be null).
    virtual Status reshape(std::vector<TensorView> const& /*inputs*/, std::vector<TensorView> const& /*outputs*/)
    {
        return Status::ok();
    }
    //! Scratch memory needed at these shapes (asked with the profile's largest shapes when planning).
    virtual int64_t workspaceSize(std::vector<TensorView> const& /*inputs*/, std::vector<TensorView> const& /*outputs*/) const
    {
        return 0;
    }
    //! Run (CPU) or launch on ctx.stream (CUDA). Inputs/outputs follow the node's slots and carry the shapes of the
    //! last reshape(); data pointers are in the backend's memory, TensorView::values are host pointers. Errors are
    //! returned as a Status naming the cause; plugin exceptions are caught by the caller.
    virtual Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) = 0;
};

//! True for the plugin layer kinds (kPLUGIN_V2, kPLUGIN_V3), whose kernel every backend takes from
//! backends/common/pluginKernel.h.
inline bool isPluginKind(nvinfer1::LayerType kind)
{
    return kind == nvinfer1::LayerType::kPLUGIN_V2 || kind == nvinfer1::LayerType::kPLUGIN_V3;
}

using KernelFactory = StatusOr<std::unique_ptr<Kernel>> (*)(KernelSetup const& setup);

//! The KernelSetup for `node` of `plan` (used by the builder's tactic pass and by execution contexts).
KernelSetup makeKernelSetup(Plan const& plan, PlanNode const& node);

//! The activations a node of the builder's region-format plan (kCHANNEL_LAST_ATTRIBUTE) stores in that format: the
//! input slots, and whether the output is one (a reader such as a global average pool's reduction writes a linear
//! output unless the pass set kREGION_OUTPUT_ATTRIBUTE on it). Convolution: data input and fused addition; pooling, activation, unary, reduce: input 0; elementwise:
//! inputs 0 and 1. False for other kinds and when `inputCount` (the node's inputs) does not fit, e.g. a convolution
//! whose kernel or bias is a tensor input.
struct RegionSlots
{
    std::vector<size_t> inputs;
    bool output{false};
};
bool regionSlots(PlanNode const& node, size_t inputCount, RegionSlots& slots);

//! The tensor formats the built-in kernels of the CPU and CUDA backends accept: kLINEAR for every input and output,
//! except a reformat node (kIDENTITY with "reformat" = 1, inserted around plugins and region boundaries), whose input
//! and output must have the formats its "inFormat" / "outFormat" attributes convert between, and a region node
//! (kCHANNEL_LAST_ATTRIBUTE), whose regionSlots have its kREGION_FORMAT_ATTRIBUTE format. Plugin nodes negotiate their own formats and
//! are not checked here. Backends call it in BackendSession::createKernel; the error names the node and the tensor.
Status checkKernelFormats(KernelSetup const& setup);

//! Row-major strides of `dims` (in elements).
std::vector<int64_t> contiguousStrides(nvinfer1::Dims const& dims);

} // namespace kiln
