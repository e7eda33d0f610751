// PluginRecord <-> node attributes ("plugin.*"): what an engine keeps of a plugin node so that the runtime can find
// its creator and recreate it. loadPluginRecord validates everything, because engine files are untrusted input.
#include "plugin/pluginAdapter.h"

namespace kiln
{
namespace
{

constexpr char const* kNAME = "plugin.name";
constexpr char const* kVERSION = "plugin.version";
constexpr char const* kNAMESPACE = "plugin.namespace";
constexpr char const* kGENERATION = "plugin.generation";
constexpr char const* kDATA = "plugin.data";
constexpr char const* kTACTIC = "plugin.tactic";
constexpr char const* kALIASES = "plugin.aliases";

bool isKnownGeneration(int64_t value)
{
    switch (value)
    {
    case static_cast<int64_t>(PluginGeneration::kV2):
    case static_cast<int64_t>(PluginGeneration::kV2_EXT):
    case static_cast<int64_t>(PluginGeneration::kV2_IOEXT):
    case static_cast<int64_t>(PluginGeneration::kV2_DYNAMIC_EXT):
    case static_cast<int64_t>(PluginGeneration::kV3_ONE): return true;
    default: return false;
    }
}

StatusOr<std::string> requireString(Attributes const& attrs, char const* key)
{
    auto it = attrs.values().find(key);
    if (it == attrs.values().end())
    {
        return invalidArgument(std::string("plugin record: attribute '") + key + "' is missing");
    }
    if (auto const* s = std::get_if<std::string>(&it->second))
    {
        return *s;
    }
    return invalidArgument(std::string("plugin record: attribute '") + key + "' is not a string");
}

} // namespace

void storePluginRecord(PluginRecord const& record, Attributes& attrs)
{
    attrs.setString(kNAME, record.name);
    attrs.setString(kVERSION, record.version);
    attrs.setString(kNAMESPACE, record.pluginNamespace);
    attrs.setInt(kGENERATION, static_cast<int64_t>(record.generation));
    attrs.setString(kDATA, record.data);
    attrs.setInt(kTACTIC, record.tactic);
    attrs.setInts(kALIASES, record.aliases);
}

StatusOr<PluginRecord> loadPluginRecord(Attributes const& attrs)
{
    PluginRecord record;
    KILN_ASSIGN_OR_RETURN(record.name, requireString(attrs, kNAME));
    if (record.name.empty())
    {
        return invalidArgument("plugin record: the plugin name is empty");
    }
    auto withName = [&](Status const& st) { return st.withContext("plugin '" + record.name + "'"); };
    auto version = requireString(attrs, kVERSION);
    if (!version.isOk())
    {
        return withName(version.status());
    }
    record.version = version.value();
    auto nspace = requireString(attrs, kNAMESPACE);
    if (!nspace.isOk())
    {
        return withName(nspace.status());
    }
    record.pluginNamespace = nspace.value();
    auto data = requireString(attrs, kDATA);
    if (!data.isOk())
    {
        return withName(data.status());
    }
    record.data = std::move(data.value());
    auto generation = attrs.requireInt(kGENERATION);
    if (!generation.isOk())
    {
        return withName(generation.status());
    }
    if (!isKnownGeneration(generation.value()))
    {
        return withName(invalidArgument("plugin record: unknown plugin generation " + std::to_string(generation.value())));
    }
    record.generation = static_cast<PluginGeneration>(generation.value());
    auto tactic = attrs.requireInt(kTACTIC);
    if (!tactic.isOk())
    {
        return withName(tactic.status());
    }
    if (tactic.value() < INT32_MIN || tactic.value() > INT32_MAX)
    {
        return withName(invalidArgument("plugin record: tactic " + std::to_string(tactic.value()) + " is out of range"));
    }
    record.tactic = static_cast<int32_t>(tactic.value());
    if (attrs.has(kALIASES))
    {
        auto aliases = attrs.requireInts(kALIASES);
        if (!aliases.isOk())
        {
            return withName(aliases.status());
        }
        record.aliases = aliases.value();
        for (int64_t a : record.aliases)
        {
            if (a < -1 || a > INT32_MAX)
            {
                return withName(invalidArgument("plugin record: aliased input " + std::to_string(a) + " is out of range"));
            }
        }
    }
    return record;
}

} // namespace kiln
