// pluginFallback: plugin creator lookup and PluginField conversion for ONNX nodes (see pluginFallback.h). Only the
// public plugin API is used (the builder's registry and its parents), so the shared parser works with any registry.
#include "onnx/pluginFallback.h"

#include "core/editDistance.h"
#include "onnx/onnxAttributes.h"
#include "onnx/tensorConversion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <filesystem>
#include <limits>
#include <set>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace kiln
{
namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;
using AP = ::onnx::AttributeProto;

constexpr size_t kMaxClosest = 5;

std::string quote(std::string const& s)
{
    return "'" + s + "'";
}

struct CreatorInfo
{
    std::string kind; //!< "PLUGIN CREATOR_V1", "PLUGIN CREATOR_V3ONE", ...
    std::string name;
    std::string version;
    std::string nspace;
};

std::string safe(char const* s)
{
    return s == nullptr ? std::string() : std::string(s);
}

CreatorInfo describeCreator(nvinfer1::IPluginCreatorInterface& creator)
{
    CreatorInfo info;
    info.kind = safe(creator.getInterfaceInfo().kind);
    if (info.kind == "PLUGIN CREATOR_V1")
    {
        auto& c = static_cast<nvinfer1::IPluginCreator&>(creator);
        info.name = safe(c.getPluginName());
        info.version = safe(c.getPluginVersion());
        info.nspace = safe(c.getPluginNamespace());
    }
    else if (info.kind == "PLUGIN CREATOR_V3ONE")
    {
        auto& c = static_cast<nvinfer1::IPluginCreatorV3One&>(creator);
        info.name = safe(c.getPluginName());
        info.version = safe(c.getPluginVersion());
        info.nspace = safe(c.getPluginNamespace());
    }
    return info;
}

std::vector<CreatorInfo> visibleCreators(nvinfer1::IPluginRegistry& registry)
{
    std::vector<CreatorInfo> out;
    int32_t n = 0;
    auto* const* creators = registry.getAllCreatorsRecursive(&n);
    for (int32_t i = 0; creators != nullptr && i < n; ++i)
    {
        if (creators[i] != nullptr)
        {
            out.push_back(describeCreator(*creators[i]));
        }
    }
    return out;
}

std::string pluginVersionOf(::onnx::NodeProto const& node)
{
    return attrString(node, "plugin_version", "1");
}

std::string pluginNamespaceOf(::onnx::NodeProto const& node)
{
    std::string const fromDomain = node.domain() == "ai.onnx" ? std::string() : node.domain();
    return attrString(node, "plugin_namespace", fromDomain);
}

//! Owns the bytes PluginFields point to until the plugin is created.
struct FieldStore
{
    std::deque<std::vector<uint8_t>> buffers;
    std::deque<std::string> names;
    std::vector<PluginField> fields;

    template <typename T>
    void add(std::string const& name, PluginFieldType type, std::vector<T> const& values, int32_t length)
    {
        names.push_back(name);
        buffers.emplace_back(values.size() * sizeof(T));
        if (!values.empty())
        {
            std::memcpy(buffers.back().data(), values.data(), buffers.back().size());
        }
        fields.emplace_back(names.back().c_str(), buffers.back().data(), type, length);
    }
    void addBytes(std::string const& name, PluginFieldType type, std::vector<uint8_t> bytes, int32_t length)
    {
        names.push_back(name);
        buffers.push_back(std::move(bytes));
        fields.emplace_back(names.back().c_str(), buffers.back().data(), type, length);
    }
};

char const* fieldTypeName(PluginFieldType t)
{
    switch (t)
    {
    case PluginFieldType::kFLOAT16: return "kFLOAT16";
    case PluginFieldType::kFLOAT32: return "kFLOAT32";
    case PluginFieldType::kFLOAT64: return "kFLOAT64";
    case PluginFieldType::kINT8: return "kINT8";
    case PluginFieldType::kINT16: return "kINT16";
    case PluginFieldType::kINT32: return "kINT32";
    case PluginFieldType::kCHAR: return "kCHAR";
    case PluginFieldType::kDIMS: return "kDIMS";
    case PluginFieldType::kUNKNOWN: return "kUNKNOWN";
    case PluginFieldType::kBF16: return "kBF16";
    case PluginFieldType::kINT64: return "kINT64";
    case PluginFieldType::kFP8: return "kFP8";
    case PluginFieldType::kINT4: return "kINT4";
    case PluginFieldType::kFP4: return "kFP4";
    }
    return "<unknown>";
}

template <typename T>
Status narrowInts(::onnx::NodeProto const& node, std::string const& name, std::vector<int64_t> const& values,
    PluginFieldType type, FieldStore& store)
{
    std::vector<T> out;
    for (int64_t v : values)
    {
        if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) || v > static_cast<int64_t>(std::numeric_limits<T>::max()))
        {
            return invalidArgument(describeNode(node) + ": attribute '" + name + "' value " + std::to_string(v)
                + " does not fit the plugin field type " + fieldTypeName(type));
        }
        out.push_back(static_cast<T>(v));
    }
    store.add(name, type, out, static_cast<int32_t>(out.size()));
    return Status::ok();
}

Status floatsAs(::onnx::NodeProto const& node, std::string const& name, std::vector<double> const& values,
    PluginFieldType type, FieldStore& store)
{
    nvinfer1::DataType storage{};
    switch (type)
    {
    case PluginFieldType::kFLOAT32: storage = nvinfer1::DataType::kFLOAT; break;
    case PluginFieldType::kFLOAT16: storage = nvinfer1::DataType::kHALF; break;
    case PluginFieldType::kBF16: storage = nvinfer1::DataType::kBF16; break;
    case PluginFieldType::kFLOAT64:
        store.add(name, type, values, static_cast<int32_t>(values.size()));
        return Status::ok();
    default:
        return invalidArgument(describeNode(node) + ": attribute '" + name
            + "' holds floating-point values but the plugin declares the field as " + fieldTypeName(type));
    }
    auto c = OnnxConstant::fromDouble(storage, values, {static_cast<int64_t>(values.size())});
    if (!c.isOk())
    {
        return c.status().withContext(describeNode(node));
    }
    store.addBytes(name, type, c->bytes, static_cast<int32_t>(values.size()));
    return Status::ok();
}

Status intsAs(::onnx::NodeProto const& node, std::string const& name, std::vector<int64_t> const& values,
    PluginFieldType type, FieldStore& store)
{
    switch (type)
    {
    case PluginFieldType::kINT8: return narrowInts<int8_t>(node, name, values, type, store);
    case PluginFieldType::kINT16: return narrowInts<int16_t>(node, name, values, type, store);
    case PluginFieldType::kINT32: return narrowInts<int32_t>(node, name, values, type, store);
    case PluginFieldType::kINT64: store.add(name, type, values, static_cast<int32_t>(values.size())); return Status::ok();
    case PluginFieldType::kDIMS:
    {
        if (values.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            return invalidArgument(describeNode(node) + ": attribute '" + name + "' has " + std::to_string(values.size())
                + " values, more than a kDIMS field holds");
        }
        nvinfer1::Dims d{};
        d.nbDims = static_cast<int32_t>(values.size());
        std::copy(values.begin(), values.end(), d.d);
        store.add(name, type, std::vector<nvinfer1::Dims>{d}, 1);
        return Status::ok();
    }
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kBF16:
        return floatsAs(node, name, std::vector<double>(values.begin(), values.end()), type, store);
    default:
        return invalidArgument(describeNode(node) + ": attribute '" + name
            + "' holds integers but the plugin declares the field as " + fieldTypeName(type));
    }
}

PluginFieldType naturalFieldType(nvinfer1::DataType t)
{
    switch (t)
    {
    case nvinfer1::DataType::kFLOAT: return PluginFieldType::kFLOAT32;
    case nvinfer1::DataType::kHALF: return PluginFieldType::kFLOAT16;
    case nvinfer1::DataType::kBF16: return PluginFieldType::kBF16;
    case nvinfer1::DataType::kINT32: return PluginFieldType::kINT32;
    case nvinfer1::DataType::kINT64: return PluginFieldType::kINT64;
    case nvinfer1::DataType::kINT8:
    case nvinfer1::DataType::kUINT8:
    case nvinfer1::DataType::kBOOL: return PluginFieldType::kINT8;
    default: return PluginFieldType::kUNKNOWN;
    }
}

//! Convert one attribute. `declared` is the creator's type for the field, or nullptr to use the attribute's own.
Status convertAttribute(
    ::onnx::NodeProto const& node, AP const& attr, PluginFieldType const* declared, FieldStore& store)
{
    std::string const& name = attr.name();
    switch (attr.type())
    {
    case AP::INT:
    case AP::INTS:
    {
        std::vector<int64_t> values;
        if (attr.type() == AP::INT)
        {
            values.push_back(attr.i());
        }
        else
        {
            values.assign(attr.ints().begin(), attr.ints().end());
        }
        if (declared != nullptr)
        {
            return intsAs(node, name, values, *declared, store);
        }
        bool const fits32 = std::all_of(values.begin(), values.end(), [](int64_t v) {
            return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
        });
        return intsAs(node, name, values, fits32 ? PluginFieldType::kINT32 : PluginFieldType::kINT64, store);
    }
    case AP::FLOAT:
    case AP::FLOATS:
    {
        std::vector<double> values;
        if (attr.type() == AP::FLOAT)
        {
            values.push_back(attr.f());
        }
        else
        {
            values.assign(attr.floats().begin(), attr.floats().end());
        }
        return floatsAs(node, name, values, declared != nullptr ? *declared : PluginFieldType::kFLOAT32, store);
    }
    case AP::STRING:
    {
        if (declared != nullptr && *declared != PluginFieldType::kCHAR && *declared != PluginFieldType::kUNKNOWN)
        {
            return invalidArgument(describeNode(node) + ": attribute '" + name
                + "' is a string but the plugin declares the field as " + fieldTypeName(*declared));
        }
        std::string const& s = attr.s();
        std::vector<uint8_t> bytes(s.begin(), s.end());
        bytes.push_back(0); // NUL-terminated for creators that read it as a C string; length excludes it
        store.addBytes(name, PluginFieldType::kCHAR, std::move(bytes), static_cast<int32_t>(s.size()));
        return Status::ok();
    }
    case AP::TENSOR:
    {
        auto value = convertTensorProto(attr.t(), nullptr, describeNode(node) + ": attribute '" + name + "'");
        if (!value.isOk())
        {
            return value.status();
        }
        PluginFieldType const type = naturalFieldType(value->type);
        if (type == PluginFieldType::kUNKNOWN)
        {
            return unsupported(describeNode(node) + ": attribute '" + name + "' has a tensor type plugins cannot take");
        }
        store.addBytes(name, type, value->bytes, static_cast<int32_t>(value->count()));
        return Status::ok();
    }
    default:
        return unsupported(describeNode(node) + ": attribute '" + name + "' of type "
            + AP::AttributeType_Name(attr.type()) + " cannot be passed to a plugin");
    }
}

bool isBuiltInLibrary(std::string const& path)
{
    std::string const base = std::filesystem::path(path).filename().string();
    for (char const* prefix : {"libkiln.so", "libkiln_plugin.so", "libkiln_onnxparser.so", "libnvinfer.so",
             "libnvinfer_plugin.so", "libnvonnxparser.so"})
    {
        if (base.rfind(prefix, 0) == 0)
        {
            return true;
        }
    }
    return false;
}

} // namespace

std::string pluginLibraryOf(void const* creator)
{
    Dl_info info{};
    if (dladdr(creator, &info) == 0 || info.dli_fname == nullptr)
    {
        return "";
    }
    std::string const path = info.dli_fname;
    Dl_info self{};
    if (dladdr(reinterpret_cast<void const*>(&pluginLibraryOf), &self) != 0 && self.dli_fname != nullptr
        && path == self.dli_fname)
    {
        return "";
    }
    std::error_code ec;
    auto const exe = std::filesystem::canonical("/proc/self/exe", ec);
    auto const canonical = std::filesystem::canonical(path, ec);
    if (path.empty() || (!ec && canonical == exe) || isBuiltInLibrary(path))
    {
        return "";
    }
    return path;
}

Status importWithPlugin(ImporterContextImpl& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs,
    PluginFallbackResult& result)
{
    result.handled = false;
    nvinfer1::IPluginRegistry& registry = ctx.network().getBuilder().getPluginRegistry();
    std::string const version = pluginVersionOf(node);
    std::string const nspace = pluginNamespaceOf(node);
    nvinfer1::IPluginCreatorInterface* creator
        = registry.getCreator(node.op_type().c_str(), version.c_str(), nspace.c_str());
    if (creator == nullptr)
    {
        return Status::ok();
    }
    CreatorInfo const info = describeCreator(*creator);
    bool const v1 = info.kind == "PLUGIN CREATOR_V1";
    if (!v1 && info.kind != "PLUGIN CREATOR_V3ONE")
    {
        return unsupported(describeNode(node) + ": the plugin creator " + quote(node.op_type()) + " is a "
            + info.kind + ", which the ONNX parser cannot use (IPluginCreator or IPluginCreatorV3One needed)");
    }

    // Fields: declared ones by their declared type, the rest by their natural type (or a warning).
    nvinfer1::PluginFieldCollection const* declared = v1
        ? static_cast<nvinfer1::IPluginCreator*>(creator)->getFieldNames()
        : static_cast<nvinfer1::IPluginCreatorV3One*>(creator)->getFieldNames();
    bool const hasDeclared = declared != nullptr && declared->nbFields > 0 && declared->fields != nullptr;
    FieldStore store;
    std::vector<std::string> unknown;
    for (AP const& attr : node.attribute())
    {
        if (attr.name() == "plugin_version" || attr.name() == "plugin_namespace")
        {
            continue;
        }
        PluginField const* field = nullptr;
        for (int32_t i = 0; hasDeclared && i < declared->nbFields; ++i)
        {
            if (declared->fields[i].name != nullptr && attr.name() == declared->fields[i].name)
            {
                field = &declared->fields[i];
            }
        }
        if (hasDeclared && field == nullptr)
        {
            unknown.push_back(attr.name());
            continue;
        }
        PluginFieldType const type = field != nullptr ? field->type : PluginFieldType::kUNKNOWN;
        KILN_RETURN_IF_ERROR(convertAttribute(node, attr, field != nullptr ? &type : nullptr, store));
    }
    if (!unknown.empty())
    {
        std::string list;
        for (auto const& u : unknown)
        {
            list += (list.empty() ? "" : ", ") + quote(u);
        }
        ctx.warn(node, "attributes " + list + " are not fields of plugin " + quote(node.op_type())
                + " and are ignored");
    }
    nvinfer1::PluginFieldCollection fc{};
    fc.nbFields = static_cast<int32_t>(store.fields.size());
    fc.fields = store.fields.data();

    std::vector<nvinfer1::ITensor*> inputs;
    for (int32_t i = 0; i < node.input_size(); ++i)
    {
        if (node.input(i).empty())
        {
            continue;
        }
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * t, ctx.tensor(node, i));
        inputs.push_back(t);
    }
    std::string const layerName = node.name().empty() ? node.op_type() : node.name();
    std::string const who = describeNode(node) + ": plugin " + quote(node.op_type()) + " version " + quote(version)
        + " namespace " + quote(nspace);
    nvinfer1::ILayer* layer = nullptr;
    if (v1)
    {
        nvinfer1::IPluginV2* plugin = static_cast<nvinfer1::IPluginCreator*>(creator)->createPlugin(layerName.c_str(), &fc);
        if (plugin == nullptr)
        {
            return invalidArgument(who + ": IPluginCreator::createPlugin returned nullptr");
        }
        plugin->setPluginNamespace(nspace.c_str());
        layer = ctx.network().addPluginV2(inputs.data(), static_cast<int32_t>(inputs.size()), *plugin);
        plugin->destroy(); // the network keeps its own clone
    }
    else
    {
        nvinfer1::IPluginV3* plugin = static_cast<nvinfer1::IPluginCreatorV3One*>(creator)->createPlugin(
            layerName.c_str(), &fc, nvinfer1::TensorRTPhase::kBUILD);
        if (plugin == nullptr)
        {
            return invalidArgument(who + ": IPluginCreatorV3One::createPlugin returned nullptr");
        }
        layer = ctx.network().addPluginV3(inputs.data(), static_cast<int32_t>(inputs.size()), nullptr, 0, *plugin);
        delete plugin; // the network keeps its own clone
    }
    if (layer == nullptr)
    {
        return invalidArgument(who + ": the network refused the plugin layer (see the logged network error)");
    }
    ctx.nameLayer(layer, node);
    for (int32_t j = 0; j < layer->getNbOutputs() && j < node.output_size(); ++j)
    {
        outputs.emplace_back(layer->getOutput(j));
    }
    result.handled = true;
    std::string const library = pluginLibraryOf(creator);
    if (!library.empty())
    {
        result.libraries.push_back(library);
    }
    return Status::ok();
}

bool pluginCreatorExists(nvinfer1::INetworkDefinition const& network, std::string const& opType)
{
    for (auto const& c : visibleCreators(network.getBuilder().getPluginRegistry()))
    {
        if (c.name == opType)
        {
            return true;
        }
    }
    return false;
}

std::string missingPluginMessage(ImporterContextImpl& ctx, ::onnx::NodeProto const& node)
{
    nvinfer1::IPluginRegistry& registry = ctx.network().getBuilder().getPluginRegistry();
    std::string const version = pluginVersionOf(node);
    std::string const nspace = pluginNamespaceOf(node);
    std::string message = describeNode(node) + ": no importer for op " + quote(node.op_type()) + " (domain "
        + quote(node.domain().empty() ? std::string("ai.onnx") : node.domain()) + ", opset "
        + std::to_string(ctx.opsetVersion(node.domain())) + ") and no plugin creator " + quote(node.op_type())
        + " version " + quote(version) + " namespace " + quote(nspace) + "; searched the builder's plugin registry";
    if (registry.isParentSearchEnabled())
    {
        message += " then the global plugin registry";
    }
    auto creators = visibleCreators(registry);
    if (creators.empty())
    {
        message += "; no plugin creators are registered";
        return message;
    }
    std::vector<std::string> names;
    for (auto const& c : creators)
    {
        names.push_back(c.name);
    }
    auto const order = rankByCloseness(node.op_type(), names);
    message += "; closest registered: ";
    for (size_t i = 0; i < order.size() && i < kMaxClosest; ++i)
    {
        auto const& c = creators[order[i]];
        message += (i == 0 ? "" : ", ") + quote(c.name) + " version " + quote(c.version) + " namespace "
            + quote(c.nspace);
    }
    if (creators.size() > kMaxClosest)
    {
        message += " and " + std::to_string(creators.size() - kMaxClosest) + " more";
    }
    return message;
}

} // namespace kiln
