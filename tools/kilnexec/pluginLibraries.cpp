// Plugin library loading for kilnexec.
#include "pluginLibraries.h"

#include "NvInferPlugin.h"

#include <dlfcn.h>

namespace kilnexec
{

bool loadPlugins(Options const& options, nvinfer1::ILogger& logger, std::string& error)
{
    nvinfer1::IPluginRegistry* registry = getPluginRegistry();
    if (registry == nullptr)
    {
        error = "kilnexec: getPluginRegistry() returned nullptr";
        return false;
    }
    if (options.initPlugins && !initLibNvInferPlugins(&logger, ""))
    {
        error = "kilnexec: initLibNvInferPlugins failed (see the messages above)";
        return false;
    }
    for (std::string const& path : options.staticPlugins)
    {
        // Kept loaded for the whole process, as trtexec does; static initializers register their creators now.
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (handle == nullptr)
        {
            char const* why = dlerror();
            error = "kilnexec: cannot load --staticPlugins library '" + path + "': " + (why != nullptr ? why : "?");
            return false;
        }
        bool const hasEntryPoints = dlsym(handle, "getCreators") != nullptr || dlsym(handle, "getPluginCreators") != nullptr;
        if (hasEntryPoints && registry->loadLibrary(path.c_str()) == nullptr)
        {
            error = "kilnexec: IPluginRegistry::loadLibrary refused --staticPlugins library '" + path
                + "' (see the messages above)";
            return false;
        }
    }
    for (std::string const& path : options.dynamicPlugins)
    {
        if (registry->loadLibrary(path.c_str()) == nullptr)
        {
            error = "kilnexec: IPluginRegistry::loadLibrary could not load --dynamicPlugins library '" + path
                + "' (see the messages above)";
            return false;
        }
    }
    return true;
}

} // namespace kilnexec
