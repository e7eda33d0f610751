// PluginRegistry implementation: construction and logging, creator registration and deregistration, the error
// recorder, the registry's side of plugin libraries (which creators a library registers, which libraries are
// loaded), the IPluginRegistry entry points of shared resources and the process-wide registry objects. Lookups are
// in pluginRegistryLookup.cpp; reading creator keys, opening libraries and storing resources live in
// pluginCreatorKey, pluginLibraryLoader and pluginResources.
#include "plugin/pluginRegistry.h"

#include "core/apiGuard.h"
#include "core/quoting.h"
#include "plugin/pluginLibraryLoader.h"
#include "plugin/registryCall.h"
#include "core/runtimeTypeInfo.h"

#include <sstream>
#include <utility>

namespace kiln
{
using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

std::atomic<ILogger*> gRegistryLogger{nullptr};

// IPluginCreator::setPluginNamespace() is declared noexcept, but a library compiled against other headers may
// still throw through it; calling through a member pointer without noexcept keeps a landing pad at the call site.
using V1SetNamespaceFn = void (IPluginCreator::*)(AsciiChar const*);
V1SetNamespaceFn const kV1SetNamespace = &IPluginCreator::setPluginNamespace;

std::string pointerText(void const* p)
{
    std::ostringstream os;
    os << p;
    return os.str();
}

//! A copy of `text` that lives as long as the process (namespaces handed to IPluginCreator::setPluginNamespace()).
char const* internedString(std::string const& text)
{
    static std::mutex* const mutex = new std::mutex();
    static std::set<std::string>* const strings = new std::set<std::string>();
    std::lock_guard<std::mutex> lock(*mutex);
    return strings->insert(text).first->c_str();
}

} // namespace

// ---------------------------------------------------------------------------------------------------------------
// Construction, logging
// ---------------------------------------------------------------------------------------------------------------

PluginRegistry::PluginRegistry(IPluginRegistry* parent, ILogger* logger, std::string label)
    : mParent(parent)
    , mOwnerLogger(logger)
    , mLabel(std::move(label))
{
}

PluginRegistry::~PluginRegistry() noexcept
{
    // Libraries stay loaded: plugins they created may outlive this registry (an engine built by a builder outlives
    // the builder), and unmapping their code would crash them. Only the registry's own references are dropped.
    mResources.releaseAll();
    if (IErrorRecorder* recorder = mRecorder.exchange(nullptr))
    {
        try
        {
            recorder->decRefCount();
        }
        catch (...)
        {
        }
    }
}

ILogger* PluginRegistry::logger() const noexcept
{
    return mOwnerLogger != nullptr ? mOwnerLogger : gRegistryLogger.load();
}

void PluginRegistry::reportError(Status const& status) const noexcept
{
    if (status.isOk())
    {
        return;
    }
    try
    {
        Logger(logger()).report(status, mRecorder.load());
    }
    catch (...)
    {
    }
}

void PluginRegistry::logVerbose(std::string const& message) const noexcept
{
    try
    {
        Logger(logger()).verbose(message);
    }
    catch (...)
    {
    }
}

void PluginRegistry::logWarning(std::string const& message) const noexcept
{
    try
    {
        Logger(logger()).warning(message);
    }
    catch (...)
    {
    }
}

bool PluginRegistry::creatorKindOf(IPluginCreatorInterface const& creator, CreatorKind& kind) noexcept
{
    try
    {
        return classifyCreator(creator, kind).isOk();
    }
    catch (...)
    {
        return false;
    }
}

Status PluginRegistry::readCreatorKey(IPluginCreatorInterface& creator, CreatorKind& kind, std::string& name,
    std::string& version, std::string& nspace) noexcept
{
    try
    {
        return loadCreatorKey(creator, kind, name, version, nspace);
    }
    catch (...)
    {
        return failedAllocation("reading a plugin creator's name, version and namespace: out of memory");
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------------------------------------------

bool PluginRegistry::registerCreator(IPluginCreator& creator, AsciiChar const* const pluginNamespace) noexcept
{
    return registerCreator(static_cast<IPluginCreatorInterface&>(creator), pluginNamespace);
}

bool PluginRegistry::registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const pluginNamespace) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), false, [&]() -> Status {
        return registerOne(creator, pluginNamespace).withContext("IPluginRegistry::registerCreator");
    });
}

Status PluginRegistry::registerOne(IPluginCreatorInterface& creator, char const* pluginNamespace)
{
    std::string argNamespace;
    KILN_RETURN_IF_ERROR(takeCreatorString(pluginNamespace == nullptr ? "" : pluginNamespace, "namespace argument", true,
        argNamespace));

    Entry entry;
    entry.creator = &creator;
    std::string ownNamespace;
    KILN_RETURN_IF_ERROR(loadCreatorKey(creator, entry.kind, entry.name, entry.version, ownNamespace));

    if (entry.kind == CreatorKind::kV1)
    {
        // As in TensorRT, the namespace argument becomes the creator's namespace (setPluginNamespace below).
        entry.nspace = argNamespace;
    }
    else if (!argNamespace.empty())
    {
        // V3 creators cannot be given a namespace; the argument keys the registration. Plugins created by this
        // creator report the creator's own namespace, so a mismatch breaks lookups by the plugin's namespace.
        if (!ownNamespace.empty() && ownNamespace != argNamespace)
        {
            logWarning("IPluginRegistry::registerCreator: " + std::string(creatorKindName(entry.kind)) + " for "
                + describeKey(entry.name, entry.version, ownNamespace) + " is registered under namespace "
                + singleQuoted(argNamespace) + " as requested, but getPluginNamespace() returns " + singleQuoted(ownNamespace)
                + "; engines that look the plugin up by its own namespace will not find this creator");
        }
        entry.nspace = argNamespace;
    }
    else
    {
        // REGISTER_TENSORRT_PLUGIN passes "": a V3 creator then keeps the namespace it reports itself.
        entry.nspace = ownNamespace;
    }

    if (entry.kind == CreatorKind::kV1)
    {
        // Apply the namespace only if the key is free, so that a rejected creator is left untouched; a clash is
        // reported by insertEntries() below.
        bool taken = false;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            for (Entry const& e : mEntries)
            {
                taken = taken || (e.name == entry.name && e.version == entry.version && e.nspace == entry.nspace);
            }
        }
        if (!taken)
        {
            auto& v1 = static_cast<IPluginCreator&>(creator);
            // Creators may keep the pointer instead of copying the string, so it must stay valid for good.
            char const* const ns = internedString(entry.nspace);
            KILN_RETURN_IF_ERROR(callUserCode("IPluginCreator::setPluginNamespace() of plugin " + singleQuoted(entry.name),
                [&] { (v1.*kV1SetNamespace)(ns); }));
            Status inserted = insertEntries({entry}, nullptr, {});
            if (!inserted.isOk() && entry.nspace != ownNamespace)
            {
                // Another thread registered the key in between: give the rejected creator its namespace back.
                char const* const own = internedString(ownNamespace);
                (void) callUserCode("IPluginCreator::setPluginNamespace() of plugin " + singleQuoted(entry.name),
                    [&] { (v1.*kV1SetNamespace)(own); });
            }
            return inserted;
        }
    }
    return insertEntries({entry}, nullptr, {});
}

Status PluginRegistry::insertEntries(std::vector<Entry> entries, void* library, Library const& info)
{
    std::string const& path = info.path;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (library != nullptr && mLibraries.count(library) != 0)
        {
            return invalidArgument("library " + singleQuoted(path) + " is already loaded into " + mLabel
                + " (as " + singleQuoted(mLibraries.at(library).path) + "); its plugins are already registered");
        }
        std::vector<std::string> clashes;
        for (size_t i = 0; i < entries.size(); ++i)
        {
            Entry const& entry = entries[i];
            for (Entry const& e : mEntries)
            {
                if (e.name == entry.name && e.version == entry.version && e.nspace == entry.nspace)
                {
                    clashes.push_back(describeKey(entry.name, entry.version, entry.nspace) + " (already registered by "
                        + std::string(creatorKindName(e.kind)) + " at " + pointerText(e.creator)
                        + (e.creator == entry.creator ? ", the same object" : "") + ")");
                }
            }
            for (size_t j = 0; j < i; ++j)
            {
                if (entries[j].name == entry.name && entries[j].version == entry.version
                    && entries[j].nspace == entry.nspace)
                {
                    clashes.push_back(describeKey(entry.name, entry.version, entry.nspace)
                        + " (offered twice by the same library)");
                }
            }
        }
        if (!clashes.empty())
        {
            std::string message;
            if (library != nullptr)
            {
                message = "none of the " + std::to_string(entries.size()) + " creator(s) of library " + singleQuoted(path)
                    + " were registered in " + mLabel + " because some are already registered: ";
            }
            else
            {
                message = "cannot register " + std::string(creatorKindName(entries.front().kind)) + " in " + mLabel
                    + ": a creator with the same name, version and namespace is already registered: ";
            }
            for (size_t i = 0; i < clashes.size(); ++i)
            {
                message += (i == 0 ? "" : "; ") + clashes[i];
            }
            message += ". Deregister the existing creator first or register under another namespace.";
            return invalidArgument(message);
        }
        for (Entry& entry : entries)
        {
            entry.library = library;
            mEntries.push_back(entry);
        }
        if (library != nullptr)
        {
            mLibraries.emplace(library, info);
        }
        rebuildListsLocked();
    }
    for (Entry const& entry : entries)
    {
        logVerbose("Registered " + std::string(creatorKindName(entry.kind)) + " for "
            + describeKey(entry.name, entry.version, entry.nspace) + " in " + mLabel
            + (library != nullptr ? " from library " + singleQuoted(path) : std::string()));
    }
    return Status::ok();
}

void PluginRegistry::rebuildListsLocked()
{
    mAllCreators.clear();
    mV1Creators.clear();
    for (Entry const& e : mEntries)
    {
        mAllCreators.push_back(e.creator);
        if (e.kind == CreatorKind::kV1)
        {
            mV1Creators.push_back(static_cast<IPluginCreator*>(e.creator));
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Deregistration
// ---------------------------------------------------------------------------------------------------------------

bool PluginRegistry::deregisterCreator(IPluginCreator const& creator) noexcept
{
    return deregisterCreator(static_cast<IPluginCreatorInterface const&>(creator));
}

bool PluginRegistry::deregisterCreator(IPluginCreatorInterface const& creator) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), false,
        [&]() -> Status { return removeCreator(&creator).withContext("IPluginRegistry::deregisterCreator"); });
}

Status PluginRegistry::removeCreator(IPluginCreatorInterface const* creator)
{
    std::vector<Entry> removed;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (auto it = mEntries.begin(); it != mEntries.end();)
        {
            if (it->creator == creator)
            {
                removed.push_back(*it);
                it = mEntries.erase(it);
            }
            else
            {
                ++it;
            }
        }
        if (!removed.empty())
        {
            rebuildListsLocked();
        }
    }
    if (removed.empty())
    {
        return invalidArgument("the creator at " + pointerText(creator) + " is not registered in " + mLabel);
    }
    for (Entry const& e : removed)
    {
        logVerbose("Deregistered " + std::string(creatorKindName(e.kind)) + " for "
            + describeKey(e.name, e.version, e.nspace) + " from " + mLabel);
    }
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------------------------
// Error recorder, parent search
// ---------------------------------------------------------------------------------------------------------------

void PluginRegistry::setErrorRecorder(IErrorRecorder* const recorder) noexcept
{
    try
    {
        if (recorder != nullptr)
        {
            recorder->incRefCount();
        }
        IErrorRecorder* previous = mRecorder.exchange(recorder);
        if (previous != nullptr)
        {
            previous->decRefCount();
        }
    }
    catch (...)
    {
        reportError(internalError("IPluginRegistry::setErrorRecorder: the error recorder threw an exception"));
    }
}

IErrorRecorder* PluginRegistry::getErrorRecorder() const noexcept
{
    return mRecorder.load();
}

bool PluginRegistry::isParentSearchEnabled() const noexcept
{
    return mParentSearch.load();
}

void PluginRegistry::setParentSearchEnabled(bool const enabled) noexcept
{
    mParentSearch.store(enabled);
    logVerbose(std::string("Parent search ") + (enabled ? "enabled" : "disabled") + " for " + mLabel);
}

// ---------------------------------------------------------------------------------------------------------------
// Plugin libraries
// ---------------------------------------------------------------------------------------------------------------

IPluginRegistry::PluginLibraryHandle PluginRegistry::loadLibrary(AsciiChar const* pluginPath) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<void*>(nullptr), [&]() -> StatusOr<void*> {
        if (pluginPath == nullptr || *pluginPath == '\0')
        {
            return invalidArgument("IPluginRegistry::loadLibrary: the library path is null or empty");
        }
        std::string const path = pluginPath;
        return loadLibraryFrom(path, path, libraryBaseName(path));
    });
}

StatusOr<IPluginRegistry::PluginLibraryHandle> PluginRegistry::loadLibraryFrom(
    std::string const& path, std::string const& displayName, std::string const& fileName)
{
    std::string const context = "IPluginRegistry::loadLibrary(" + singleQuoted(displayName) + ")";
    Library const info{displayName, libraryBaseName(fileName)};
    KILN_ASSIGN_OR_RETURN(void* const handle, openPluginLibrary(path, context));
    // From here on every failure unloads the library again.
    auto fail = [&](Status const& status) -> StatusOr<void*> {
        (void) closePluginLibrary(handle, displayName);
        return status.withContext(context);
    };
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (auto it = mLibraries.find(handle); it != mLibraries.end())
        {
            return fail(invalidArgument("the library is already loaded into " + mLabel + " (as "
                + singleQuoted(it->second.path) + "), so its plugins are already registered"));
        }
    }

    // Messages the library logs while it is being loaded go to this registry's logger.
    ScopedPluginLogger scope(logger());
    LibraryCreators library;
    Status st = readLibraryCreators(handle, library);
    if (!st.isOk())
    {
        return fail(st);
    }
    std::vector<Entry> entries;
    for (size_t i = 0; i < library.creators.size(); ++i)
    {
        if (library.creators[i] == nullptr)
        {
            return fail(invalidArgument(
                std::string(library.entryPoint) + " returned a null creator at index " + std::to_string(i)));
        }
        Entry entry;
        entry.creator = library.creators[i];
        // Each creator is registered under the namespace it reports itself ("" if none).
        st = loadCreatorKey(*library.creators[i], entry.kind, entry.name, entry.version, entry.nspace);
        if (!st.isOk())
        {
            return fail(st.withContext("creator " + std::to_string(i)));
        }
        entries.push_back(std::move(entry));
    }
    if (entries.empty())
    {
        logWarning(context + ": " + library.entryPoint
            + " returned no creators; the library is loaded but registers nothing");
    }
    st = insertEntries(std::move(entries), handle, info);
    if (!st.isOk())
    {
        return fail(st);
    }
    logVerbose("Loaded plugin library " + singleQuoted(displayName) + " into " + mLabel + " ("
        + std::to_string(library.count) + " creator(s) from " + library.entryPoint + ")");
    return handle;
}

std::string PluginRegistry::findLibrary(std::string const& fileName) const
{
    std::string const wanted = libraryBaseName(fileName);
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (auto const& [handle, library] : mLibraries)
        {
            if (library.fileName == wanted)
            {
                return mLabel;
            }
        }
    }
    if (mParentSearch.load() && mParent != nullptr)
    {
        if (auto const* kilnParent = safeDynamicCast<PluginRegistry const>(mParent))
        {
            return kilnParent->findLibrary(wanted);
        }
    }
    return {};
}

void PluginRegistry::deregisterLibrary(PluginLibraryHandle handle) noexcept
{
    apiGuard(Logger(logger()), mRecorder.load(), false, [&]() -> Status {
        KILN_CHECK_ARG(handle != nullptr, "IPluginRegistry::deregisterLibrary: the handle is null");
        std::string path;
        std::vector<Entry> removed;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            auto it = mLibraries.find(handle);
            if (it == mLibraries.end())
            {
                return invalidArgument("IPluginRegistry::deregisterLibrary: " + pointerText(handle)
                    + " is not a handle returned by loadLibrary() of " + mLabel + " (or it was deregistered already)");
            }
            path = it->second.path;
            mLibraries.erase(it);
            for (auto e = mEntries.begin(); e != mEntries.end();)
            {
                if (e->library == handle)
                {
                    removed.push_back(*e);
                    e = mEntries.erase(e);
                }
                else
                {
                    ++e;
                }
            }
            rebuildListsLocked();
        }
        for (Entry const& e : removed)
        {
            logVerbose("Deregistered " + std::string(creatorKindName(e.kind)) + " for "
                + describeKey(e.name, e.version, e.nspace) + " from " + mLabel + " (library " + singleQuoted(path) + ")");
        }
        KILN_RETURN_IF_ERROR(closePluginLibrary(handle, path).withContext("IPluginRegistry::deregisterLibrary"));
        logVerbose("Unloaded plugin library " + singleQuoted(path) + " from " + mLabel);
        return Status::ok();
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Shared plugin resources
// ---------------------------------------------------------------------------------------------------------------

IPluginResource* PluginRegistry::acquirePluginResource(AsciiChar const* key, IPluginResource* resource) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginResource*>(nullptr),
        [&]() -> StatusOr<IPluginResource*> { return mResources.acquire(key, resource); });
}

int32_t PluginRegistry::releasePluginResource(AsciiChar const* key) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), int32_t{-1},
        [&]() -> StatusOr<int32_t> { return mResources.release(key); });
}

KILN_IGNORE_DEPRECATED_END

// ---------------------------------------------------------------------------------------------------------------
// Process-wide objects
// ---------------------------------------------------------------------------------------------------------------

void setRegistryLogger(ILogger* logger) noexcept
{
    gRegistryLogger.store(logger);
}

void unsetRegistryLogger(ILogger* logger) noexcept
{
    gRegistryLogger.compare_exchange_strong(logger, nullptr);
}

ILogger* registryLogger() noexcept
{
    return gRegistryLogger.load();
}

PluginRegistry& globalPluginRegistry() noexcept
{
    // Deliberately leaked: plugin libraries deregister creators from their own static destructors, which may run
    // after Kiln's; a registry destroyed at exit would make those calls crash.
    static PluginRegistry* const registry = new PluginRegistry(nullptr, nullptr, "the global plugin registry");
    return *registry;
}

std::unique_ptr<PluginRegistry> createLocalRegistry(IPluginRegistry* parent, ILogger* logger, std::string label)
{
    return std::make_unique<PluginRegistry>(parent, logger, std::move(label));
}

} // namespace kiln
