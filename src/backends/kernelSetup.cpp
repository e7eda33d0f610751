// makeKernelSetup: what a kernel of any backend is told about its node when it is created (types, ranks,
// weights), and contiguousStrides.
#include "backends/kernel.h"

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
    }
    for (int32_t out : node.outputs)
    {
        setup.outputTypes.push_back(plan.tensors[static_cast<size_t>(out)].type);
        setup.outputRanks.push_back(static_cast<int32_t>(plan.tensors[static_cast<size_t>(out)].dims.size()));
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
