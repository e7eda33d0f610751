// poolPlugin.cpp — PoolPlugin (IPluginV2IOExt): max/average pooling with FP32, FP16 and INT8 I/O on host memory
// (CPU backend) or with a CUDA kernel on the engine's stream (CUDA backend, when built with KILN_SAMPLE_PLUGINS_CUDA).
#include "poolPlugin.h"
#include "samplePluginUtils.h"
#if KILN_SAMPLE_PLUGINS_CUDA
#include "samplePluginsCuda.h"
#endif

#include <algorithm>
#include <cstring>
#include <limits>

namespace samples
{
namespace
{
constexpr char const* kPOOL_NAME = "PoolPlugin";
constexpr char const* kPOOL_VERSION = "1";

int64_t pooledExtent(int64_t extent, int32_t kernel, int32_t stride)
{
    if (extent < 0)
    {
        return -1; // unknown until run time
    }
    return extent < kernel ? 0 : (extent - kernel) / stride + 1;
}
} // namespace

PoolPlugin::PoolPlugin(PoolParams const& params)
    : mParams(params)
{
}

PoolPlugin::PoolPlugin(void const* data, size_t length)
{
    char const* cursor = static_cast<char const*>(data);
    char const* end = cursor + length;
    int32_t type = 0;
    mValid = data != nullptr && readValue(cursor, end, mParams) && readValue(cursor, end, mInputDims)
        && readValue(cursor, end, mOutputDims) && readValue(cursor, end, type)
        && readValue(cursor, end, mInHostScale) && readValue(cursor, end, mOutHostScale) && cursor == end
        && mParams.kernel > 0 && mParams.stride > 0;
    mType = static_cast<nvinfer1::DataType>(type);
}

char const* PoolPlugin::getPluginType() const noexcept
{
    return kPOOL_NAME;
}

char const* PoolPlugin::getPluginVersion() const noexcept
{
    return kPOOL_VERSION;
}

nvinfer1::Dims PoolPlugin::getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept
{
    if (index != 0 || nbInputDims != 1 || inputs[0].nbDims < 2)
    {
        return nvinfer1::Dims{-1, {}};
    }
    nvinfer1::Dims output = inputs[0];
    int32_t const h = output.nbDims - 2;
    output.d[h] = pooledExtent(output.d[h], mParams.kernel, mParams.stride);
    output.d[h + 1] = pooledExtent(output.d[h + 1], mParams.kernel, mParams.stride);
    return output;
}

int32_t PoolPlugin::enqueue(
    int32_t, void const* const* inputs, void* const* outputs, void*, cudaStream_t stream) noexcept
{
    int32_t const rank = mInputDims.nbDims;
    if (rank < 2 || mOutputDims.nbDims != rank)
    {
        return 1;
    }
    if (mType == nvinfer1::DataType::kINT8 && (mInHostScale <= 0.0F || mOutHostScale <= 0.0F))
    {
        return 2; // INT8 I/O without scales: the builder did not pass dynamic ranges
    }
    int64_t const inH = mInputDims.d[rank - 2];
    int64_t const inW = mInputDims.d[rank - 1];
    int64_t const outH = mOutputDims.d[rank - 2];
    int64_t const outW = mOutputDims.d[rank - 1];
    int64_t const planes = inH * inW == 0 ? 0 : volume(mInputDims) / (inH * inW);
#if KILN_SAMPLE_PLUGINS_CUDA
    if (cuda::isDeviceMemory(outputs[0]))
    {
        cuda::PoolLaunch launch;
        launch.input = inputs[0];
        launch.output = outputs[0];
        launch.type = mType == nvinfer1::DataType::kHALF ? cuda::ElementType::kHALF
            : mType == nvinfer1::DataType::kINT8         ? cuda::ElementType::kINT8
                                                         : cuda::ElementType::kFLOAT;
        launch.planes = planes;
        launch.inH = inH;
        launch.inW = inW;
        launch.outH = outH;
        launch.outW = outW;
        launch.kernel = mParams.kernel;
        launch.stride = mParams.stride;
        launch.mode = mParams.mode;
        launch.inScale = mInHostScale;
        launch.outScale = mOutHostScale;
        return cuda::launchPool(launch, stream) == 0 ? 0 : 3;
    }
#else
    (void) stream;
#endif
    for (int64_t p = 0; p < planes; ++p)
    {
        for (int64_t oy = 0; oy < outH; ++oy)
        {
            for (int64_t ox = 0; ox < outW; ++ox)
            {
                float acc = mParams.mode == 0 ? -std::numeric_limits<float>::infinity() : 0.0F;
                for (int32_t ky = 0; ky < mParams.kernel; ++ky)
                {
                    for (int32_t kx = 0; kx < mParams.kernel; ++kx)
                    {
                        int64_t const iy = oy * mParams.stride + ky;
                        int64_t const ix = ox * mParams.stride + kx;
                        float const v = loadAsFloat(inputs[0], mType, (p * inH + iy) * inW + ix, mInHostScale);
                        acc = mParams.mode == 0 ? std::max(acc, v) : acc + v;
                    }
                }
                if (mParams.mode != 0)
                {
                    acc /= static_cast<float>(mParams.kernel * mParams.kernel);
                }
                storeFromFloat(outputs[0], mType, (p * outH + oy) * outW + ox, acc, mOutHostScale);
            }
        }
    }
    return 0;
}

size_t PoolPlugin::getSerializationSize() const noexcept
{
    return sizeof(mParams) + 2 * sizeof(nvinfer1::Dims) + sizeof(int32_t) + 2 * sizeof(float);
}

void PoolPlugin::serialize(void* buffer) const noexcept
{
    char* cursor = static_cast<char*>(buffer);
    writeValue(cursor, mParams);
    writeValue(cursor, mInputDims);
    writeValue(cursor, mOutputDims);
    writeValue(cursor, static_cast<int32_t>(mType));
    writeValue(cursor, mInHostScale);
    writeValue(cursor, mOutHostScale);
}

void PoolPlugin::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
    }
}

nvinfer1::DataType PoolPlugin::getOutputDataType(
    int32_t, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    return nbInputs > 0 ? inputTypes[0] : nvinfer1::DataType::kFLOAT;
}

nvinfer1::IPluginV2IOExt* PoolPlugin::clone() const noexcept
{
    try
    {
        return new PoolPlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

void PoolPlugin::configurePlugin(nvinfer1::PluginTensorDesc const* in, int32_t nbInput,
    nvinfer1::PluginTensorDesc const* out, int32_t nbOutput) noexcept
{
    if (nbInput != 1 || nbOutput != 1)
    {
        return;
    }
    // As in the seed: keep the dims, the type and the INT8 scales (-1 when the tensor is not INT8).
    mInputDims = in[0].dims;
    mOutputDims = out[0].dims;
    mType = in[0].type;
    mInHostScale = in[0].scale >= 0.0F ? in[0].scale : -1.0F;
    mOutHostScale = out[0].scale >= 0.0F ? out[0].scale : -1.0F;
}

bool PoolPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) const noexcept
{
    if (nbInputs != 1 || nbOutputs != 1 || pos < 0 || pos >= nbInputs + nbOutputs)
    {
        return false;
    }
    // The seed's condition: linear, FP32/FP16/INT8, same type as inOut[0]; "int8Only" narrows it to INT8.
    bool condition = inOut[pos].format == nvinfer1::TensorFormat::kLINEAR;
    condition &= (inOut[pos].type == nvinfer1::DataType::kFLOAT) || (inOut[pos].type == nvinfer1::DataType::kHALF)
        || (inOut[pos].type == nvinfer1::DataType::kINT8);
    condition &= inOut[pos].type == inOut[0].type;
    if (mParams.int8Only != 0)
    {
        condition &= inOut[pos].type == nvinfer1::DataType::kINT8;
    }
    return condition;
}

PoolPluginCreator::PoolPluginCreator()
{
    for (char const* name : {"mode", "kernel", "stride", "int8Only"})
    {
        mFields.push_back(nvinfer1::PluginField{name, nullptr, nvinfer1::PluginFieldType::kINT32, 1});
    }
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

char const* PoolPluginCreator::getPluginName() const noexcept
{
    return kPOOL_NAME;
}

char const* PoolPluginCreator::getPluginVersion() const noexcept
{
    return kPOOL_VERSION;
}

nvinfer1::IPluginV2* PoolPluginCreator::createPlugin(char const*, nvinfer1::PluginFieldCollection const* fc) noexcept
{
    try
    {
        PoolParams params;
        bool strideGiven = false;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            std::string const name = field.name == nullptr ? "" : field.name;
            if (name == "mode")
            {
                fieldScalar(field, params.mode);
            }
            else if (name == "kernel")
            {
                fieldScalar(field, params.kernel);
            }
            else if (name == "stride")
            {
                strideGiven = fieldScalar(field, params.stride);
            }
            else if (name == "int8Only")
            {
                fieldScalar(field, params.int8Only);
            }
        }
        if (!strideGiven)
        {
            params.stride = params.kernel;
        }
        if (params.kernel <= 0 || params.stride <= 0 || (params.mode != 0 && params.mode != 1))
        {
            return nullptr;
        }
        auto* plugin = new PoolPlugin(params);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* PoolPluginCreator::deserializePlugin(char const*, void const* data, size_t length) noexcept
{
    try
    {
        auto* plugin = new PoolPlugin(data, length);
        if (!plugin->valid())
        {
            delete plugin;
            return nullptr;
        }
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

void PoolPluginCreator::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
    }
}

} // namespace samples
