// pluginCpuOptIn implementation: reads an IPluginCreator's field list for kiln::kPLUGIN_CPU_SUPPORT_FIELD.
#include "plugin/pluginCpuOptIn.h"

#include "kiln/KilnPluginCpu.h"
#include "plugin/pluginCallGuard.h"
#include "plugin/pluginRegistry.h"

#include <cstring>

namespace kiln
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

bool creatorDeclaresCpuSupport(IPluginCreator& creator, std::string const& who)
{
    bool declared = false;
    Status const st = guardedCallNamed(who, "getFieldNames", [&] {
        PluginFieldCollection const* fields = creator.getFieldNames();
        for (int32_t i = 0; fields != nullptr && fields->fields != nullptr && i < fields->nbFields; ++i)
        {
            char const* name = fields->fields[i].name;
            declared = declared || (name != nullptr && std::strcmp(name, kPLUGIN_CPU_SUPPORT_FIELD) == 0);
        }
    });
    return st.isOk() && declared;
}

bool registeredCreatorDeclaresCpuSupport(
    std::string const& name, std::string const& version, std::string const& pluginNamespace)
{
    IPluginCreatorInterface* creator
        = globalPluginRegistry().getCreator(name.c_str(), version.c_str(), pluginNamespace.c_str());
    CreatorKind kind{};
    if (creator == nullptr || !PluginRegistry::creatorKindOf(*creator, kind) || kind != CreatorKind::kV1)
    {
        return false;
    }
    return creatorDeclaresCpuSupport(*static_cast<IPluginCreator*>(creator),
        "plugin creator '" + name + "' (version '" + version + "', namespace '" + pluginNamespace + "')");
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
