// Plugin library loading: see pluginLibraryLoader.h.
#include "plugin/pluginLibraryLoader.h"

#include "core/quoting.h"
#include "plugin/pluginRegistry.h"
#include "plugin/registryCall.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

namespace kiln
{
using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

thread_local ILogger* tPluginLogger = nullptr;

std::mutex gInternalPathMutex;
std::string gInternalLibraryPath;

// Entry points of plugin libraries (see IPluginRegistry::loadLibrary).
using SetLoggerFinderFn = void (*)(ILoggerFinder*);
using GetCreatorsFn = IPluginCreatorInterface* const* (*) (int32_t&);
using GetPluginCreatorsFn = IPluginCreator* const* (*) (int32_t&);

//! Call the entry point `getList` (named `entryPoint` in messages) and copy the array it returns into `out`.
template <typename Creator>
Status readCreatorArray(Creator* const* (*getList)(int32_t&), char const* entryPoint, LibraryCreators& out)
{
    out.entryPoint = entryPoint;
    Creator* const* list = nullptr;
    KILN_RETURN_IF_ERROR(callUserCode(entryPoint, [&] { list = getList(out.count); }));
    for (int32_t i = 0; list != nullptr && i < out.count; ++i)
    {
        out.creators.push_back(list[i]);
    }
    if (out.count > 0 && list == nullptr)
    {
        return invalidArgument(std::string(entryPoint) + " returned a null array for " + std::to_string(out.count)
            + " creator(s)");
    }
    return Status::ok();
}

//! Handed to plugin libraries through setLoggerFinder(): the thread's scoped logger, else the registry logger.
class RegistryLoggerFinder final : public ILoggerFinder
{
public:
    ILogger* findLogger() override
    {
        return tPluginLogger != nullptr ? tPluginLogger : registryLogger();
    }
};

} // namespace

StatusOr<void*> openPluginLibrary(std::string const& path, std::string const& context)
{
    dlerror(); // clear any stale message (dlerror() state is per thread)
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr)
    {
        char const* why = dlerror();
        return invalidArgument(context + ": dlopen failed: " + (why != nullptr ? why : "unknown error"));
    }
    return handle;
}

Status readLibraryCreators(void* handle, LibraryCreators& out)
{
    if (auto setFinder = reinterpret_cast<SetLoggerFinderFn>(dlsym(handle, "setLoggerFinder")))
    {
        KILN_RETURN_IF_ERROR(callUserCode("setLoggerFinder()", [&] { setFinder(&pluginLoggerFinder()); }));
    }
    if (auto getCreators = reinterpret_cast<GetCreatorsFn>(dlsym(handle, "getCreators")))
    {
        KILN_RETURN_IF_ERROR(readCreatorArray(getCreators, "getCreators()", out));
    }
    else if (auto getPluginCreators = reinterpret_cast<GetPluginCreatorsFn>(dlsym(handle, "getPluginCreators")))
    {
        KILN_RETURN_IF_ERROR(readCreatorArray(getPluginCreators, "getPluginCreators()", out));
    }
    else
    {
        return invalidArgument(
            "the library exports neither getCreators() nor getPluginCreators(); a plugin library "
            "loaded at run time must export extern \"C\" IPluginCreatorInterface* const* "
            "getCreators(int32_t& nbCreators)");
    }
    if (out.count < 0)
    {
        return invalidArgument(std::string(out.entryPoint) + " returned a negative creator count ("
            + std::to_string(out.count) + ")");
    }
    return Status::ok();
}

Status closePluginLibrary(void* handle, std::string const& path)
{
    dlerror();
    if (dlclose(handle) != 0)
    {
        char const* why = dlerror();
        return internalError(
            "dlclose(" + singleQuoted(path) + ") failed: " + (why != nullptr ? why : "unknown error"));
    }
    return Status::ok();
}

std::string libraryBaseName(std::string const& path)
{
    size_t const slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

ScopedPluginLogger::ScopedPluginLogger(ILogger* logger) noexcept
    : mPrevious(tPluginLogger)
{
    tPluginLogger = logger;
}

ScopedPluginLogger::~ScopedPluginLogger() noexcept
{
    tPluginLogger = mPrevious;
}

ILoggerFinder& pluginLoggerFinder() noexcept
{
    // Leaked, as the global registry is: libraries may log from their static destructors.
    static RegistryLoggerFinder* const finder = new RegistryLoggerFinder();
    return *finder;
}

std::string internalLibraryPath()
{
    std::lock_guard<std::mutex> lock(gInternalPathMutex);
    return gInternalLibraryPath;
}

void setInternalLibraryPathValue(std::string path)
{
    std::lock_guard<std::mutex> lock(gInternalPathMutex);
    gInternalLibraryPath = std::move(path);
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
