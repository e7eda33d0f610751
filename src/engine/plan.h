// Plan: the built engine in memory. The builder produces it, engineWriter serializes it, engineReader
// rebuilds it (validating everything), and the runtime executes it. It names no device: the backend turns
// each node into a kernel when an execution context is created.
#pragma once

#include "NvInfer.h"
#include "core/shapeExpr.h"
#include "core/attributes.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{

struct PlanTensor
{
    std::string name;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::TensorFormat format{nvinfer1::TensorFormat::kLINEAR};
    std::vector<ExprId> dims;         // one expression per dimension (rank = dims.size())
    bool hasValues{false};            // true when `values` holds the element values (shape tensors)
    std::vector<ExprId> values;       // element values, row-major
    nvinfer1::TensorIOMode ioMode{nvinfer1::TensorIOMode::kNONE};
    bool hostShapeTensor{false};      // I/O shape tensor: the user passes host memory (isShapeInferenceIO)
    int32_t constant{-1};             // index into Plan::weights when the tensor is a constant
    std::vector<std::string> dimNames; // dimension names given with ITensor::setDimensionName (I/O only)
    //! Plugin size tensors: index of the kDATA_DEPENDENT symbol whose value this 0-D tensor holds after its
    //! producer runs, else -1.
    int32_t sizeTensorSymbol{-1};
    //! INT8 quantization scale (dynamic range / 127) passed to plugins in PluginTensorDesc::scale; -1 if none.
    float scale{-1.0F};
};

struct PlanNode
{
    nvinfer1::LayerType kind{nvinfer1::LayerType::kIDENTITY};
    std::string name;
    std::string metadata;
    Attributes attrs;
    std::vector<int32_t> inputs;  // tensor indices; -1 for an absent optional input
    std::vector<int32_t> outputs; // tensor indices
    std::vector<int32_t> weights; // Plan::weights indices; -1 for an absent slot
    std::string tactic;           // chosen implementation, e.g. "onednn" or "reference"
    nvinfer1::DataType precision{nvinfer1::DataType::kFLOAT};
};

struct PlanWeights
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    int64_t count{0};
    uint8_t const* data{nullptr}; // points into Plan::storage (64-byte aligned)
    int64_t size{0};              // bytes
};

struct PlanProfileInput
{
    int32_t tensor{-1}; // input tensor index
    nvinfer1::Dims min{};
    nvinfer1::Dims opt{};
    nvinfer1::Dims max{};
    std::vector<int64_t> minValues; // shape-tensor inputs only
    std::vector<int64_t> optValues;
    std::vector<int64_t> maxValues;
};

struct PlanProfile
{
    std::vector<PlanProfileInput> inputs;
    int64_t arenaSize{0};                // activation bytes needed at this profile's largest shapes
    std::vector<int64_t> tensorOffsets;  // per tensor: byte offset in the arena, -1 when not in the arena
    std::vector<int64_t> tensorCapacity; // per tensor: bytes reserved in the arena
    std::vector<int64_t> workspaceOffsets; // per node: arena offset of its workspace (plugins), -1 when none
    std::vector<int64_t> workspaceSizes;   // per node: workspace bytes at this profile (0 when none)
};

//! A plugin library embedded with IBuilderConfig::setPluginsToSerialize (loaded at deserialization only when
//! the runtime allows engine host code).
struct PlanPluginLibrary
{
    std::string fileName; // base name of the library the builder read
    std::string bytes;    // the whole file
};

struct Plan
{
    std::string name;
    int32_t apiVersion{0};   // NV_TENSORRT_VERSION the engine was built for
    int32_t kilnVersion{0};  // KILN_VERSION_MAJOR*10000 + MINOR*100 + PATCH
    std::string backend{"cpu"};
    uint32_t builderFlags{0};
    bool stronglyTyped{false};
    nvinfer1::ProfilingVerbosity profilingVerbosity{nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY};
    nvinfer1::HardwareCompatibilityLevel hardwareCompatibility{nvinfer1::HardwareCompatibilityLevel::kNONE};

    ShapeGraph shapes;
    std::vector<PlanTensor> tensors;
    std::vector<int32_t> ioTensors; // I/O tensor indices in TensorRT's order: inputs, then outputs
    std::vector<PlanNode> nodes;    // topological order
    std::vector<PlanWeights> weights;
    std::vector<PlanProfile> profiles;
    std::vector<PlanPluginLibrary> pluginLibraries;

    //! Keeps the memory that PlanWeights::data points into alive.
    std::vector<std::shared_ptr<void const>> storage;
};

//! Allocate 64-byte aligned storage owned by `plan` and copy `bytes` in; returns the weights entry.
PlanWeights addPlanWeights(Plan& plan, nvinfer1::DataType type, int64_t count, void const* bytes, int64_t size);

} // namespace kiln
