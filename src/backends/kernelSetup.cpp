// makeKernelSetup: what a kernel of any backend is told about its node when it is created (types, ranks, formats,
// weights), the region-format slots of a node (regionSlots), the format check of built-in kernels
// (checkKernelFormats), and contiguousStrides.
#include "backends/kernel.h"
#include "core/tensorFormat.h"

#include <algorithm>
#include <string>

namespace kiln
{

KernelSetup makeKernelSetup(Plan const& plan, PlanNode const& node)
{
    KernelSetup setup;
    setup.node = &node;
    for (int32_t in : node.inputs)
    {
        bool const present = in >= 0;
        setup.inputPresent.push_back(present);
        setup.inputTypes.push_back(present ? plan.tensors[static_cast<size_t>(in)].type : nvinfer1::DataType::kFLOAT);
        setup.inputRanks.push_back(present ? static_cast<int32_t>(plan.tensors[static_cast<size_t>(in)].dims.size()) : 0);
        setup.inputFormats.push_back(
            present ? plan.tensors[static_cast<size_t>(in)].format : nvinfer1::TensorFormat::kLINEAR);
        WeightsView constant;
        if (int32_t const c = present ? plan.tensors[static_cast<size_t>(in)].constant : -1; c >= 0)
        {
            PlanWeights const& pw = plan.weights[static_cast<size_t>(c)];
            constant.data = pw.data;
            constant.type = pw.type;
            constant.count = pw.count;
        }
        setup.constantInputs.push_back(constant);
    }
    for (int32_t out : node.outputs)
    {
        setup.outputTypes.push_back(plan.tensors[static_cast<size_t>(out)].type);
        setup.outputRanks.push_back(static_cast<int32_t>(plan.tensors[static_cast<size_t>(out)].dims.size()));
        setup.outputFormats.push_back(plan.tensors[static_cast<size_t>(out)].format);
    }
    for (int32_t w : node.weights)
    {
        WeightsView v;
        if (w >= 0)
        {
            PlanWeights const& pw = plan.weights[static_cast<size_t>(w)];
            v.data = pw.data;
            v.type = pw.type;
            v.count = pw.count;
        }
        setup.weights.push_back(v);
    }
    return setup;
}

bool regionSlots(PlanNode const& node, size_t inputCount, RegionSlots& slots)
{
    using nvinfer1::LayerType;
    slots = RegionSlots{};
    slots.output = true;
    switch (node.kind)
    {
    case LayerType::kCONVOLUTION:
    {
        bool const fusedAdd = node.attrs.getInt("fuse.add", 0) != 0;
        if (inputCount != (fusedAdd ? 2U : 1U))
        {
            return false;
        }
        slots.inputs.push_back(0);
        if (fusedAdd)
        {
            slots.inputs.push_back(1);
        }
        return true;
    }
    case LayerType::kPOOLING:
    case LayerType::kACTIVATION:
    case LayerType::kUNARY:
    case LayerType::kREDUCE:
        if (inputCount != 1)
        {
            return false;
        }
        slots.inputs.push_back(0);
        // A reduce reads the region and writes a linear tensor, unless the pass stored its output in the region.
        slots.output = node.kind != LayerType::kREDUCE || node.attrs.getInt(kREGION_OUTPUT_ATTRIBUTE, 0) != 0;
        return true;
    case LayerType::kELEMENTWISE: // two operands, or a fused pointwise program's inputs
        if (inputCount < 1 || (inputCount != 2 && !node.attrs.has("pw.program")))
        {
            return false;
        }
        for (size_t i = 0; i < inputCount; ++i)
        {
            slots.inputs.push_back(i);
        }
        return true;
    default: return false;
    }
}

Status checkKernelFormats(KernelSetup const& setup)
{
    PlanNode const& node = *setup.node;
    bool const reformat = node.kind == nvinfer1::LayerType::kIDENTITY && node.attrs.getInt("reformat", 0) == 1;
    // Region nodes (the builder's channelLastPass): their regionSlots are in the region format (kHWC8 on CUDA).
    RegionSlots slots;
    bool const region = node.attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0 && regionSlots(node, setup.inputTypes.size(), slots);
    auto const regionFormat = static_cast<nvinfer1::TensorFormat>(
        node.attrs.getInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(nvinfer1::TensorFormat::kHWC8)));
    // What slot k of a side must be: a reformat's attribute, the region format on a region node's activations, else
    // kLINEAR.
    auto const wantedFormat = [&](bool input, size_t k) {
        if (reformat && k == 0)
        {
            return static_cast<nvinfer1::TensorFormat>(node.attrs.getInt(input ? "inFormat" : "outFormat", 0));
        }
        bool const activation = input ? std::find(slots.inputs.begin(), slots.inputs.end(), k) != slots.inputs.end()
                                      : k == 0 && slots.output;
        return region && activation ? regionFormat : nvinfer1::TensorFormat::kLINEAR;
    };
    auto const check = [&](std::vector<nvinfer1::TensorFormat> const& formats, size_t k, bool input) -> Status {
        nvinfer1::TensorFormat const found = k < formats.size() ? formats[k] : nvinfer1::TensorFormat::kLINEAR;
        nvinfer1::TensorFormat const wanted = wantedFormat(input, k);
        if (found == wanted)
        {
            return Status::ok();
        }
        std::string const rule = reformat
            ? std::string("the node's \"") + (input ? "inFormat" : "outFormat") + "\" attribute says " + formatName(wanted)
            : (region ? std::string("a region node's activations (data input, fused addition, output) are ")
                      + formatName(regionFormat) + ", the rest kLINEAR"
                      : std::string("the kernel reads and writes kLINEAR tensors only"));
        return invalidArgument("node '" + node.name + "': " + (input ? "input " : "output ") + std::to_string(k)
            + " has format " + formatName(found) + ", but " + rule);
    };
    for (size_t k = 0; k < setup.inputTypes.size(); ++k)
    {
        KILN_RETURN_IF_ERROR(check(setup.inputFormats, k, true));
    }
    for (size_t k = 0; k < setup.outputTypes.size(); ++k)
    {
        KILN_RETURN_IF_ERROR(check(setup.outputFormats, k, false));
    }
    return Status::ok();
}

std::vector<int64_t> contiguousStrides(nvinfer1::Dims const& dims)
{
    std::vector<int64_t> strides(static_cast<size_t>(dims.nbDims > 0 ? dims.nbDims : 0), 1);
    for (int32_t i = dims.nbDims - 2; i >= 0; --i)
    {
        strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i + 1)] * dims.d[i + 1];
    }
    return strides;
}

} // namespace kiln
