// roiAlignPlugin.cpp — ROIAlign_TRT (IPluginV3): ONNX RoiAlign on host memory (see roiAlignPlugin.h).
// Each output bin averages (mode 1) or takes the maximum (mode 0) of grid_h x grid_w bilinear samples; a sample
// further than one pixel outside the image counts as 0. half_pixel shifts the ROI by -0.5 pixel;
// output_half_pixel does not, and clamps the ROI to at least 1x1.
#include "roiAlignPlugin.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::plugins
{
namespace
{
constexpr char const* kROI_ALIGN_NAME = "ROIAlign_TRT";
constexpr char const* kROI_ALIGN_VERSION = "2";

//! Bilinear sample of one H x W plane at (y, x) with ONNX RoiAlign's edge rules.
float bilinear(float const* plane, int64_t height, int64_t width, float y, float x)
{
    if (y < -1.0F || y > static_cast<float>(height) || x < -1.0F || x > static_cast<float>(width))
    {
        return 0.0F;
    }
    y = std::max(y, 0.0F);
    x = std::max(x, 0.0F);
    auto yLow = static_cast<int64_t>(y);
    auto xLow = static_cast<int64_t>(x);
    int64_t yHigh = yLow + 1;
    int64_t xHigh = xLow + 1;
    if (yLow >= height - 1)
    {
        yLow = yHigh = height - 1;
        y = static_cast<float>(yLow);
    }
    if (xLow >= width - 1)
    {
        xLow = xHigh = width - 1;
        x = static_cast<float>(xLow);
    }
    float const ly = y - static_cast<float>(yLow);
    float const lx = x - static_cast<float>(xLow);
    float const hy = 1.0F - ly;
    float const hx = 1.0F - lx;
    return hy * hx * plane[yLow * width + xLow] + hy * lx * plane[yLow * width + xHigh]
        + ly * hx * plane[yHigh * width + xLow] + ly * lx * plane[yHigh * width + xHigh];
}
} // namespace

RoiAlignPlugin::RoiAlignPlugin(RoiAlignParams const& params, std::string pluginNamespace)
    : StandardV3Base(kROI_ALIGN_NAME, kROI_ALIGN_VERSION, std::move(pluginNamespace))
    , mParams(params)
{
    bindFields();
}

RoiAlignPlugin::RoiAlignPlugin(RoiAlignPlugin const& other)
    : StandardV3Base(other)
    , mParams(other.mParams)
{
    bindFields(); // the collection points into this object, never into `other`
}

void RoiAlignPlugin::bindFields()
{
    using nvinfer1::PluginField;
    using nvinfer1::PluginFieldType;
    mFields = {
        PluginField{
            "coordinate_transformation_mode", &mParams.coordinateTransformationMode, PluginFieldType::kINT32, 1},
        PluginField{"mode", &mParams.mode, PluginFieldType::kINT32, 1},
        PluginField{"output_height", &mParams.outputHeight, PluginFieldType::kINT32, 1},
        PluginField{"output_width", &mParams.outputWidth, PluginFieldType::kINT32, 1},
        PluginField{"sampling_ratio", &mParams.samplingRatio, PluginFieldType::kINT32, 1},
        PluginField{"spatial_scale", &mParams.spatialScale, PluginFieldType::kFLOAT32, 1},
    };
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

nvinfer1::IPluginV3* RoiAlignPlugin::clone() noexcept
{
    try
    {
        return new RoiAlignPlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

int32_t RoiAlignPlugin::getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
    nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (nbInputs != 3 || nbOutputs != 1)
    {
        return 1;
    }
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t RoiAlignPlugin::getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
    nvinfer1::DimsExprs const*, int32_t, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder& exprBuilder) noexcept
{
    if (nbInputs != 3 || nbOutputs != 1 || inputs[0].nbDims != 4 || inputs[1].nbDims != 2 || inputs[2].nbDims != 1)
    {
        return 1;
    }
    outputs[0].nbDims = 4;
    outputs[0].d[0] = inputs[1].d[0];
    outputs[0].d[1] = inputs[0].d[1];
    outputs[0].d[2] = exprBuilder.constant(mParams.outputHeight);
    outputs[0].d[3] = exprBuilder.constant(mParams.outputWidth);
    return 0;
}

bool RoiAlignPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    if (nbInputs != 3 || nbOutputs != 1 || pos < 0 || pos > 3
        || inOut[pos].desc.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return false;
    }
    nvinfer1::DataType const wanted = pos == 2 ? nvinfer1::DataType::kINT32 : nvinfer1::DataType::kFLOAT;
    return inOut[pos].desc.type == wanted;
}

int32_t RoiAlignPlugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
    void const* const* inputs, void* const* outputs, void*, cudaStream_t) noexcept
{
    nvinfer1::Dims const& xd = inputDesc[0].dims;
    if (xd.nbDims != 4 || inputDesc[1].dims.nbDims != 2 || inputDesc[1].dims.d[1] != 4)
    {
        return 1;
    }
    int64_t const batch = xd.d[0];
    int64_t const channels = xd.d[1];
    int64_t const height = xd.d[2];
    int64_t const width = xd.d[3];
    int64_t const nbRois = inputDesc[1].dims.d[0];
    auto const* x = static_cast<float const*>(inputs[0]);
    auto const* rois = static_cast<float const*>(inputs[1]);
    auto const* batchIndices = static_cast<int32_t const*>(inputs[2]);
    auto* y = static_cast<float*>(outputs[0]);
    int64_t const outH = mParams.outputHeight;
    int64_t const outW = mParams.outputWidth;
    bool const halfPixel = mParams.coordinateTransformationMode == 1;
    float const offset = halfPixel ? 0.5F : 0.0F;
    for (int64_t r = 0; r < nbRois; ++r)
    {
        int32_t const b = batchIndices[r];
        if (b < 0 || b >= batch)
        {
            logStandardPlugin(nvinfer1::ILogger::Severity::kERROR,
                "ROIAlign_TRT enqueue: batch index " + std::to_string(b) + " of ROI " + std::to_string(r)
                    + " is outside [0, " + std::to_string(batch) + ")");
            return 2;
        }
        float const* roi = rois + r * 4;
        float const startW = roi[0] * mParams.spatialScale - offset;
        float const startH = roi[1] * mParams.spatialScale - offset;
        float roiW = roi[2] * mParams.spatialScale - offset - startW;
        float roiH = roi[3] * mParams.spatialScale - offset - startH;
        if (!halfPixel)
        {
            roiW = std::max(roiW, 1.0F);
            roiH = std::max(roiH, 1.0F);
        }
        float const binH = roiH / static_cast<float>(outH);
        float const binW = roiW / static_cast<float>(outW);
        // sampling_ratio 0: an adaptive grid of ceil(roi extent / output extent) samples per bin side.
        int64_t const gridH = mParams.samplingRatio > 0
            ? mParams.samplingRatio
            : static_cast<int64_t>(std::ceil(roiH / static_cast<float>(outH)));
        int64_t const gridW = mParams.samplingRatio > 0
            ? mParams.samplingRatio
            : static_cast<int64_t>(std::ceil(roiW / static_cast<float>(outW)));
        float const count = static_cast<float>(std::max<int64_t>(gridH * gridW, 1));
        for (int64_t c = 0; c < channels; ++c)
        {
            float const* plane = x + (b * channels + c) * height * width;
            float* out = y + (r * channels + c) * outH * outW;
            for (int64_t ph = 0; ph < outH; ++ph)
            {
                for (int64_t pw = 0; pw < outW; ++pw)
                {
                    float sum = 0.0F;
                    float maxValue = -std::numeric_limits<float>::infinity();
                    for (int64_t iy = 0; iy < gridH; ++iy)
                    {
                        float const sy = startH + static_cast<float>(ph) * binH
                            + (static_cast<float>(iy) + 0.5F) * binH / static_cast<float>(gridH);
                        for (int64_t ix = 0; ix < gridW; ++ix)
                        {
                            float const sx = startW + static_cast<float>(pw) * binW
                                + (static_cast<float>(ix) + 0.5F) * binW / static_cast<float>(gridW);
                            float const v = bilinear(plane, height, width, sy, sx);
                            sum += v;
                            maxValue = std::max(maxValue, v);
                        }
                    }
                    bool const empty = gridH * gridW <= 0;
                    out[ph * outW + pw] = mParams.mode == 0 ? (empty ? 0.0F : maxValue) : sum / count;
                }
            }
        }
    }
    return 0;
}

RoiAlignPluginCreator::RoiAlignPluginCreator(std::string pluginNamespace)
    : mNamespace(std::move(pluginNamespace))
{
    using nvinfer1::PluginField;
    using nvinfer1::PluginFieldType;
    mFields = {
        PluginField{"coordinate_transformation_mode", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"mode", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"output_height", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"output_width", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"sampling_ratio", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"spatial_scale", nullptr, PluginFieldType::kFLOAT32, 1},
    };
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

char const* RoiAlignPluginCreator::getPluginName() const noexcept
{
    return kROI_ALIGN_NAME;
}

char const* RoiAlignPluginCreator::getPluginVersion() const noexcept
{
    return kROI_ALIGN_VERSION;
}

nvinfer1::IPluginV3* RoiAlignPluginCreator::createPlugin(
    char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase) noexcept
{
    try
    {
        std::string const who = std::string("ROIAlign_TRT createPlugin('") + (name == nullptr ? "" : name) + "')";
        RoiAlignParams p;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            std::string const fieldName = field.name == nullptr ? "" : field.name;
            std::vector<int32_t> v;
            int32_t* target = fieldName == "coordinate_transformation_mode" ? &p.coordinateTransformationMode
                : fieldName == "mode"                                       ? &p.mode
                : fieldName == "output_height"                              ? &p.outputHeight
                : fieldName == "output_width"                               ? &p.outputWidth
                : fieldName == "sampling_ratio"                             ? &p.samplingRatio
                                                                            : nullptr;
            if (target != nullptr)
            {
                if (!readIntField(field, 1, who, v))
                {
                    return nullptr;
                }
                *target = v[0];
            }
            else if (fieldName == "spatial_scale")
            {
                if (!readFloatField(field, who, p.spatialScale))
                {
                    return nullptr;
                }
            }
            else
            {
                logStandardPlugin(
                    nvinfer1::ILogger::Severity::kWARNING, who + ": ignoring unknown field '" + fieldName + "'");
            }
        }
        std::string problem;
        if (p.coordinateTransformationMode != 0 && p.coordinateTransformationMode != 1)
        {
            problem = "coordinate_transformation_mode must be 0 (output_half_pixel) or 1 (half_pixel)";
        }
        else if (p.mode != 0 && p.mode != 1)
        {
            problem = "mode must be 0 (max) or 1 (avg)";
        }
        else if (p.outputHeight < 1 || p.outputWidth < 1)
        {
            problem = "output_height and output_width must be at least 1";
        }
        else if (p.samplingRatio < 0)
        {
            problem = "sampling_ratio must be >= 0";
        }
        else if (!(p.spatialScale > 0.0F) || !std::isfinite(p.spatialScale))
        {
            problem = "spatial_scale must be a positive finite number";
        }
        if (!problem.empty())
        {
            logStandardPlugin(nvinfer1::ILogger::Severity::kERROR, who + ": " + problem);
            return nullptr;
        }
        return new RoiAlignPlugin(p, mNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
