// The CPU backend's kernel interface. One kernel object is created per plan node per execution context
// (so kernels may keep caches without locks); execute() gets concrete shapes and host pointers each run.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "engine/plan.h"

#include <memory>
#include <mutex>
#include <string>
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
    std::vector<WeightsView> weights; // one per node weights slot (count 0 when absent)
    PluginBinding* plugin{nullptr};    // plugin nodes in an execution context only
};

class CpuKernel
{
public:
    virtual ~CpuKernel() = default;
    //! Run once. Inputs/outputs follow the node's slots; outputs are preallocated with their final shapes.
    virtual Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) = 0;
};

using CpuKernelFactory = StatusOr<std::unique_ptr<CpuKernel>> (*)(KernelSetup const& setup);
//! Candidate tactics for a node, best first (e.g. {"onednn", "reference"}); empty = unsupported.
using CpuTacticsFn = std::vector<std::string> (*)(KernelSetup const& setup);

//! Wraps a plain function as a kernel, for kernels without state.
using CpuKernelFunction = Status (*)(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);
std::unique_ptr<CpuKernel> makeFunctionKernel(KernelSetup const& setup, CpuKernelFunction fn);

//! Kernel table (kernelTable.cpp): factory and tactics per layer kind; nullptr when unsupported.
CpuKernelFactory cpuKernelFactory(nvinfer1::LayerType kind);
CpuTacticsFn cpuKernelTactics(nvinfer1::LayerType kind);

//! The KernelSetup for `node` of `plan` (used by the builder's tactic pass and by execution contexts).
KernelSetup makeKernelSetup(Plan const& plan, PlanNode const& node);

//! Row-major strides of `dims` (in elements).
std::vector<int64_t> contiguousStrides(nvinfer1::Dims const& dims);

} // namespace kiln
