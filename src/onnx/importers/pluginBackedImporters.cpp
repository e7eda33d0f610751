// Importers of the pluginBacked op family: ops that TensorRT's ONNX parser imports through standard plugins, plus
// ImageScaler.
//   RoiAlign   → ROIAlign_TRT version "2" (plugins/roiAlign/), batch_indices cast to INT32; FP16/BF16 X is computed
//                in FP32 and cast back.
//   DeformConv → ModulatedDeformConv2d version "2" (plugins/modulatedDeformConv/), inputs reordered to
//                (X, offset, mask, W[, B]); an absent mask becomes ones of shape [N, offset_group*kH*kW, Ho, Wo].
//   ImageScaler (experimental, opset 1..9) → y = scale * x + bias[c] with elementwise layers.
// The plugins come from the builder's plugin registry; when the creator is missing the error says to call
// initLibNvInferPlugins, as TensorRT's parser does.
#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <cstring>
#include <memory>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The IPluginCreatorV3One for (name, version) in the default namespace, or an error.
StatusOr<nvinfer1::IPluginCreatorV3One*> standardCreator(
    ImporterContext& ctx, ::onnx::NodeProto const& node, char const* name, char const* version)
{
    nvinfer1::IPluginRegistry& registry = ctx.network().getBuilder().getPluginRegistry();
    nvinfer1::IPluginCreatorInterface* creator = registry.getCreator(name, version, "");
    if (creator == nullptr)
    {
        return unsupported(describeNode(node) + ": plugin '" + name + "' version '" + version
            + "' is not registered; call initLibNvInferPlugins(&logger, \"\") before parsing to register the "
              "standard plugins");
    }
    nvinfer1::InterfaceInfo const info = creator->getInterfaceInfo();
    if (info.kind == nullptr || std::strcmp(info.kind, "PLUGIN CREATOR_V3ONE") != 0)
    {
        return unsupported(describeNode(node) + ": the registered creator of plugin '" + name + "' version '"
            + version + "' is not an IPluginCreatorV3One");
    }
    return static_cast<nvinfer1::IPluginCreatorV3One*>(creator);
}

//! Creates the plugin from `fields` and adds it over `inputs`; returns its output 0.
StatusOr<ITensor*> addStandardPlugin(ImporterContext& ctx, ::onnx::NodeProto const& node, char const* name,
    char const* version, std::vector<PluginField> const& fields, std::vector<ITensor*> const& inputs)
{
    KILN_ASSIGN_OR_RETURN(nvinfer1::IPluginCreatorV3One * creator, standardCreator(ctx, node, name, version));
    nvinfer1::PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
    std::string const layerName = node.name().empty() ? node.op_type() : node.name();
    std::unique_ptr<nvinfer1::IPluginV3> plugin(
        creator->createPlugin(layerName.c_str(), &fc, nvinfer1::TensorRTPhase::kBUILD));
    if (plugin == nullptr)
    {
        return invalidArgument(describeNode(node) + ": plugin '" + name + "' refused the node's attributes "
            + "(createPlugin returned nullptr; see the logged plugin error)");
    }
    auto* layer = ctx.network().addPluginV3(
        const_cast<ITensor* const*>(inputs.data()), static_cast<int32_t>(inputs.size()), nullptr, 0, *plugin);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addPluginV3"));
    return layer->getOutput(0);
}

Status importRoiAlign(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * rois, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * batchIndices, ctx.tensor(node, 2));
    if (x->getDimensions().nbDims != 4)
    {
        return unsupported(describeNode(node) + ": input X must be 4-D [N, C, H, W]; it has rank "
            + std::to_string(x->getDimensions().nbDims));
    }
    if (!isFloatType(x->getType()))
    {
        return invalidArgument(describeNode(node) + ": input X must be a floating-point tensor");
    }
    DataType const xType = x->getType();
    KILN_ASSIGN_OR_RETURN(x, castTo(ctx, node, x, DataType::kFLOAT, "_x32"));
    KILN_ASSIGN_OR_RETURN(rois, castTo(ctx, node, rois, DataType::kFLOAT, "_rois32"));
    KILN_ASSIGN_OR_RETURN(batchIndices, castTo(ctx, node, batchIndices, DataType::kINT32, "_batch32"));

    // Opset 10 has no coordinate_transformation_mode: its RoiAlign is what opset 16 calls output_half_pixel.
    std::string const ctm = attrString(
        node, "coordinate_transformation_mode", ctx.opsetVersion() >= 16 ? "half_pixel" : "output_half_pixel");
    int32_t coordinateMode = 1;
    if (ctm == "output_half_pixel")
    {
        coordinateMode = 0;
    }
    else if (ctm != "half_pixel")
    {
        return invalidArgument(describeNode(node) + ": attribute 'coordinate_transformation_mode' is '" + ctm
            + "'; expected half_pixel or output_half_pixel");
    }
    std::string const modeName = attrString(node, "mode", "avg");
    if (modeName != "avg" && modeName != "max")
    {
        return invalidArgument(describeNode(node) + ": attribute 'mode' is '" + modeName + "'; expected avg or max");
    }
    int32_t mode = modeName == "max" ? 0 : 1;
    int64_t const outH = attrInt(node, "output_height", 1);
    int64_t const outW = attrInt(node, "output_width", 1);
    int64_t const sampling = attrInt(node, "sampling_ratio", 0);
    if (outH < 1 || outW < 1 || outH > INT32_MAX || outW > INT32_MAX)
    {
        return invalidArgument(describeNode(node) + ": attributes 'output_height' and 'output_width' must be >= 1");
    }
    if (sampling < 0 || sampling > INT32_MAX)
    {
        return invalidArgument(describeNode(node) + ": attribute 'sampling_ratio' must be >= 0");
    }
    float spatialScale = attrFloat(node, "spatial_scale", 1.0F);
    if (!(spatialScale > 0.0F))
    {
        return invalidArgument(describeNode(node) + ": attribute 'spatial_scale' must be positive");
    }
    int32_t height = static_cast<int32_t>(outH);
    int32_t width = static_cast<int32_t>(outW);
    int32_t samplingRatio = static_cast<int32_t>(sampling);
    std::vector<PluginField> const fields{
        PluginField{"coordinate_transformation_mode", &coordinateMode, PluginFieldType::kINT32, 1},
        PluginField{"mode", &mode, PluginFieldType::kINT32, 1},
        PluginField{"output_height", &height, PluginFieldType::kINT32, 1},
        PluginField{"output_width", &width, PluginFieldType::kINT32, 1},
        PluginField{"sampling_ratio", &samplingRatio, PluginFieldType::kINT32, 1},
        PluginField{"spatial_scale", &spatialScale, PluginFieldType::kFLOAT32, 1},
    };
    KILN_ASSIGN_OR_RETURN(
        ITensor * y, addStandardPlugin(ctx, node, "ROIAlign_TRT", "2", fields, {x, rois, batchIndices}));
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, xType, "_out"));
    outputs.emplace_back(y);
    return Status::ok();
}

//! Ones of shape [offset.d0, channels, offset.d2, offset.d3] (the default DeformConv mask).
StatusOr<ITensor*> onesMask(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* offset, int64_t channels)
{
    KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, offset));
    KILN_ASSIGN_OR_RETURN(ITensor * n, shapeSlice(ctx, node, shape, 0, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * hw, shapeSlice(ctx, node, shape, 2, 4));
    KILN_ASSIGN_OR_RETURN(ITensor * c, int64Vector(ctx, node, {channels}));
    KILN_ASSIGN_OR_RETURN(ITensor * maskShape, concatShapes(ctx, node, {n, c, hw}));
    KILN_ASSIGN_OR_RETURN(ITensor * count, shapeProduct(ctx, node, maskShape));
    auto* fill = ctx.network().addFill(nvinfer1::Dims{1, {1}}, nvinfer1::FillOperation::kLINSPACE, DataType::kFLOAT);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", "_mask"));
    fill->setInput(0, *count);
    fill->setAlpha(1.0);
    fill->setBeta(0.0);
    return reshapeTo(ctx, node, fill->getOutput(0), maskShape, "_mask_shape");
}

Status importDeformConv(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * w, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * offset, ctx.tensor(node, 2));
    nvinfer1::Dims const wd = w->getDimensions();
    if (x->getDimensions().nbDims != 4 || wd.nbDims != 4 || offset->getDimensions().nbDims != 4)
    {
        return unsupported(describeNode(node) + ": only 2-D DeformConv (X, W and offset of rank 4) is supported");
    }
    if (x->getType() != DataType::kFLOAT)
    {
        return unsupported(describeNode(node) + ": input X must be FP32 (ModulatedDeformConv2d runs in FP32)");
    }
    std::vector<int64_t> kernel = attrInts(node, "kernel_shape", {});
    if (kernel.empty())
    {
        if (wd.d[2] < 0 || wd.d[3] < 0)
        {
            return unsupported(describeNode(node) + ": the kernel size is unknown (no 'kernel_shape' and W has "
                + "dynamic spatial dimensions)");
        }
        kernel = {wd.d[2], wd.d[3]};
    }
    if (kernel.size() != 2 || (wd.d[2] >= 0 && wd.d[2] != kernel[0]) || (wd.d[3] >= 0 && wd.d[3] != kernel[1]))
    {
        return invalidArgument(describeNode(node) + ": attribute 'kernel_shape' must be the 2 spatial extents of W");
    }
    std::vector<int64_t> const strides = attrInts(node, "strides", {1, 1});
    std::vector<int64_t> const dilations = attrInts(node, "dilations", {1, 1});
    std::vector<int64_t> const pads = attrInts(node, "pads", {0, 0, 0, 0});
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    {
        return invalidArgument(describeNode(node) + ": attributes 'strides' and 'dilations' need 2 values and "
            + "'pads' 4");
    }
    if (pads[0] != pads[2] || pads[1] != pads[3])
    {
        return unsupported(describeNode(node) + ": asymmetric 'pads' are not supported by ModulatedDeformConv2d");
    }
    int64_t const group = attrInt(node, "group", 1);
    int64_t const offsetGroup = attrInt(node, "offset_group", 1);
    if (group < 1 || offsetGroup < 1 || strides[0] < 1 || strides[1] < 1 || dilations[0] < 1 || dilations[1] < 1
        || pads[0] < 0 || pads[1] < 0)
    {
        return invalidArgument(describeNode(node) + ": 'group', 'offset_group', 'strides' and 'dilations' must be "
            + ">= 1 and 'pads' >= 0");
    }
    ITensor* mask = nullptr;
    if (ctx.hasInput(node, 4))
    {
        KILN_ASSIGN_OR_RETURN(mask, ctx.tensor(node, 4));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(mask, onesMask(ctx, node, offset, offsetGroup * kernel[0] * kernel[1]));
    }
    std::vector<ITensor*> inputs{x, offset, mask, w};
    if (ctx.hasInput(node, 3))
    {
        KILN_ASSIGN_OR_RETURN(ITensor * bias, ctx.tensor(node, 3));
        inputs.push_back(bias);
    }
    for (ITensor*& t : inputs)
    {
        KILN_ASSIGN_OR_RETURN(t, castTo(ctx, node, t, DataType::kFLOAT, "_f32"));
    }
    int32_t stride[2] = {static_cast<int32_t>(strides[0]), static_cast<int32_t>(strides[1])};
    int32_t padding[2] = {static_cast<int32_t>(pads[0]), static_cast<int32_t>(pads[1])};
    int32_t dilation[2] = {static_cast<int32_t>(dilations[0]), static_cast<int32_t>(dilations[1])};
    int32_t groupField = static_cast<int32_t>(group);
    int32_t deformableGroup = static_cast<int32_t>(offsetGroup);
    std::vector<PluginField> const fields{
        PluginField{"stride", stride, PluginFieldType::kINT32, 2},
        PluginField{"padding", padding, PluginFieldType::kINT32, 2},
        PluginField{"dilation", dilation, PluginFieldType::kINT32, 2},
        PluginField{"group", &groupField, PluginFieldType::kINT32, 1},
        PluginField{"deformable_group", &deformableGroup, PluginFieldType::kINT32, 1},
    };
    KILN_ASSIGN_OR_RETURN(ITensor * y, addStandardPlugin(ctx, node, "ModulatedDeformConv2d", "2", fields, inputs));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importImageScaler(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = x->getDimensions().nbDims;
    if (rank != 4)
    {
        return unsupported(describeNode(node) + ": input must be 4-D [N, C, H, W]; it has rank "
            + std::to_string(rank));
    }
    if (!isFloatType(x->getType()))
    {
        return invalidArgument(describeNode(node) + ": input must be a floating-point tensor");
    }
    float const scale = attrFloat(node, "scale", 1.0F);
    std::vector<float> const bias = attrFloats(node, "bias", {});
    int64_t const channels = x->getDimensions().d[1];
    if (!bias.empty() && channels >= 0 && static_cast<int64_t>(bias.size()) != channels)
    {
        return invalidArgument(describeNode(node) + ": attribute 'bias' has " + std::to_string(bias.size())
            + " values but the input has " + std::to_string(channels) + " channels");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * s, scalarLike(ctx, node, scale, x->getType(), rank));
    KILN_ASSIGN_OR_RETURN(
        ITensor * y, addElementWise(ctx, node, x, s, nvinfer1::ElementWiseOperation::kPROD, "_scale"));
    if (!bias.empty())
    {
        KILN_ASSIGN_OR_RETURN(OnnxConstant biasConst, OnnxConstant::fromDouble(x->getType(),
            std::vector<double>(bias.begin(), bias.end()), {1, static_cast<int64_t>(bias.size()), 1, 1}));
        KILN_ASSIGN_OR_RETURN(ITensor * b, ctx.constantTensor(biasConst, node.name() + "_bias"));
        KILN_ASSIGN_OR_RETURN(y, addElementWise(ctx, node, y, b, nvinfer1::ElementWiseOperation::kSUM, "_bias"));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> pluginBackedImporters()
{
    return {{"RoiAlign", importRoiAlign}, {"DeformConv", importDeformConv}, {"ImageScaler", importImageScaler}};
}

} // namespace kiln
