// EngineInspector implementation. Layout (kJSON, ProfilingVerbosity::kDETAILED), one object per node:
//   {"Name": ..., "LayerType": <kind>, "Inputs": [{"Name", "Location", "Dimensions", "Format/Datatype"}...],
//    "Outputs": [...], "ParameterType": <kind>, <attributes...>, "Weights": [{"Type", "Count"}...],
//    "TacticName": <implementation>, "Precision": ..., "StreamId": 0, "Metadata": ...}
// kLAYER_NAMES_ONLY gives the names only, kNONE nothing. The engine information is
//   {"Layers": [...], "Bindings": [<I/O names>]}.
// kONELINE prints the same fields as "Key: value" without quotes, one node per line.
#include "runtime/engineInspector.h"

#include "core/apiGuard.h"
#include "core/dataType.h"
#include "core/jsonText.h"
#include "core/tensorFormat.h"
#include "engine/engineFormat.h"
#include "network/inferContext.h"
#include "runtime/engine.h"
#include "runtime/executionContext.h"
#include "core/runtimeTypeInfo.h"

#include <cstdio>

namespace kiln
{

using nvinfer1::LayerInformationFormat;
using nvinfer1::ProfilingVerbosity;

namespace
{

//! Writes "key": value pairs as JSON or as the one-line "key: value" form.
class Fields
{
public:
    explicit Fields(bool json)
        : mJson(json)
    {
    }
    void str(char const* key, std::string const& value) { raw(key, mJson ? jsonString(value) : value); }
    void raw(char const* key, std::string const& value)
    {
        sep();
        mOut += (mJson ? jsonString(key) + ": " : std::string(key) + ": ") + value;
    }
    //! Insert already formatted "key": value text (e.g. the attributes) as further fields.
    void splice(std::string const& text)
    {
        if (!text.empty())
        {
            sep();
            mOut += text;
        }
    }
    //! The fields as an object; the one-line form braces only nested objects.
    std::string object(bool nested = true) const { return mJson || nested ? "{" + mOut + "}" : mOut; }
    bool json() const { return mJson; }

private:
    void sep()
    {
        if (!mOut.empty())
        {
            mOut += ", ";
        }
    }
    bool mJson;
    std::string mOut;
};

std::string list(std::vector<std::string> const& items, bool /*json*/)
{
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i)
    {
        out += (i ? ", " : "") + items[i];
    }
    return out + "]";
}

std::string dimsList(nvinfer1::Dims const& d)
{
    std::string out = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        out += (i ? "," : "") + std::to_string(d.d[i]);
    }
    return out + "]";
}

//! "Row major linear FP32" (the format description without its " format (kX)" tail).
std::string formatAndType(nvinfer1::TensorFormat format, nvinfer1::DataType type)
{
    std::string desc = formatDescription(format, type);
    auto const at = desc.find(" format");
    return at == std::string::npos ? desc : desc.substr(0, at) + desc.substr(at + 7, desc.find(" (") - at - 7);
}

//! The attributes with every binary or long string value (plugin records: "plugin.data") replaced by its size and
//! checksum, so that the inspector never prints raw bytes, and the region format named.
Attributes printableAttributes(Attributes const& attrs)
{
    constexpr size_t kMAX_SHOWN = 256;
    Attributes out = attrs;
    // The region format (channelLastPass) by name: "regionFormat": "kHWC".
    if (attrs.has(kREGION_FORMAT_ATTRIBUTE))
    {
        out.setString(kREGION_FORMAT_ATTRIBUTE,
            formatName(static_cast<nvinfer1::TensorFormat>(attrs.getInt(kREGION_FORMAT_ATTRIBUTE, 0))));
    }
    for (auto& [key, value] : out.values())
    {
        auto* text = std::get_if<std::string>(&value);
        if (text == nullptr)
        {
            continue;
        }
        bool printable = text->size() <= kMAX_SHOWN && key != "plugin.data";
        for (char c : *text)
        {
            printable = printable && c >= 0x20 && c < 0x7f;
        }
        if (!printable)
        {
            char hash[24];
            std::snprintf(hash, sizeof(hash), "%016llx",
                static_cast<unsigned long long>(engine::checksum64(text->data(), text->size())));
            value = "<" + std::to_string(text->size()) + " bytes, xxh64 " + hash + ">";
        }
    }
    return out;
}

} // namespace

EngineInspector::EngineInspector(Engine const& engine)
    : mEngine(engine)
    , mData(engine.sharedData())
    , mLogger(engine.sharedLogger())
    , mRecorder(engine.recorder())
{
}

bool EngineInspector::setExecutionContext(nvinfer1::IExecutionContext const* context) noexcept
{
    if (context == nullptr)
    {
        mContext = nullptr;
        return true;
    }
    auto const* kilnContext = safeDynamicCast<ExecutionContext const>(context);
    if (kilnContext == nullptr || &kilnContext->engine() != &mEngine)
    {
        (*mLogger).report(invalidArgument("IEngineInspector::setExecutionContext: the context was not created "
                                                "from this inspector's engine"),
            mRecorder.get());
        return false;
    }
    mContext = kilnContext;
    return true;
}

nvinfer1::IExecutionContext const* EngineInspector::getExecutionContext() const noexcept
{
    return mContext;
}

void EngineInspector::setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    mRecorder.set(recorder);
}

nvinfer1::IErrorRecorder* EngineInspector::getErrorRecorder() const noexcept
{
    return mRecorder.get();
}

EvaluatedShapes const* EngineInspector::contextShapes() const
{
    return mContext == nullptr ? nullptr : mContext->currentShapes();
}

bool EngineInspector::validFormat(LayerInformationFormat format, char const* api) const
{
    if (format != LayerInformationFormat::kONELINE && format != LayerInformationFormat::kJSON)
    {
        (*mLogger).report(invalidArgument(std::string("IEngineInspector::") + api + ": unknown format "
                                    + std::to_string(static_cast<int32_t>(format))),
            mRecorder.get());
        return false;
    }
    return true;
}

std::string EngineInspector::tensorText(int32_t tensor, bool json, EvaluatedShapes const* shapes) const
{
    EngineData const& d = *mData;
    PlanTensor const& t = d.plan.tensors[static_cast<size_t>(tensor)];
    Fields f(json);
    f.str("Name", t.name);
    f.str("Location", t.hostShapeTensor ? "Host" : "Device");
    f.raw("Dimensions", dimsList(shapes != nullptr ? shapes->dims[static_cast<size_t>(tensor)] : engineDims(d, tensor)));
    f.str("Format/Datatype", formatAndType(t.format, t.type));
    return f.object();
}

std::string EngineInspector::layerText(int32_t index, bool json, EvaluatedShapes const* shapes) const
{
    Plan const& plan = mData->plan;
    PlanNode const& node = plan.nodes[static_cast<size_t>(index)];
    switch (plan.profilingVerbosity)
    {
    case ProfilingVerbosity::kNONE: return json ? "{}" : "";
    case ProfilingVerbosity::kLAYER_NAMES_ONLY: return json ? jsonString(node.name) : node.name;
    case ProfilingVerbosity::kDETAILED: break;
    }
    Fields f(json);
    f.str("Name", node.name);
    f.str("LayerType", layerKindName(node.kind));
    std::vector<std::string> inputs;
    for (int32_t t : node.inputs)
    {
        if (t >= 0)
        {
            inputs.push_back(tensorText(t, json, shapes));
        }
    }
    f.raw("Inputs", list(inputs, json));
    std::vector<std::string> outputs;
    for (int32_t t : node.outputs)
    {
        outputs.push_back(tensorText(t, json, shapes));
    }
    f.raw("Outputs", list(outputs, json));
    f.str("ParameterType", layerKindName(node.kind));
    std::string attrs = printableAttributes(node.attrs).toJson();
    if (attrs.size() > 2)
    {
        attrs = attrs.substr(1, attrs.size() - 2);
        if (!json)
        {
            std::string plain;
            for (char c : attrs)
            {
                if (c != '"')
                {
                    plain += c;
                }
            }
            attrs = plain;
        }
        f.splice(attrs);
    }
    std::vector<std::string> weights;
    for (int32_t w : node.weights)
    {
        if (w >= 0)
        {
            PlanWeights const& pw = plan.weights[static_cast<size_t>(w)];
            Fields wf(json);
            wf.str("Type", dataTypeName(pw.type));
            wf.raw("Count", std::to_string(pw.count));
            weights.push_back(wf.object());
        }
    }
    if (!weights.empty())
    {
        f.raw("Weights", list(weights, json));
    }
    f.str("TacticName", node.tactic.empty() ? std::string("default") : node.tactic);
    f.str("Precision", dataTypeName(node.precision));
    f.raw("StreamId", "0");
    f.str("Metadata", node.metadata);
    return f.object(/*nested=*/false);
}

char const* EngineInspector::getLayerInformation(int32_t layerIndex, LayerInformationFormat format) const noexcept
{
    return apiGuard((*mLogger), mRecorder.get(), static_cast<char const*>(nullptr), [&]() -> StatusOr<char const*> {
        if (!validFormat(format, "getLayerInformation"))
        {
            return static_cast<char const*>(nullptr);
        }
        int32_t const nbLayers = static_cast<int32_t>(mData->plan.nodes.size());
        if (layerIndex < 0 || layerIndex >= nbLayers)
        {
            return invalidArgument("IEngineInspector::getLayerInformation: layer index " + std::to_string(layerIndex)
                + " is out of range (the engine has " + std::to_string(nbLayers) + " layers)");
        }
        mText = layerText(layerIndex, format == LayerInformationFormat::kJSON, contextShapes());
        return mText.c_str();
    });
}

char const* EngineInspector::getEngineInformation(LayerInformationFormat format) const noexcept
{
    return apiGuard((*mLogger), mRecorder.get(), static_cast<char const*>(nullptr), [&]() -> char const* {
        if (!validFormat(format, "getEngineInformation"))
        {
            return nullptr;
        }
        bool const json = format == LayerInformationFormat::kJSON;
        EvaluatedShapes const* shapes = contextShapes();
        Plan const& plan = mData->plan;
        std::vector<std::string> layers;
        if (plan.profilingVerbosity != ProfilingVerbosity::kNONE)
        {
            for (size_t i = 0; i < plan.nodes.size(); ++i)
            {
                layers.push_back(layerText(static_cast<int32_t>(i), json, shapes));
            }
        }
        std::vector<std::string> bindings;
        for (int32_t t : plan.ioTensors)
        {
            std::string const& name = plan.tensors[static_cast<size_t>(t)].name;
            bindings.push_back(json ? jsonString(name) : name);
        }
        if (json)
        {
            std::string out = "{\"Layers\": [";
            for (size_t i = 0; i < layers.size(); ++i)
            {
                out += (i ? ",\n" : "\n") + layers[i];
            }
            out += "],\n\"Bindings\": [";
            for (size_t i = 0; i < bindings.size(); ++i)
            {
                out += (i ? ",\n" : "\n") + bindings[i];
            }
            mText = out + "]}";
        }
        else
        {
            std::string out = "Layers:\n";
            for (auto const& l : layers)
            {
                out += l + "\n";
            }
            out += "Bindings:\n";
            for (auto const& b : bindings)
            {
                out += b + "\n";
            }
            mText = out;
        }
        return mText.c_str();
    });
}

} // namespace kiln
