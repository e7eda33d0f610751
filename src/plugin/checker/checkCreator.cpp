// Creator lookup, creation from fields and recreation from serialized bytes for the plugin contract checker.
#include "plugin/checker/checkCreator.h"

#include "core/editDistance.h"
#include "plugin/pluginCallGuard.h"
#include "plugin/pluginCpuOptIn.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace kiln::checker
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

std::string quote(std::string const& s)
{
    return "'" + s + "'";
}

std::string keyText(std::string const& name, std::string const& version, std::string const& nspace)
{
    return quote(name) + " version " + quote(version) + " namespace " + quote(nspace);
}

//! Name, version and namespace a creator reports (empty name when a call failed).
struct CreatorInfo
{
    IPluginCreatorInterface* creator{nullptr};
    CreatorKind kind{CreatorKind::kV1};
    std::string name;
    std::string version;
    std::string nspace;
};

bool describe(IPluginCreatorInterface* creator, CreatorInfo& info)
{
    info.creator = creator;
    if (creator == nullptr)
    {
        return false;
    }
    // The registry's own reader; the guard also survives a creator that throws through its noexcept getters.
    Status key;
    Status const st = guardedCallNamed("a registered plugin creator",
        "getPluginName/getPluginVersion/getPluginNamespace",
        [&] { key = PluginRegistry::readCreatorKey(*creator, info.kind, info.name, info.version, info.nspace); });
    return st.isOk() && key.isOk() && !info.name.empty();
}

std::vector<CreatorInfo> allCreators(IPluginRegistry& registry)
{
    std::vector<CreatorInfo> result;
    int32_t count = 0;
    IPluginCreatorInterface* const* list = registry.getAllCreatorsRecursive(&count);
    for (int32_t i = 0; list != nullptr && i < count; ++i)
    {
        CreatorInfo info;
        if (describe(list[i], info))
        {
            result.push_back(std::move(info));
        }
    }
    return result;
}

std::string missingMessage(CheckSpec const& spec, std::vector<CreatorInfo> const& all)
{
    std::string message = "no plugin creator " + keyText(spec.name, spec.version.empty() ? "*" : spec.version,
        spec.pluginNamespace) + " is registered in the registry (parents included)";
    std::vector<std::string> sameName;
    for (CreatorInfo const& c : all)
    {
        if (c.name == spec.name)
        {
            sameName.push_back("version " + quote(c.version) + " namespace " + quote(c.nspace));
        }
    }
    if (!sameName.empty())
    {
        message += "; '" + spec.name + "' is registered as ";
        for (size_t i = 0; i < sameName.size(); ++i)
        {
            message += (i > 0 ? ", " : "") + sameName[i];
        }
    }
    else if (all.empty())
    {
        message += "; no plugin creators are registered";
    }
    else
    {
        std::vector<CreatorInfo> closest = all;
        std::stable_sort(closest.begin(), closest.end(), [&](CreatorInfo const& a, CreatorInfo const& b) {
            return editDistance(a.name, spec.name) < editDistance(b.name, spec.name);
        });
        message += "; closest registered: ";
        size_t const shown = std::min<size_t>(closest.size(), 5);
        for (size_t i = 0; i < shown; ++i)
        {
            message += (i > 0 ? ", " : "") + keyText(closest[i].name, closest[i].version, closest[i].nspace);
        }
        if (closest.size() > shown)
        {
            message += " and " + std::to_string(closest.size() - shown) + " more";
        }
    }
    message += ". Load the plugin library first (IPluginRegistry::loadLibrary, kilnexec --dynamicPlugins) or "
               "register the standard plugins (initLibNvInferPlugins, kilnexec --initPlugins)";
    return message;
}

} // namespace

std::string CreatorRef::describe() const
{
    return std::string(creatorKindName(kind)) + " " + keyText(name, version, pluginNamespace);
}

bool findCreator(IPluginRegistry& registry, CheckSpec const& spec, CreatorRef& out, CheckReport& report)
{
    std::string version = spec.version;
    if (version.empty())
    {
        std::vector<std::string> versions;
        for (CreatorInfo const& c : allCreators(registry))
        {
            if (c.name == spec.name && c.nspace == spec.pluginNamespace
                && std::find(versions.begin(), versions.end(), c.version) == versions.end())
            {
                versions.push_back(c.version);
            }
        }
        if (versions.size() > 1)
        {
            std::string list;
            for (size_t i = 0; i < versions.size(); ++i)
            {
                list += (i > 0 ? ", " : "") + quote(versions[i]);
            }
            report.addFinding(PluginCheckRules::kBAD_REQUEST, "plugin " + quote(spec.name) + " namespace "
                + quote(spec.pluginNamespace) + " is registered in several versions (" + list
                + "); name the version to check (name:version[:namespace])");
            return false;
        }
        if (versions.size() == 1)
        {
            version = versions[0];
        }
    }
    IPluginCreatorInterface* creator = version.empty() && spec.version.empty()
        ? nullptr
        : registry.getCreator(spec.name.c_str(), version.c_str(), spec.pluginNamespace.c_str());
    if (creator == nullptr)
    {
        report.addFinding(PluginCheckRules::kCREATOR_NOT_FOUND, missingMessage(spec, allCreators(registry)));
        return false;
    }
    CreatorInfo info;
    if (!describe(creator, info))
    {
        report.addFinding(PluginCheckRules::kNOT_CHECKABLE, "the creator registered for "
            + keyText(spec.name, version, spec.pluginNamespace)
            + " has an unknown interface kind or fails to report its name");
        return false;
    }
    if (info.kind == CreatorKind::kV3Quick)
    {
        report.addFinding(PluginCheckRules::kNOT_CHECKABLE, "the creator of "
            + keyText(spec.name, version, spec.pluginNamespace)
            + " is an IPluginCreatorV3Quick (a Python quick plugin); the checker drives IPluginCreator and "
              "IPluginCreatorV3One creators only");
        return false;
    }
    out.creator = creator;
    out.kind = info.kind;
    out.name = info.name;
    out.version = info.version;
    out.pluginNamespace = spec.pluginNamespace;
    return true;
}

StatusOr<std::unique_ptr<PluginAdapter>> createFromFields(
    CreatorRef const& creator, CheckSpec const& spec, Logger const& logger)
{
    std::string const who = creator.describe();
    std::unique_ptr<PluginAdapter> adapter;
    if (creator.kind == CreatorKind::kV1)
    {
        auto* v1 = static_cast<IPluginCreator*>(creator.creator);
        IPluginV2* plugin = nullptr;
        KILN_RETURN_IF_ERROR(guardedCallNamed(
            who, "createPlugin", [&] { plugin = v1->createPlugin(spec.layerName.c_str(), &spec.fields); }));
        if (plugin == nullptr)
        {
            return internalError(who + ": createPlugin returned nullptr for the given fields");
        }
        KILN_ASSIGN_OR_RETURN(adapter, PluginAdapter::wrapV2(plugin, PluginOwnership::kOWNED, logger));
        adapter->setCreatorDeclaresCpu(creatorDeclaresCpuSupport(*v1, who));
    }
    else
    {
        auto* v3 = static_cast<IPluginCreatorV3One*>(creator.creator);
        IPluginV3* plugin = nullptr;
        KILN_RETURN_IF_ERROR(guardedCallNamed(who, "createPlugin", [&] {
            plugin = v3->createPlugin(spec.layerName.c_str(), &spec.fields, TensorRTPhase::kBUILD);
        }));
        if (plugin == nullptr)
        {
            return internalError(who + ": createPlugin(kBUILD) returned nullptr for the given fields");
        }
        KILN_ASSIGN_OR_RETURN(
            adapter, PluginAdapter::wrapV3(plugin, PluginOwnership::kOWNED, TensorRTPhase::kBUILD, logger));
    }
    adapter->setLayerName(spec.layerName);
    return adapter;
}

StatusOr<std::unique_ptr<PluginAdapter>> createFromBytes(
    CreatorRef const& creator, std::string const& bytes, CheckSpec const& spec, Logger const& logger)
{
    std::string const who = creator.describe();
    std::unique_ptr<PluginAdapter> adapter;
    if (creator.kind == CreatorKind::kV1)
    {
        auto* v1 = static_cast<IPluginCreator*>(creator.creator);
        IPluginV2* plugin = nullptr;
        KILN_RETURN_IF_ERROR(guardedCallNamed(who, "deserializePlugin",
            [&] { plugin = v1->deserializePlugin(spec.layerName.c_str(), bytes.data(), bytes.size()); }));
        if (plugin == nullptr)
        {
            return internalError(who + ": deserializePlugin returned nullptr for the " + std::to_string(bytes.size())
                + " bytes that serialize() wrote");
        }
        // As the engine loader does: the plugin belongs to the namespace its creator is registered under.
        Status ns = guardedCallNamed(
            who, "setPluginNamespace", [&] { plugin->setPluginNamespace(creator.pluginNamespace.c_str()); });
        if (!ns.isOk())
        {
            (void) guardedCallNamed(who, "destroy", [&] { plugin->destroy(); });
            return ns;
        }
        KILN_ASSIGN_OR_RETURN(adapter, PluginAdapter::wrapV2(plugin, PluginOwnership::kOWNED, logger));
        adapter->setCreatorDeclaresCpu(creatorDeclaresCpuSupport(*v1, who));
    }
    else
    {
        auto decoded = decodePluginFields(bytes);
        if (!decoded.isOk())
        {
            return decoded.status().withContext(who + ": the fields of getFieldsToSerialize() do not decode");
        }
        auto fields = std::move(decoded.value());
        auto* v3 = static_cast<IPluginCreatorV3One*>(creator.creator);
        IPluginV3* plugin = nullptr;
        KILN_RETURN_IF_ERROR(guardedCallNamed(who, "createPlugin", [&] {
            plugin = v3->createPlugin(spec.layerName.c_str(), &fields->collection(), TensorRTPhase::kRUNTIME);
        }));
        if (plugin == nullptr)
        {
            return internalError(who + ": createPlugin(kRUNTIME) returned nullptr for the fields that "
                                       "getFieldsToSerialize() returned");
        }
        KILN_ASSIGN_OR_RETURN(
            adapter, PluginAdapter::wrapV3(plugin, PluginOwnership::kOWNED, TensorRTPhase::kRUNTIME, logger));
    }
    adapter->setLayerName(spec.layerName);
    return adapter;
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::checker
