// CheckSpec: validation of a kiln::PluginCheckRequest and the formatting helpers of the contract checker.
#include "plugin/checker/checkSpec.h"

#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cmath>

namespace kiln::checker
{
namespace
{

Status checkShape(nvinfer1::Dims const& dims, std::string const& what)
{
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return invalidArgument(what + " has rank " + std::to_string(dims.nbDims) + "; ranks go from 0 to "
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    int64_t volume = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return invalidArgument(what + " [" + dimsText(dims) + "] has a negative or unknown extent; the checker "
                "runs the plugin at real shapes, so every extent must be known");
        }
        volume *= dims.d[i];
        if (volume > kMAX_CHECK_ELEMENTS)
        {
            return invalidArgument(what + " [" + dimsText(dims) + "] has more than "
                + std::to_string(kMAX_CHECK_ELEMENTS) + " elements; use smaller shapes for the check");
        }
    }
    return Status::ok();
}

} // namespace

bool checkableType(nvinfer1::DataType type)
{
    return isValidDataType(static_cast<int32_t>(type)) && elementSize(type) > 0
        && dispatchType(type, [](auto) {});
}

StatusOr<CheckSpec> makeCheckSpec(PluginCheckRequest const& request)
{
    CheckSpec spec;
    if (request.pluginName == nullptr || request.pluginName[0] == '\0')
    {
        return invalidArgument("no plugin name given (PluginCheckRequest::pluginName)");
    }
    spec.name = request.pluginName;
    spec.version = request.pluginVersion != nullptr ? request.pluginVersion : "";
    spec.pluginNamespace = request.pluginNamespace != nullptr ? request.pluginNamespace : "";
    spec.layerName = request.layerName != nullptr && request.layerName[0] != '\0' ? request.layerName
                                                                                   : "checked_plugin";
    if (request.fields != nullptr)
    {
        spec.fields = *request.fields;
        if (spec.fields.nbFields < 0 || (spec.fields.nbFields > 0 && spec.fields.fields == nullptr))
        {
            return invalidArgument("the plugin field collection has " + std::to_string(spec.fields.nbFields)
                + " fields and " + (spec.fields.fields == nullptr ? "no field array" : "a field array"));
        }
    }

    if (request.nbInputs < 0 || request.nbInputs > 64)
    {
        return invalidArgument("nbInputs is " + std::to_string(request.nbInputs) + "; it must be in [0, 64]");
    }
    if (request.nbInputs > 0 && request.inputShapes == nullptr)
    {
        return invalidArgument("nbInputs is " + std::to_string(request.nbInputs) + " but no input shapes were given");
    }
    for (int32_t i = 0; i < request.nbInputs; ++i)
    {
        nvinfer1::Dims const& dims = request.inputShapes[i];
        KILN_RETURN_IF_ERROR(checkShape(dims, "input " + std::to_string(i)));
        spec.shapes.push_back(dims);
    }
    if (request.alternativeInputShapes != nullptr)
    {
        for (int32_t i = 0; i < request.nbInputs; ++i)
        {
            nvinfer1::Dims const& dims = request.alternativeInputShapes[i];
            KILN_RETURN_IF_ERROR(checkShape(dims, "alternative shape of input " + std::to_string(i)));
            if (dims.nbDims != spec.shapes[static_cast<size_t>(i)].nbDims)
            {
                return invalidArgument("the alternative shape of input " + std::to_string(i) + " ["
                    + dimsText(dims) + "] has another rank than its shape ["
                    + dimsText(spec.shapes[static_cast<size_t>(i)]) + "]");
            }
            spec.altShapes.push_back(dims);
        }
    }
    if (request.inputTypes != nullptr)
    {
        for (int32_t i = 0; i < request.nbInputs; ++i)
        {
            nvinfer1::DataType type = request.inputTypes[i];
            if (!isValidDataType(static_cast<int32_t>(type)))
            {
                return invalidArgument("input " + std::to_string(i) + " has the invalid data type "
                    + std::to_string(static_cast<int32_t>(type)));
            }
            if (!checkableType(type))
            {
                return invalidArgument(std::string("input ") + std::to_string(i) + " has type " + dataTypeName(type)
                    + ", which the checker cannot generate data for (use FP32, FP16, BF16, INT8, UINT8, INT32, "
                      "INT64 or BOOL)");
            }
            spec.types.push_back(type);
        }
    }

    if (request.nbShapeInputs < 0 || request.nbShapeInputs > 64)
    {
        return invalidArgument("nbShapeInputs is " + std::to_string(request.nbShapeInputs) + "; it must be in [0, 64]");
    }
    if (request.nbShapeInputs > 0 && request.shapeInputValues == nullptr)
    {
        return invalidArgument("nbShapeInputs is " + std::to_string(request.nbShapeInputs)
            + " but no shape-input values were given");
    }
    for (int32_t i = 0; i < request.nbShapeInputs; ++i)
    {
        nvinfer1::Dims const& values = request.shapeInputValues[i];
        if (values.nbDims < 0 || values.nbDims > nvinfer1::Dims::MAX_DIMS)
        {
            return invalidArgument("shape input " + std::to_string(i) + " has " + std::to_string(values.nbDims)
                + " values; a shape input holds 0 to " + std::to_string(nvinfer1::Dims::MAX_DIMS));
        }
        spec.shapeInputs.emplace_back(values.d, values.d + values.nbDims);
    }

    if (request.nbRuns < 2 || request.nbRuns > 16)
    {
        return invalidArgument("nbRuns is " + std::to_string(request.nbRuns) + "; it must be in [2, 16]");
    }
    spec.nbRuns = request.nbRuns;
    spec.seed = request.seed;
    if (!std::isfinite(request.inputMin) || !std::isfinite(request.inputMax))
    {
        return invalidArgument("the input value range must be finite");
    }
    spec.rangeGiven = request.inputMin < request.inputMax;
    spec.inputMin = request.inputMin;
    spec.inputMax = request.inputMax;
    return spec;
}

std::string dimsText(nvinfer1::Dims const& dims)
{
    if (dims.nbDims <= 0)
    {
        return dims.nbDims == 0 ? "scalar" : "invalid rank " + std::to_string(dims.nbDims);
    }
    std::string text;
    for (int32_t i = 0; i < dims.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        text += (i > 0 ? "x" : "") + (dims.d[i] < 0 ? std::string("?") : std::to_string(dims.d[i]));
    }
    return text;
}

std::string descText(nvinfer1::PluginTensorDesc const& desc)
{
    std::string text = std::string(isValidDataType(static_cast<int32_t>(desc.type)) ? dataTypeName(desc.type) : "?")
        + " [" + dimsText(desc.dims) + "] " + formatName(desc.format);
    if (desc.type == nvinfer1::DataType::kINT8)
    {
        text += " scale " + std::to_string(desc.scale);
    }
    return text;
}

int64_t dimsVolume(nvinfer1::Dims const& dims)
{
    int64_t volume = 1;
    for (int32_t i = 0; i < dims.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        if (dims.d[i] < 0)
        {
            return 0;
        }
        volume *= dims.d[i];
    }
    return volume;
}

std::string elementIndexText(nvinfer1::Dims const& dims, int64_t index)
{
    if (dims.nbDims <= 0)
    {
        return "[]";
    }
    std::vector<int64_t> coords(static_cast<size_t>(dims.nbDims), 0);
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        int64_t extent = dims.d[i] > 0 ? dims.d[i] : 1;
        coords[static_cast<size_t>(i)] = index % extent;
        index /= extent;
    }
    std::string text = "[";
    for (size_t i = 0; i < coords.size(); ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(coords[i]);
    }
    return text + "]";
}

} // namespace kiln::checker
