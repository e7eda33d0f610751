// Importers of the indexing op family: Gather, GatherElements, GatherND (IGatherLayer modes kDEFAULT / kELEMENT /
// kND), plus Scatter, ScatterElements and ScatterND registered from scatterImporters.cpp. Kiln's gather kernel
// accepts negative indices (counting from the end), as ONNX does.
#include "onnx/importers/shapeFamily.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;

StatusOr<ITensor*> indicesInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    KILN_ASSIGN_OR_RETURN(ITensor * indices, ctx.tensor(node, index));
    if (indices->getType() != DataType::kINT32 && indices->getType() != DataType::kINT64)
    {
        return invalidArgument(describeNode(node) + ": input 'indices' must be INT32 or INT64");
    }
    return indices;
}

Status importGather(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * data, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * indices, indicesInput(ctx, node, 1));
    int32_t const r = data->getDimensions().nbDims;
    if (r < 1)
    {
        return invalidArgument(describeNode(node) + ": input 'data' must have rank >= 1");
    }
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", 0), r));
    auto* layer = ctx.network().addGather(*data, *indices, axis);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addGather"));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

Status importGatherElements(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * data, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * indices, indicesInput(ctx, node, 1));
    int32_t const r = data->getDimensions().nbDims;
    if (indices->getDimensions().nbDims != r)
    {
        return invalidArgument(describeNode(node) + ": 'indices' must have the rank of 'data' (" + std::to_string(r)
            + ")");
    }
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", 0), r));
    auto* layer = ctx.network().addGatherV2(*data, *indices, nvinfer1::GatherMode::kELEMENT);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addGatherV2"));
    layer->setGatherAxis(axis);
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

Status importGatherND(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * data, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * indices, indicesInput(ctx, node, 1));
    int64_t const batchDims = attrInt(node, "batch_dims", 0);
    int32_t const r = data->getDimensions().nbDims;
    int32_t const q = indices->getDimensions().nbDims;
    if (batchDims < 0 || batchDims >= std::min(r, q))
    {
        return invalidArgument(describeNode(node) + ": attribute 'batch_dims' " + std::to_string(batchDims)
            + " must be in [0, min(rank(data), rank(indices)))");
    }
    auto* layer = ctx.network().addGatherV2(*data, *indices, nvinfer1::GatherMode::kND);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addGatherV2"));
    layer->setNbElementWiseDims(static_cast<int32_t>(batchDims));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> indexingImporters()
{
    std::vector<OpImporterEntry> entries{
        {"Gather", importGather},
        {"GatherElements", importGatherElements},
        {"GatherND", importGatherND},
    };
    for (OpImporterEntry const& e : scatterImporters())
    {
        entries.push_back(e);
    }
    return entries;
}

} // namespace kiln
