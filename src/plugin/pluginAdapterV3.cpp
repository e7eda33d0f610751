// PluginAdapterV3 implementation: capability discovery and checks, and the mapping of each PluginAdapter question
// to IPluginV3OneBuild / IPluginV3OneRuntime calls, every call guarded and every answer validated.
#include "plugin/pluginAdapterV3.h"

#include "core/runtimeTypeInfo.h"
#include "kiln/KilnPluginCpu.h"
#include "plugin/exprBuilder.h"
#include "plugin/pluginCallGuard.h"
#include "plugin/pluginChecks.h"

#include <cstdio>
#include <cstring>
#include <set>

namespace kiln
{

using namespace nvinfer1;

namespace
{

//! More custom tactics than this is treated as a plugin bug.
constexpr int32_t kMAX_TACTICS = 1 << 16;

std::string pointerText(void const* p)
{
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%p", p);
    return buffer;
}

char const* capabilityName(PluginCapabilityType type)
{
    switch (type)
    {
    case PluginCapabilityType::kCORE: return "kCORE";
    case PluginCapabilityType::kBUILD: return "kBUILD";
    case PluginCapabilityType::kRUNTIME: return "kRUNTIME";
    }
    return "unknown";
}

//! Fetch one capability and check its interface kind; `major` receives its version.
Status fetchCapability(std::string const& who, IPluginV3* plugin, PluginCapabilityType type, char const* expectedKind,
    IPluginCapability*& out, int32_t& major)
{
    out = nullptr;
    KILN_RETURN_IF_ERROR(guardedCallNamed(who, "getCapabilityInterface", [&] { out = plugin->getCapabilityInterface(type); }));
    if (out == nullptr)
    {
        return invalidArgument(who + ": getCapabilityInterface(" + capabilityName(type) + ") returned nullptr; the "
            + expectedKind + " capability is required");
    }
    InterfaceInfo info{};
    KILN_RETURN_IF_ERROR(guardedCallNamed(who, "getInterfaceInfo", [&] { info = out->getInterfaceInfo(); }));
    if (info.kind == nullptr || std::strcmp(info.kind, expectedKind) != 0)
    {
        return unsupported(who + ": getCapabilityInterface(" + capabilityName(type) + ") returned an interface of kind '"
            + pluginString(info.kind) + "'; expected '" + expectedKind + "'");
    }
    major = info.major;
    return Status::ok();
}

} // namespace

PluginAdapterV3::PluginAdapterV3(IPluginV3* plugin, Capabilities caps, PluginOwnership ownership, TensorRTPhase phase,
    std::string name, std::string version, std::string pluginNamespace, Logger const& logger)
    : PluginAdapter(PluginGeneration::kV3_ONE, std::move(name), std::move(version), std::move(pluginNamespace), logger)
    , mPlugin(plugin)
    , mCaps(caps)
    , mCore(caps.core)
    , mBuild(caps.build)
    , mRuntime(caps.runtime)
    , mOwnership(ownership)
    , mPhase(phase)
{
}

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapterV3::create(
    IPluginV3* plugin, PluginOwnership ownership, TensorRTPhase phase, Logger const& logger)
{
    if (plugin == nullptr)
    {
        return invalidArgument("the IPluginV3 plugin is null");
    }
    std::string const who = "IPluginV3 plugin object at " + pointerText(plugin);
    auto failOwned = [&](Status status) -> Status {
        if (ownership == PluginOwnership::kOWNED)
        {
            (void) guardedCallNamed(who, "destructor", [&] { delete plugin; });
        }
        return status;
    };

    Capabilities caps;
    IPluginCapability* cap = nullptr;
    int32_t major = 0;
    Status st = fetchCapability(who, plugin, PluginCapabilityType::kCORE, "PLUGIN_V3ONE_CORE", cap, major);
    if (!st.isOk())
    {
        return failOwned(st);
    }
    caps.core = static_cast<IPluginV3OneCore*>(cap);
    if (phase == TensorRTPhase::kBUILD)
    {
        st = fetchCapability(who, plugin, PluginCapabilityType::kBUILD, "PLUGIN_V3ONE_BUILD", cap, major);
        if (!st.isOk())
        {
            return failOwned(st);
        }
        if (major >= 2)
        {
            caps.buildV2 = static_cast<IPluginV3OneBuildV2*>(cap);
            caps.build = caps.buildV2;
        }
        else
        {
            caps.build = static_cast<IPluginV3OneBuild*>(cap);
        }
    }
    st = fetchCapability(who, plugin, PluginCapabilityType::kRUNTIME, "PLUGIN_V3ONE_RUNTIME", cap, major);
    if (!st.isOk())
    {
        return failOwned(st);
    }
    caps.runtime = static_cast<IPluginV3OneRuntime*>(cap);

    char const* name = nullptr;
    char const* version = nullptr;
    char const* nspace = nullptr;
    st = guardedCallNamed(who, "getPluginName", [&] { name = caps.core->getPluginName(); });
    if (st.isOk())
    {
        st = guardedCallNamed(who, "getPluginVersion", [&] { version = caps.core->getPluginVersion(); });
    }
    if (st.isOk())
    {
        st = guardedCallNamed(who, "getPluginNamespace", [&] { nspace = caps.core->getPluginNamespace(); });
    }
    if (!st.isOk())
    {
        return failOwned(st);
    }
    if (name == nullptr || name[0] == '\0')
    {
        return failOwned(invalidArgument(
            who + ": IPluginV3OneCore::getPluginName() returned " + (name == nullptr ? "nullptr" : "an empty string")));
    }
    std::unique_ptr<PluginAdapter> adapter(new PluginAdapterV3(
        plugin, caps, ownership, phase, name, pluginString(version), pluginString(nspace), logger));
    return adapter;
}

PluginAdapterV3::~PluginAdapterV3()
{
    if (mOwnership == PluginOwnership::kOWNED)
    {
        trace("destroy");
        Status st = guardedCall(*this, "the destructor", [&] { delete mPlugin; });
        if (!st.isOk())
        {
            logger().error(st.message());
        }
    }
}

Status PluginAdapterV3::requireBuild(char const* call) const
{
    if (mBuild == nullptr)
    {
        return invalidState(label() + ": " + call
            + " needs the build capability, but the plugin was created for the runtime phase");
    }
    return Status::ok();
}

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapterV3::clone() const
{
    trace("clone");
    IPluginV3* copy = nullptr;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "clone", [&] { copy = mPlugin->clone(); }));
    if (copy == nullptr)
    {
        return internalError(label() + ": clone returned nullptr");
    }
    KILN_ASSIGN_OR_RETURN(auto adapter, create(copy, PluginOwnership::kOWNED, mPhase, logger()));
    adapter->setLayerName(layerName());
    return adapter;
}

bool PluginAdapterV3::supportsCpu() const
{
    // A plugin compiled with RTTI may carry the mix-in without answering the capability (Kiln's first opt-in).
    auto const* cpu = safeDynamicCast<IPluginCpuSupport const>(mPlugin);
    if (cpu == nullptr && mRuntime != nullptr)
    {
        cpu = safeDynamicCast<IPluginCpuSupport const>(mRuntime);
    }
    if (cpu == nullptr)
    {
        cpu = cpuCapability();
    }
    return askCpuSupport(cpu);
}

IPluginCpuSupport const* PluginAdapterV3::cpuCapability() const
{
    // Asked through getCapabilityInterface, which needs no type information, and accepted only with the right
    // interface kind: plugins may answer a capability type they do not know with any of their interfaces.
    IPluginCapability* cap = nullptr;
    Status st = guardedCall(*this, "getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_CPU)",
        [&] { cap = mPlugin->getCapabilityInterface(kPLUGIN_CAPABILITY_CPU); });
    if (!st.isOk() || cap == nullptr)
    {
        return nullptr;
    }
    InterfaceInfo info{};
    st = guardedCall(*this, "getInterfaceInfo", [&] { info = cap->getInterfaceInfo(); });
    if (!st.isOk() || info.kind == nullptr || std::strcmp(info.kind, kPLUGIN_CPU_CAPABILITY_KIND) != 0)
    {
        return nullptr;
    }
    if (info.major != 1)
    {
        logger().warning(label() + ": its " + kPLUGIN_CPU_CAPABILITY_KIND + " capability has version "
            + std::to_string(info.major) + "." + std::to_string(info.minor) + "; Kiln knows version 1");
        return nullptr;
    }
    return static_cast<IPluginCpuSupport const*>(cap);
}

std::string PluginAdapterV3::cpuOptInAdvice() const
{
    return "derive it from kiln::IPluginCpuSupport and return that from getCapabilityInterface("
           "kiln::kPLUGIN_CAPABILITY_CPU) (include/kiln/KilnPluginCpu.h; see docs/plugins.md) so that its enqueue "
           "runs on host memory";
}

StatusOr<int32_t> PluginAdapterV3::nbOutputs() const
{
    KILN_RETURN_IF_ERROR(requireBuild("getNbOutputs"));
    trace("getNbOutputs");
    int32_t n = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getNbOutputs", [&] { n = mBuild->getNbOutputs(); }));
    KILN_RETURN_IF_ERROR(checkNbOutputs(*this, n));
    return n;
}

StatusOr<std::optional<int32_t>> PluginAdapterV3::nbOutputsIfKnown() const
{
    if (mBuild != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(int32_t const n, nbOutputs());
        return std::optional<int32_t>(n);
    }
    // A runtime-phase object: only an interface of the right kind is asked; anything else means "not known".
    IPluginCapability* cap = nullptr;
    int32_t major = 0;
    if (!fetchCapability(label(), mPlugin, PluginCapabilityType::kBUILD, "PLUGIN_V3ONE_BUILD", cap, major).isOk())
    {
        return std::optional<int32_t>();
    }
    trace("getNbOutputs");
    auto* build = static_cast<IPluginV3OneBuild*>(cap);
    int32_t n = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getNbOutputs", [&] { n = build->getNbOutputs(); }));
    KILN_RETURN_IF_ERROR(checkNbOutputs(*this, n));
    return std::optional<int32_t>(n);
}

StatusOr<std::vector<DataType>> PluginAdapterV3::outputTypes(std::vector<DataType> const& inputTypes) const
{
    KILN_ASSIGN_OR_RETURN(int32_t n, nbOutputs());
    // Poisoned with an invalid value, so that an output the plugin does not set is reported.
    std::vector<DataType> out(static_cast<size_t>(n), static_cast<DataType>(-1));
    trace("getOutputDataTypes");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getOutputDataTypes", [&] {
        rc = mBuild->getOutputDataTypes(out.data(), n, inputTypes.data(), static_cast<int32_t>(inputTypes.size()));
    }));
    KILN_RETURN_IF_ERROR(checkReturnCode(*this, "getOutputDataTypes", rc));
    for (int32_t i = 0; i < n; ++i)
    {
        KILN_RETURN_IF_ERROR(checkOutputType(*this, "getOutputDataTypes", i, out[static_cast<size_t>(i)]));
    }
    return out;
}

StatusOr<PluginShapes> PluginAdapterV3::outputShapes(
    ShapeGraph& graph, std::vector<ShapeExpr> const& inputs, std::vector<std::vector<DimExpr>> const& shapeInputs)
{
    KILN_ASSIGN_OR_RETURN(int32_t n, nbOutputs());
    PluginExprBuilder builder(graph, layerName(), n, true);
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
    std::vector<DimsExprs> shapeIn;
    for (size_t i = 0; i < shapeInputs.size(); ++i)
    {
        auto d = builder.toDimsExprs(shapeInputs[i], "shape input " + std::to_string(i));
        if (!d.isOk())
        {
            return d.status().withContext(label());
        }
        shapeIn.push_back(d.value());
    }
    std::vector<DimsExprs> out(static_cast<size_t>(n));
    for (auto& o : out)
    {
        o.nbDims = -1;
    }
    trace("getOutputShapes");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getOutputShapes", [&] {
        rc = mBuild->getOutputShapes(in.data(), static_cast<int32_t>(in.size()), shapeIn.data(),
            static_cast<int32_t>(shapeIn.size()), out.data(), n, builder.api());
    }));
    if (!builder.error().isOk())
    {
        return builder.error().withContext(label() + ": getOutputShapes");
    }
    KILN_RETURN_IF_ERROR(checkReturnCode(*this, "getOutputShapes", rc));
    PluginShapes shapes;
    shapes.sizeTensors = builder.sizeTensors();
    for (int32_t o = 0; o < n; ++o)
    {
        auto shape = builder.toShape(out[static_cast<size_t>(o)], "getOutputShapes: output " + std::to_string(o));
        if (!shape.isOk())
        {
            return shape.status().withContext(label());
        }
        shapes.outputs.push_back(std::move(shape.value()));
    }
    for (PluginSizeTensor const& t : shapes.sizeTensors)
    {
        auto const rank = shapes.outputs[static_cast<size_t>(t.output)].size();
        if (rank != 0)
        {
            return invalidArgument(label() + ": getOutputShapes: output " + std::to_string(t.output)
                + " was declared a size tensor (declareSizeTensor) but has " + std::to_string(rank)
                + " dimension(s); a size tensor must be 0-D (nbDims = 0)");
        }
    }
    return shapes;
}

StatusOr<bool> PluginAdapterV3::supportsFormatCombination(
    int32_t pos, std::vector<PluginTensorDesc> const& inOut, int32_t nbInputs)
{
    std::vector<DynamicPluginTensorDesc> dyn(inOut.size());
    for (size_t i = 0; i < inOut.size(); ++i)
    {
        dyn[i].desc = inOut[i];
        dyn[i].min = inOut[i].dims;
        dyn[i].opt = inOut[i].dims;
        dyn[i].max = inOut[i].dims;
    }
    return supportsFormatCombinationDynamic(pos, dyn, nbInputs);
}

StatusOr<bool> PluginAdapterV3::supportsFormatCombinationDynamic(
    int32_t pos, std::vector<DynamicPluginTensorDesc> const& inOut, int32_t nbInputs)
{
    KILN_RETURN_IF_ERROR(requireBuild("supportsFormatCombination"));
    auto const total = static_cast<int32_t>(inOut.size());
    if (nbInputs < 0 || nbInputs > total || pos < 0 || pos >= total)
    {
        return invalidArgument(label() + ": supportsFormatCombination asked about position " + std::to_string(pos)
            + " of " + std::to_string(total) + " tensors with " + std::to_string(nbInputs) + " inputs");
    }
    trace("supportsFormatCombination");
    bool result = false;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "supportsFormatCombination",
        [&] { result = mBuild->supportsFormatCombination(pos, inOut.data(), nbInputs, total - nbInputs); }));
    return result;
}

int32_t PluginAdapterV3::formatCombinationLimit()
{
    if (mBuild == nullptr)
    {
        return IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT;
    }
    trace("getFormatCombinationLimit");
    int32_t limit = IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT;
    Status st = guardedCall(*this, "getFormatCombinationLimit", [&] { limit = mBuild->getFormatCombinationLimit(); });
    if (!st.isOk())
    {
        logger().warning(st.message() + "; using the default limit");
        return IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT;
    }
    if (limit <= 0)
    {
        logger().warning(label() + ": getFormatCombinationLimit returned " + std::to_string(limit)
            + "; using the default limit " + std::to_string(IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT));
        return IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT;
    }
    return limit;
}

Status PluginAdapterV3::configure(std::vector<DynamicPluginTensorDesc> const& in, std::vector<DynamicPluginTensorDesc> const& out)
{
    KILN_RETURN_IF_ERROR(requireBuild("configurePlugin"));
    trace("configurePlugin");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "configurePlugin", [&] {
        rc = mBuild->configurePlugin(
            in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
    }));
    return checkReturnCode(*this, "configurePlugin", rc);
}

StatusOr<size_t> PluginAdapterV3::workspaceSize(
    std::vector<DynamicPluginTensorDesc> const& in, std::vector<DynamicPluginTensorDesc> const& out) const
{
    KILN_RETURN_IF_ERROR(requireBuild("getWorkspaceSize"));
    trace("getWorkspaceSize");
    size_t bytes = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getWorkspaceSize", [&] {
        bytes = mBuild->getWorkspaceSize(
            in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
    }));
    KILN_RETURN_IF_ERROR(checkWorkspace(*this, bytes));
    return bytes;
}

StatusOr<std::vector<int32_t>> PluginAdapterV3::validTactics()
{
    KILN_RETURN_IF_ERROR(requireBuild("getNbTactics"));
    trace("getNbTactics");
    int32_t n = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getNbTactics", [&] { n = mBuild->getNbTactics(); }));
    if (n < 0 || n > kMAX_TACTICS)
    {
        return invalidArgument(label() + ": getNbTactics returned " + std::to_string(n) + " (must be 0.."
            + std::to_string(kMAX_TACTICS) + ")");
    }
    if (n == 0)
    {
        return std::vector<int32_t>{};
    }
    std::vector<int32_t> tactics(static_cast<size_t>(n), 0);
    trace("getValidTactics");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getValidTactics", [&] { rc = mBuild->getValidTactics(tactics.data(), n); }));
    KILN_RETURN_IF_ERROR(checkReturnCode(*this, "getValidTactics", rc));
    std::set<int32_t> seen;
    for (int32_t t : tactics)
    {
        if (t == 0)
        {
            return invalidArgument(label() + ": getValidTactics returned tactic 0, which is reserved for the default "
                                             "tactic (custom tactics must be non-zero; was every entry written?)");
        }
        if (!seen.insert(t).second)
        {
            return invalidArgument(label() + ": getValidTactics returned tactic " + std::to_string(t) + " twice");
        }
    }
    return tactics;
}

Status PluginAdapterV3::setTactic(int32_t tactic)
{
    trace("setTactic");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "setTactic", [&] { rc = mRuntime->setTactic(tactic); }));
    return checkReturnCode(*this, "setTactic", rc);
}

int32_t PluginAdapterV3::aliasedInput(int32_t output)
{
    if (mCaps.buildV2 == nullptr)
    {
        return -1;
    }
    trace("getAliasedInput");
    int32_t input = -1;
    Status st = guardedCall(*this, "getAliasedInput", [&] { input = mCaps.buildV2->getAliasedInput(output); });
    if (!st.isOk())
    {
        logger().error(st.message());
        return -1;
    }
    return input;
}

std::string PluginAdapterV3::timingCacheId()
{
    if (mBuild == nullptr)
    {
        return {};
    }
    trace("getTimingCacheID");
    char const* id = nullptr;
    Status st = guardedCall(*this, "getTimingCacheID", [&] { id = mBuild->getTimingCacheID(); });
    if (!st.isOk())
    {
        logger().error(st.message());
        return {};
    }
    return pluginString(id);
}

std::string PluginAdapterV3::metadata()
{
    if (mBuild == nullptr)
    {
        return {};
    }
    trace("getMetadataString");
    char const* text = nullptr;
    Status st = guardedCall(*this, "getMetadataString", [&] { text = mBuild->getMetadataString(); });
    if (!st.isOk())
    {
        logger().error(st.message());
        return {};
    }
    return pluginString(text);
}

StatusOr<std::string> PluginAdapterV3::serialize()
{
    trace("getFieldsToSerialize");
    PluginFieldCollection const* fields = nullptr;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "getFieldsToSerialize", [&] { fields = mRuntime->getFieldsToSerialize(); }));
    if (fields == nullptr)
    {
        return invalidArgument(label() + ": getFieldsToSerialize returned nullptr (return an empty collection when "
                                         "the plugin has no state)");
    }
    KILN_RETURN_IF_ERROR(validatePluginFields(*fields, label() + ": getFieldsToSerialize"));
    return encodePluginFields(*fields);
}

Status PluginAdapterV3::initialize()
{
    return Status::ok();
}

void PluginAdapterV3::terminate()
{
}

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapterV3::attachToContext(IPluginResourceContext& resources)
{
    trace("attachToContext");
    IPluginV3* attached = nullptr;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "attachToContext", [&] { attached = mRuntime->attachToContext(&resources); }));
    if (attached == nullptr)
    {
        return internalError(label() + ": attachToContext returned nullptr");
    }
    KILN_ASSIGN_OR_RETURN(auto adapter, create(attached, PluginOwnership::kOWNED, TensorRTPhase::kRUNTIME, logger()));
    adapter->setLayerName(layerName());
    return adapter;
}

Status PluginAdapterV3::onShapeChange(std::vector<PluginTensorDesc> const& in, std::vector<PluginTensorDesc> const& out)
{
    trace("onShapeChange");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "onShapeChange", [&] {
        rc = mRuntime->onShapeChange(
            in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
    }));
    return checkReturnCode(*this, "onShapeChange", rc);
}

Status PluginAdapterV3::enqueue(std::vector<PluginTensorDesc> const& inDesc, std::vector<PluginTensorDesc> const& outDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
{
    trace("enqueue");
    int32_t rc = 0;
    KILN_RETURN_IF_ERROR(guardedCall(*this, "enqueue",
        [&] { rc = mRuntime->enqueue(inDesc.data(), outDesc.data(), inputs, outputs, workspace, stream); }));
    return checkReturnCode(*this, "enqueue", rc);
}

} // namespace kiln
