// PluginAdapterV2 implementation: maps each PluginAdapter question to the IPluginV2-family call of the plugin's
// generation, guards every call and validates every answer.
#include "plugin/pluginAdapterV2.h"

#include "core/runtimeTypeInfo.h"
#include "kiln/KilnPluginCpu.h"
#include "plugin/pluginCpuOptIn.h"
#include "plugin/exprBuilder.h"
#include "plugin/pluginCallGuard.h"
#include "plugin/pluginChecks.h"

#include <cstdio>
#include <memory>

namespace kiln
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

std::string pointerText(void const* p)
{
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%p", p);
    return buffer;
}

std::string hex32(uint32_t v)
{
    char buffer[16];
    std::snprintf(buffer, sizeof(buffer), "0x%08x", v);
    return buffer;
}

std::vector<Dims> dimsOf(std::vector<DynamicPluginTensorDesc> const& descs)
{
    std::vector<Dims> out;
    out.reserve(descs.size());
    for (auto const& d : descs)
    {
        out.push_back(d.desc.dims);
    }
    return out;
}

std::vector<PluginTensorDesc> descsOf(std::vector<DynamicPluginTensorDesc> const& descs)
{
    std::vector<PluginTensorDesc> out;
    out.reserve(descs.size());
    for (auto const& d : descs)
    {
        out.push_back(d.desc);
    }
    return out;
}

std::vector<DataType> typesOf(std::vector<DynamicPluginTensorDesc> const& descs)
{
    std::vector<DataType> out;
    out.reserve(descs.size());
    for (auto const& d : descs)
    {
        out.push_back(d.desc.type);
    }
    return out;
}

//! bool arrays for the broadcast flags (std::vector<bool> has no data()).
std::unique_ptr<bool[]> falseFlags(size_t n)
{
    return std::unique_ptr<bool[]>(new bool[n == 0 ? 1 : n]());
}

} // namespace

PluginAdapterV2::PluginAdapterV2(IPluginV2* plugin, PluginGeneration generation, PluginOwnership ownership,
    std::string name, std::string version, std::string pluginNamespace, Logger const& logger)
    : PluginAdapter(generation, std::move(name), std::move(version), std::move(pluginNamespace), logger)
    , mPlugin(plugin)
    , mOwnership(ownership)
{
}

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapterV2::create(
    IPluginV2* plugin, PluginOwnership ownership, Logger const& logger)
{
    if (plugin == nullptr)
    {
        return invalidArgument("the IPluginV2 plugin is null");
    }
    std::string const who = "IPluginV2 plugin object at " + pointerText(plugin);
    int32_t apiVersion = 0;
    KILN_RETURN_IF_ERROR(
        guardedCallNamed(who, "getTensorRTVersion", [&] { apiVersion = plugin->getTensorRTVersion(); }));
    uint32_t tag = (static_cast<uint32_t>(apiVersion) >> 24U) & 0xFFU;
    if (tag == static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT_PYTHON))
    {
        tag = static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT);
    }
    if (tag > static_cast<uint32_t>(PluginVersion::kV2_DYNAMICEXT))
    {
        return unsupported(who + ": getTensorRTVersion() returned " + hex32(static_cast<uint32_t>(apiVersion))
            + ", whose top byte " + std::to_string(tag)
            + " is no IPluginV2 generation (0 IPluginV2, 1 IPluginV2Ext, 2 IPluginV2IOExt, 3 IPluginV2DynamicExt); "
              "plugins must not override getTensorRTVersion()");
    }
    auto const generation = static_cast<PluginGeneration>(tag);

    // From here on the object is a known IPluginV2: an owned one is destroyed if wrapping fails.
    auto failOwned = [&](Status status) -> Status {
        if (ownership == PluginOwnership::kOWNED)
        {
            (void) guardedCallNamed(who, "destroy", [&] { plugin->destroy(); });
        }
        return status;
    };
    char const* type = nullptr;
    char const* version = nullptr;
    char const* nspace = nullptr;
    Status st = guardedCallNamed(who, "getPluginType", [&] { type = plugin->getPluginType(); });
    if (st.isOk())
    {
        st = guardedCallNamed(who, "getPluginVersion", [&] { version = plugin->getPluginVersion(); });
    }
    if (st.isOk())
    {
        st = guardedCallNamed(who, "getPluginNamespace", [&] { nspace = plugin->getPluginNamespace(); });
    }
    if (!st.isOk())
    {
        return failOwned(st);
    }
    if (type == nullptr || type[0] == '\0')
    {
        return failOwned(invalidArgument(who + " (" + pluginGenerationName(generation)
            + "): getPluginType() returned " + (type == nullptr ? "nullptr" : "an empty string")));
    }
    std::unique_ptr<PluginAdapter> adapter(new PluginAdapterV2(
        plugin, generation, ownership, type, pluginString(version), pluginString(nspace), logger));
    return adapter;
}

PluginAdapterV2::~PluginAdapterV2()
{
    if (mInitialized)
    {
        terminate();
    }
    if (mAttached)
    {
        trace("detachFromContext");
        Status st = guardedCall(*this, "detachFromContext", [&] { ext()->detachFromContext(); });
        if (!st.isOk())
        {
            logger().error(st.message());
        }
    }
    if (mOwnership == PluginOwnership::kOWNED)
    {
        trace("destroy");
        Status st = guardedCall(*this, "destroy", [&] { mPlugin->destroy(); });
        if (!st.isOk())
        {
            logger().error(st.message());
        }
    }
}

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapterV2::clone() const
{
    trace("clone");
    IPluginV2* copy = nullptr;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "clone", [&] { copy = mPlugin->clone(); }));
    if (copy == nullptr)
    {
        return internalError(label() + ": clone returned nullptr");
    }
    KILN_ASSIGN_OR_RETURN(auto adapter, create(copy, PluginOwnership::kOWNED, logger()));
    adapter->setLayerName(layerName());
    adapter->setCreatorDeclaresCpu(creatorDeclaresCpu());
    return adapter;
}

bool PluginAdapterV2::supportsCpu() const
{
    // The mix-in is looked for only in plugins compiled with RTTI; the others rely on their creator's declaration.
    if (auto const* cpu = safeDynamicCast<IPluginCpuSupport const>(mPlugin))
    {
        return askCpuSupport(cpu);
    }
    return creatorDeclaresCpu() || registeredCreatorDeclaresCpuSupport(name(), version(), pluginNamespace());
}

std::string PluginAdapterV2::cpuOptInAdvice() const
{
    return "derive it from kiln::IPluginCpuSupport, or (for plugins compiled without RTTI) list "
           "kiln::kPLUGIN_CPU_SUPPORT_FIELD in its creator's getFieldNames() (include/kiln/KilnPluginCpu.h; see "
           "docs/plugins.md) so that its enqueue runs on host memory";
}

StatusOr<int32_t> PluginAdapterV2::nbOutputs() const
{
    trace("getNbOutputs");
    int32_t n = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getNbOutputs", [&] { n = mPlugin->getNbOutputs(); }));
    KILN_RETURN_IF_ERROR(checkNbOutputs(*this, n));
    return n;
}

StatusOr<std::vector<DataType>> PluginAdapterV2::outputTypes(std::vector<DataType> const& inputTypes) const
{
    KILN_ASSIGN_OR_RETURN(int32_t n, nbOutputs());
    std::vector<DataType> out(static_cast<size_t>(n), DataType::kFLOAT);
    if (generation() == PluginGeneration::kV2)
    {
        // IPluginV2 has no per-output types: every input and output shares the negotiated type.
        if (!inputTypes.empty())
        {
            std::fill(out.begin(), out.end(), inputTypes.front());
        }
        return out;
    }
    auto const nbInputs = static_cast<int32_t>(inputTypes.size());
    for (int32_t i = 0; i < n; ++i)
    {
        trace("getOutputDataType");
        KILN_RETURN_IF_ERROR(guardedCall(*this, "getOutputDataType",
            [&] { out[static_cast<size_t>(i)] = ext()->getOutputDataType(i, inputTypes.data(), nbInputs); }));
        KILN_RETURN_IF_ERROR(checkOutputType(*this, "getOutputDataType", i, out[static_cast<size_t>(i)]));
    }
    return out;
}

StatusOr<PluginShapes> PluginAdapterV2::outputShapes(
    ShapeGraph& graph, std::vector<ShapeExpr> const& inputs, std::vector<std::vector<DimExpr>> const& shapeInputs)
{
    if (!shapeInputs.empty())
    {
        return invalidArgument(label() + ": shape inputs are only supported for IPluginV3 plugins");
    }
    return isDynamic() ? dynamicOutputShapes(graph, inputs) : staticOutputShapes(graph, inputs);
}

StatusOr<PluginShapes> PluginAdapterV2::staticOutputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs)
{
    std::vector<Dims> dims(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (inputs[i].size() > static_cast<size_t>(Dims::MAX_DIMS))
        {
            return invalidArgument(label() + ": input " + std::to_string(i) + " has rank "
                + std::to_string(inputs[i].size()) + " (at most 8)");
        }
        dims[i].nbDims = static_cast<int32_t>(inputs[i].size());
        for (size_t j = 0; j < inputs[i].size(); ++j)
        {
            if (!inputs[i][j].isConstant())
            {
                return invalidArgument(label() + ": dimension " + std::to_string(j) + " of input "
                    + std::to_string(i) + " is only known at run time (" + graph.toString(inputs[i][j].id())
                    + "); " + pluginGenerationName(generation())
                    + " plugins need build-time shapes (use IPluginV2DynamicExt or IPluginV3 for dynamic shapes)");
            }
            dims[i].d[j] = inputs[i][j].constant();
        }
    }
    KILN_ASSIGN_OR_RETURN(int32_t n, nbOutputs());
    PluginShapes shapes;
    for (int32_t o = 0; o < n; ++o)
    {
        trace("getOutputDimensions");
        Dims out{};
        out.nbDims = -1;
        KILN_RETURN_IF_ERROR(guardedCall(*this, "getOutputDimensions",
            [&] { out = mPlugin->getOutputDimensions(o, dims.data(), static_cast<int32_t>(dims.size())); }));
        std::string const what = label() + ": getOutputDimensions(" + std::to_string(o) + ")";
        if (out.nbDims < 0 || out.nbDims > Dims::MAX_DIMS)
        {
            return invalidArgument(what + " returned nbDims " + std::to_string(out.nbDims) + " (must be 0..8)");
        }
        ShapeExpr shape;
        for (int32_t j = 0; j < out.nbDims; ++j)
        {
            if (out.d[j] < 0)
            {
                return invalidArgument(
                    what + " returned the negative extent " + std::to_string(out.d[j]) + " in dimension "
                    + std::to_string(j));
            }
            shape.emplace_back(&graph, graph.constant(out.d[j]));
        }
        shapes.outputs.push_back(std::move(shape));
    }
    return shapes;
}

StatusOr<PluginShapes> PluginAdapterV2::dynamicOutputShapes(ShapeGraph& graph, std::vector<ShapeExpr> const& inputs)
{
    KILN_ASSIGN_OR_RETURN(int32_t n, nbOutputs());
    PluginExprBuilder builder(graph, layerName(), n, false);
    std::vector<DimsExprs> in;
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        auto d = builder.toDimsExprs(inputs[i], "input " + std::to_string(i));
        if (!d.isOk())
        {
            return d.status().withContext(label());
        }
        in.push_back(d.value());
    }
    PluginShapes shapes;
    for (int32_t o = 0; o < n; ++o)
    {
        trace("getOutputDimensions");
        DimsExprs out{};
        out.nbDims = -1;
        KILN_RETURN_IF_ERROR(guardedCall(*this, "getOutputDimensions", [&] {
            out = dynamicExt()->getOutputDimensions(o, in.data(), static_cast<int32_t>(in.size()), builder.api());
        }));
        std::string const what = "getOutputDimensions(" + std::to_string(o) + ")";
        if (!builder.error().isOk())
        {
            return builder.error().withContext(label() + ": " + what);
        }
        auto shape = builder.toShape(out, what + " output");
        if (!shape.isOk())
        {
            return shape.status().withContext(label());
        }
        shapes.outputs.push_back(std::move(shape.value()));
    }
    return shapes;
}

StatusOr<bool> PluginAdapterV2::supportsFormatCombination(
    int32_t pos, std::vector<PluginTensorDesc> const& inOut, int32_t nbInputs)
{
    auto const total = static_cast<int32_t>(inOut.size());
    if (nbInputs < 0 || nbInputs > total || pos < 0 || pos >= total)
    {
        return invalidArgument(label() + ": supportsFormatCombination asked about position " + std::to_string(pos)
            + " of " + std::to_string(total) + " tensors with " + std::to_string(nbInputs) + " inputs");
    }
    int32_t const nbOutputs = total - nbInputs;
    bool result = false;
    if (isDynamic())
    {
        trace("supportsFormatCombination");
        KILN_RETURN_IF_ERROR(guardedCall(*this, "supportsFormatCombination",
            [&] { result = dynamicExt()->supportsFormatCombination(pos, inOut.data(), nbInputs, nbOutputs); }));
        return result;
    }
    if (isIoExt())
    {
        trace("supportsFormatCombination");
        KILN_RETURN_IF_ERROR(guardedCall(*this, "supportsFormatCombination",
            [&] { result = ioExt()->supportsFormatCombination(pos, inOut.data(), nbInputs, nbOutputs); }));
        return result;
    }
    // IPluginV2 / IPluginV2Ext: supportsFormat(type, format), one format for all I/O, one type for the inputs
    // (and the outputs of IPluginV2); IPluginV2Ext outputs have the types of getOutputDataType.
    PluginTensorDesc const& d = inOut[static_cast<size_t>(pos)];
    trace("supportsFormat");
    KILN_RETURN_IF_ERROR(guardedCall(*this, "supportsFormat", [&] { result = mPlugin->supportsFormat(d.type, d.format); }));
    if (!result)
    {
        return false;
    }
    if (pos == 0)
    {
        return true;
    }
    if (d.format != inOut[0].format)
    {
        return false;
    }
    bool const isOutput = pos >= nbInputs;
    if (!isOutput || generation() == PluginGeneration::kV2)
    {
        return d.type == inOut[0].type;
    }
    std::vector<DataType> inputTypes;
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        inputTypes.push_back(inOut[static_cast<size_t>(i)].type);
    }
    DataType expected = DataType::kFLOAT;
    int32_t const output = pos - nbInputs;
    trace("getOutputDataType");
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getOutputDataType",
        [&] { expected = ext()->getOutputDataType(output, inputTypes.data(), nbInputs); }));
    return d.type == expected;
}

int32_t PluginAdapterV2::formatCombinationLimit()
{
    return IPluginV2DynamicExt::kFORMAT_COMBINATION_LIMIT;
}

Status PluginAdapterV2::configure(std::vector<DynamicPluginTensorDesc> const& in,
    std::vector<DynamicPluginTensorDesc> const& out)
{
    auto const nbIn = static_cast<int32_t>(in.size());
    auto const nbOut = static_cast<int32_t>(out.size());
    switch (generation())
    {
    case PluginGeneration::kV2:
    {
        std::vector<Dims> inDims = dimsOf(in);
        std::vector<Dims> outDims = dimsOf(out);
        PluginTensorDesc const* first = !in.empty() ? &in[0].desc : (!out.empty() ? &out[0].desc : nullptr);
        DataType const type = first != nullptr ? first->type : DataType::kFLOAT;
        TensorFormat const format = first != nullptr ? first->format : TensorFormat::kLINEAR;
        trace("configureWithFormat");
        return guardedCall(*this, "configureWithFormat", [&] {
            mPlugin->configureWithFormat(inDims.data(), nbIn, outDims.data(), nbOut, type, format, 1);
        });
    }
    case PluginGeneration::kV2_EXT:
    {
        std::vector<Dims> inDims = dimsOf(in);
        std::vector<Dims> outDims = dimsOf(out);
        std::vector<DataType> inTypes = typesOf(in);
        std::vector<DataType> outTypes = typesOf(out);
        auto inBroadcast = falseFlags(in.size());
        auto outBroadcast = falseFlags(out.size());
        TensorFormat const format
            = !in.empty() ? in[0].desc.format : (!out.empty() ? out[0].desc.format : TensorFormat::kLINEAR);
        trace("configurePlugin");
        return guardedCall(*this, "configurePlugin", [&] {
            ext()->configurePlugin(inDims.data(), nbIn, outDims.data(), nbOut, inTypes.data(), outTypes.data(),
                inBroadcast.get(), outBroadcast.get(), format, 1);
        });
    }
    case PluginGeneration::kV2_IOEXT:
    {
        std::vector<PluginTensorDesc> inDesc = descsOf(in);
        std::vector<PluginTensorDesc> outDesc = descsOf(out);
        trace("configurePlugin");
        return guardedCall(
            *this, "configurePlugin", [&] { ioExt()->configurePlugin(inDesc.data(), nbIn, outDesc.data(), nbOut); });
    }
    default:
        trace("configurePlugin");
        return guardedCall(
            *this, "configurePlugin", [&] { dynamicExt()->configurePlugin(in.data(), nbIn, out.data(), nbOut); });
    }
}

StatusOr<size_t> PluginAdapterV2::workspaceSize(
    std::vector<DynamicPluginTensorDesc> const& in, std::vector<DynamicPluginTensorDesc> const& out) const
{
    size_t bytes = 0;
    trace("getWorkspaceSize");
    if (isDynamic())
    {
        // The workspace must cover every shape of the profile, so the plugin sees the largest ones (the max
        // extents) rather than the build-time descriptors' -1 for runtime dimensions. At run time min == max.
        std::vector<PluginTensorDesc> inDesc = descsOf(in);
        std::vector<PluginTensorDesc> outDesc = descsOf(out);
        for (size_t i = 0; i < inDesc.size(); ++i)
        {
            inDesc[i].dims = in[i].max;
        }
        for (size_t i = 0; i < outDesc.size(); ++i)
        {
            outDesc[i].dims = out[i].max;
        }
        KILN_RETURN_IF_ERROR(guardedCall(*this, "getWorkspaceSize", [&] {
            bytes = dynamicExt()->getWorkspaceSize(inDesc.data(), static_cast<int32_t>(inDesc.size()), outDesc.data(),
                static_cast<int32_t>(outDesc.size()));
        }));
    }
    else
    {
        KILN_RETURN_IF_ERROR(guardedCall(*this, "getWorkspaceSize", [&] { bytes = mPlugin->getWorkspaceSize(1); }));
    }
    KILN_RETURN_IF_ERROR(checkWorkspace(*this, bytes));
    return bytes;
}

StatusOr<std::vector<int32_t>> PluginAdapterV2::validTactics()
{
    return std::vector<int32_t>{};
}

Status PluginAdapterV2::setTactic(int32_t tactic)
{
    if (tactic != 0)
    {
        return invalidArgument(label() + ": tactic " + std::to_string(tactic)
            + " requested, but IPluginV2-family plugins only have the default tactic 0");
    }
    return Status::ok();
}

int32_t PluginAdapterV2::aliasedInput(int32_t /*output*/)
{
    return -1;
}

std::string PluginAdapterV2::timingCacheId()
{
    return {};
}

std::string PluginAdapterV2::metadata()
{
    return {};
}

StatusOr<std::string> PluginAdapterV2::serialize()
{
    size_t size = 0;
    trace("getSerializationSize");
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getSerializationSize", [&] { size = mPlugin->getSerializationSize(); }));
    if (size > kMAX_PLUGIN_SERIALIZATION)
    {
        return invalidArgument(label() + ": getSerializationSize returned " + std::to_string(size)
            + " bytes, more than the 2 GiB Kiln accepts");
    }
    // Poisoned, so that bytes the plugin forgets to write are visible (and never leak earlier memory).
    std::string bytes(size, '\xCD');
    trace("serialize");
    KILN_RETURN_IF_ERROR(guardedCall(*this, "serialize", [&] { mPlugin->serialize(bytes.data()); }));
    return bytes;
}

Status PluginAdapterV2::initialize()
{
    if (mInitialized)
    {
        return Status::ok();
    }
    trace("initialize");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "initialize", [&] { rc = mPlugin->initialize(); }));
    KILN_RETURN_IF_ERROR(checkReturnCode(*this, "initialize", rc));
    mInitialized = true;
    return Status::ok();
}

void PluginAdapterV2::terminate()
{
    if (!mInitialized)
    {
        return;
    }
    mInitialized = false;
    trace("terminate");
    Status st = guardedCall(*this, "terminate", [&] { mPlugin->terminate(); });
    if (!st.isOk())
    {
        logger().error(st.message());
    }
}

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapterV2::attachToContext(IPluginResourceContext& resources)
{
    if (generation() == PluginGeneration::kV2)
    {
        // Plain IPluginV2 has no per-context clone: every context shares the engine's object.
        std::unique_ptr<PluginAdapter> shared(new PluginAdapterV2(
            mPlugin, generation(), PluginOwnership::kBORROWED, name(), version(), pluginNamespace(), logger()));
        shared->setLayerName(layerName());
        return shared;
    }
    KILN_ASSIGN_OR_RETURN(auto copy, clone());
    auto* v2 = static_cast<PluginAdapterV2*>(copy.get());
    IGpuAllocator* allocator = resources.getGpuAllocator();
    v2->trace("attachToContext");
    KILN_RETURN_IF_ERROR(
        guardedCall(*v2, "attachToContext", [&] { v2->ext()->attachToContext(nullptr, nullptr, allocator); }));
    v2->mAttached = true;
    return copy;
}

Status PluginAdapterV2::onShapeChange(std::vector<PluginTensorDesc> const& /*in*/,
    std::vector<PluginTensorDesc> const& /*out*/)
{
    // The IPluginV2 family learns new shapes through configure() (configurePlugin with the real dimensions).
    return Status::ok();
}

Status PluginAdapterV2::enqueue(std::vector<PluginTensorDesc> const& inDesc, std::vector<PluginTensorDesc> const& outDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
{
    trace("enqueue");
    int32_t rc = 0;
    if (isDynamic())
    {
        KILN_RETURN_IF_ERROR(guardedCall(*this, "enqueue", [&] {
            rc = dynamicExt()->enqueue(inDesc.data(), outDesc.data(), inputs, outputs, workspace, stream);
        }));
    }
    else
    {
        KILN_RETURN_IF_ERROR(
            guardedCall(*this, "enqueue", [&] { rc = mPlugin->enqueue(1, inputs, outputs, workspace, stream); }));
    }
    return checkReturnCode(*this, "enqueue", rc);
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
