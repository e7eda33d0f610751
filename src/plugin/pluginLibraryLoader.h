// Plugin library loading: opening a plugin library with dlopen, handing it the logger finder, reading its creators
// through its entry points (getCreators(), else getPluginCreators()) and closing it again; also the logger that
// plugin libraries find (ScopedPluginLogger, pluginLoggerFinder) and the directory of setInternalLibraryPath().
// The plugin registry (pluginRegistry.h) decides what is registered and keeps track of the loaded libraries.
#pragma once

#include "NvInferRuntime.h"
#include "core/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! What a plugin library's entry point returned. Entries may be null: the registry checks each one.
struct LibraryCreators
{
    std::vector<nvinfer1::IPluginCreatorInterface*> creators;
    int32_t count{0};                //!< the number of creators the entry point reported
    char const* entryPoint{nullptr}; //!< "getCreators()" or "getPluginCreators()"
};

//! dlopen(path, RTLD_LAZY | RTLD_LOCAL). The error starts with `context` and gives dlerror()'s reason.
StatusOr<void*> openPluginLibrary(std::string const& path, std::string const& context);

//! Give an opened library the plugin logger finder (its setLoggerFinder(), when it exports one) and read its
//! creators. Fails when it exports neither getCreators() nor getPluginCreators(), when a call throws, or when the
//! entry point returns a null array for a positive count or a negative count.
Status readLibraryCreators(void* handle, LibraryCreators& out);

//! dlclose(handle). The error names the library by `path` and gives dlerror()'s reason.
Status closePluginLibrary(void* handle, std::string const& path);

//! The last component of a path ("libfoo.so" for "/opt/lib/libfoo.so").
std::string libraryBaseName(std::string const& path);

//!
//! \brief Makes the ILoggerFinder handed to plugin libraries (their setLoggerFinder() entry point) return
//! `logger` on this thread while the scope lives. Outside any scope the finder returns the process-wide registry
//! logger. The registry wraps a library's loading in one so that the library finds the logger of the registry
//! loading it.
//!
class ScopedPluginLogger
{
public:
    explicit ScopedPluginLogger(nvinfer1::ILogger* logger) noexcept;
    ~ScopedPluginLogger() noexcept;
    ScopedPluginLogger(ScopedPluginLogger const&) = delete;
    ScopedPluginLogger& operator=(ScopedPluginLogger const&) = delete;

private:
    nvinfer1::ILogger* mPrevious;
};

//! The finder passed to plugin libraries' setLoggerFinder(); process-wide and never destroyed.
nvinfer1::ILoggerFinder& pluginLoggerFinder() noexcept;

//! The directory given to setInternalLibraryPath() ("" if none).
std::string internalLibraryPath();

//! Store the directory of setInternalLibraryPath().
void setInternalLibraryPathValue(std::string path);

} // namespace kiln
