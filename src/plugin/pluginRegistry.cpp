// PluginRegistry implementation: creator registration and lookup (with parent fallback), shared plugin resources,
// and plugin libraries loaded with dlopen.
#include "plugin/pluginRegistry.h"

#include "api/apiGuard.h"
#include "impl/NvInferPythonPlugin.h"

#include <dlfcn.h>

#include <cstring>
#include <exception>
#include <sstream>
#include <utility>

namespace kiln
{
using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

//! TensorRT limits names, versions and namespaces to 1024 bytes including the terminator.
constexpr size_t kMAX_STRING_LENGTH = 1023;

std::atomic<ILogger*> gRegistryLogger{nullptr};
thread_local ILogger* tPluginLogger = nullptr;

std::mutex gInternalPathMutex;
std::string gInternalLibraryPath;

// Creator and resource methods are declared noexcept, but a library compiled against other headers (or a
// look-alike class) may still throw through them. Calling through member pointers without noexcept keeps a
// landing pad at every call site, so such an exception is caught and reported instead of terminating.
using GetInterfaceInfoFn = InterfaceInfo (IVersionedInterface::*)() const;
using V1StringFn = AsciiChar const* (IPluginCreator::*)() const;
using V1SetNamespaceFn = void (IPluginCreator::*)(AsciiChar const*);
using V3OneStringFn = AsciiChar const* (IPluginCreatorV3One::*)() const;
using V3QuickStringFn = AsciiChar const* (IPluginCreatorV3Quick::*)() const;
using ResourceCloneFn = IPluginResource* (IPluginResource::*)();
using ResourceReleaseFn = int32_t (IPluginResource::*)();

GetInterfaceInfoFn const kGetInterfaceInfo = &IVersionedInterface::getInterfaceInfo;
V1StringFn const kV1Name = &IPluginCreator::getPluginName;
V1StringFn const kV1Version = &IPluginCreator::getPluginVersion;
V1StringFn const kV1Namespace = &IPluginCreator::getPluginNamespace;
V1SetNamespaceFn const kV1SetNamespace = &IPluginCreator::setPluginNamespace;
V3OneStringFn const kV3OneName = &IPluginCreatorV3One::getPluginName;
V3OneStringFn const kV3OneVersion = &IPluginCreatorV3One::getPluginVersion;
V3OneStringFn const kV3OneNamespace = &IPluginCreatorV3One::getPluginNamespace;
V3QuickStringFn const kV3QuickName = &IPluginCreatorV3Quick::getPluginName;
V3QuickStringFn const kV3QuickVersion = &IPluginCreatorV3Quick::getPluginVersion;
V3QuickStringFn const kV3QuickNamespace = &IPluginCreatorV3Quick::getPluginNamespace;
ResourceCloneFn const kResourceClone = &IPluginResource::clone;
ResourceReleaseFn const kResourceRelease = &IPluginResource::release;

// Entry points of plugin libraries (see IPluginRegistry::loadLibrary).
using SetLoggerFinderFn = void (*)(ILoggerFinder*);
using GetCreatorsFn = IPluginCreatorInterface* const* (*) (int32_t&);
using GetPluginCreatorsFn = IPluginCreator* const* (*) (int32_t&);

//! Run `body`, turning anything it throws into an error status that names `what` (the callee).
template <typename F>
Status callUserCode(std::string const& what, F&& body)
{
    try
    {
        body();
        return Status::ok();
    }
    catch (std::exception const& e)
    {
        return internalError(what + " threw an exception: " + e.what());
    }
    catch (...)
    {
        return internalError(what + " threw a non-standard exception");
    }
}

std::string quote(std::string const& s)
{
    return "'" + s + "'";
}

std::string describeKey(std::string const& name, std::string const& version, std::string const& nspace)
{
    return "plugin " + quote(name) + " version " + quote(version) + " namespace " + quote(nspace);
}

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

//! The last component of a path ("libfoo.so" for "/opt/lib/libfoo.so").
std::string baseName(std::string const& path)
{
    size_t const slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

//! The kind of a creator from its interface info, with a readable error for unknown kinds and versions.
Status classifyCreator(IPluginCreatorInterface const& creator, CreatorKind& kind)
{
    InterfaceInfo info{};
    KILN_RETURN_IF_ERROR(callUserCode("getInterfaceInfo() of the plugin creator",
        [&] { info = (creator.*kGetInterfaceInfo)(); }));
    if (info.kind == nullptr)
    {
        return invalidArgument("the plugin creator's getInterfaceInfo() returned a null kind");
    }
    std::string const text = info.kind;
    if (text == "PLUGIN CREATOR_V1")
    {
        kind = CreatorKind::kV1;
    }
    else if (text == "PLUGIN CREATOR_V3ONE")
    {
        kind = CreatorKind::kV3One;
    }
    else if (text == "PLUGIN CREATOR_V3QUICK")
    {
        kind = CreatorKind::kV3Quick;
    }
    else
    {
        return unsupported("unsupported plugin creator interface " + quote(text)
            + " (expected \"PLUGIN CREATOR_V1\", \"PLUGIN CREATOR_V3ONE\" or \"PLUGIN CREATOR_V3QUICK\")");
    }
    if (info.major != 1)
    {
        return unsupported("unsupported version " + std::to_string(info.major) + "." + std::to_string(info.minor)
            + " of plugin creator interface " + quote(text) + " (Kiln implements version 1)");
    }
    return Status::ok();
}

//! Copy one string returned by a creator, checking it against TensorRT's limits.
Status takeString(char const* value, char const* what, bool allowEmpty, std::string& out)
{
    if (value == nullptr)
    {
        return invalidArgument(std::string("the plugin creator returned a null ") + what);
    }
    size_t const length = std::strlen(value);
    if (length > kMAX_STRING_LENGTH)
    {
        return invalidArgument(std::string("the plugin creator's ") + what + " is " + std::to_string(length)
            + " bytes long; at most " + std::to_string(kMAX_STRING_LENGTH) + " are allowed");
    }
    if (!allowEmpty && length == 0)
    {
        return invalidArgument(std::string("the plugin creator returned an empty ") + what);
    }
    out.assign(value, length);
    return Status::ok();
}

//! Kind, name, version and own namespace of a creator (every call into it guarded).
Status describeCreator(IPluginCreatorInterface& creator, CreatorKind& kind, std::string& name, std::string& version,
    std::string& nspace)
{
    KILN_RETURN_IF_ERROR(classifyCreator(creator, kind));
    char const* n = nullptr;
    char const* v = nullptr;
    char const* ns = nullptr;
    std::string const kindName = creatorKindName(kind);
    switch (kind)
    {
    case CreatorKind::kV1:
    {
        auto& c = static_cast<IPluginCreator&>(creator);
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginName()", [&] { n = (c.*kV1Name)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginVersion()", [&] { v = (c.*kV1Version)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginNamespace()", [&] { ns = (c.*kV1Namespace)(); }));
        break;
    }
    case CreatorKind::kV3One:
    {
        auto& c = static_cast<IPluginCreatorV3One&>(creator);
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginName()", [&] { n = (c.*kV3OneName)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginVersion()", [&] { v = (c.*kV3OneVersion)(); }));
        KILN_RETURN_IF_ERROR(
            callUserCode(kindName + "::getPluginNamespace()", [&] { ns = (c.*kV3OneNamespace)(); }));
        break;
    }
    case CreatorKind::kV3Quick:
    {
        auto& c = static_cast<IPluginCreatorV3Quick&>(creator);
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginName()", [&] { n = (c.*kV3QuickName)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginVersion()", [&] { v = (c.*kV3QuickVersion)(); }));
        KILN_RETURN_IF_ERROR(
            callUserCode(kindName + "::getPluginNamespace()", [&] { ns = (c.*kV3QuickNamespace)(); }));
        break;
    }
    }
    KILN_RETURN_IF_ERROR(takeString(n, "plugin name", false, name));
    KILN_RETURN_IF_ERROR(takeString(v, "plugin version", true, version).withContext("plugin " + quote(name)));
    // A null namespace means "" (as in lookups).
    KILN_RETURN_IF_ERROR(takeString(ns == nullptr ? "" : ns, "plugin namespace", true, nspace)
                             .withContext("plugin " + quote(name)));
    return Status::ok();
}

//! Lookup arguments: name and version are required, a null namespace means "".
Status lookupArguments(char const* api, char const* name, char const* version, char const* nspace, std::string& n,
    std::string& v, std::string& ns)
{
    if (name == nullptr || version == nullptr)
    {
        return invalidArgument(std::string(api) + ": the plugin name and version must not be null");
    }
    n = name;
    v = version;
    ns = nspace == nullptr ? "" : nspace;
    return Status::ok();
}

//! Release and delete a resource clone owned by the registry; returns release()'s result (-1 if it threw).
int32_t destroyResource(IPluginResource* object, std::string const& key, Status& failure)
{
    int32_t result = 0;
    Status st = callUserCode("IPluginResource::release() of resource " + quote(key),
        [&] { result = (object->*kResourceRelease)(); });
    if (!st.isOk())
    {
        failure = st;
        result = -1;
    }
    else if (result != 0)
    {
        failure = internalError("IPluginResource::release() of resource " + quote(key) + " returned "
            + std::to_string(result));
    }
    Status del = callUserCode("the destructor of resource " + quote(key), [&] { delete object; });
    if (!del.isOk() && failure.isOk())
    {
        failure = del;
        result = -1;
    }
    return result;
}

//! Handed to plugin libraries through setLoggerFinder(): the thread's scoped logger, else the registry logger.
class RegistryLoggerFinder final : public ILoggerFinder
{
public:
    ILogger* findLogger() override
    {
        return tPluginLogger != nullptr ? tPluginLogger : gRegistryLogger.load();
    }
};

} // namespace

char const* creatorKindName(CreatorKind kind) noexcept
{
    switch (kind)
    {
    case CreatorKind::kV1: return "IPluginCreator";
    case CreatorKind::kV3One: return "IPluginCreatorV3One";
    case CreatorKind::kV3Quick: return "IPluginCreatorV3Quick";
    }
    return "unknown creator";
}

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
    std::map<std::string, Resource> resources;
    {
        std::lock_guard<std::mutex> lock(mResourceMutex);
        resources.swap(mResources);
    }
    for (auto& [key, resource] : resources)
    {
        try
        {
            logVerbose("Releasing plugin resource " + quote(key) + " still held by " + mLabel + " ("
                + std::to_string(resource.references) + " reference(s) left)");
            Status failure;
            destroyResource(resource.object, key, failure);
            reportError(failure);
        }
        catch (...)
        {
        }
    }
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
        return describeCreator(creator, kind, name, version, nspace);
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
    KILN_RETURN_IF_ERROR(takeString(pluginNamespace == nullptr ? "" : pluginNamespace, "namespace argument", true,
        argNamespace));

    Entry entry;
    entry.creator = &creator;
    std::string ownNamespace;
    KILN_RETURN_IF_ERROR(describeCreator(creator, entry.kind, entry.name, entry.version, ownNamespace));

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
                + quote(argNamespace) + " as requested, but getPluginNamespace() returns " + quote(ownNamespace)
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
            KILN_RETURN_IF_ERROR(callUserCode("IPluginCreator::setPluginNamespace() of plugin " + quote(entry.name),
                [&] { (v1.*kV1SetNamespace)(ns); }));
            Status inserted = insertEntries({entry}, nullptr, {});
            if (!inserted.isOk() && entry.nspace != ownNamespace)
            {
                // Another thread registered the key in between: give the rejected creator its namespace back.
                char const* const own = internedString(ownNamespace);
                (void) callUserCode("IPluginCreator::setPluginNamespace() of plugin " + quote(entry.name),
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
            return invalidArgument("library " + quote(path) + " is already loaded into " + mLabel
                + " (as " + quote(mLibraries.at(library).path) + "); its plugins are already registered");
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
                message = "none of the " + std::to_string(entries.size()) + " creator(s) of library " + quote(path)
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
            + (library != nullptr ? " from library " + quote(path) : std::string()));
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
// Lookup
// ---------------------------------------------------------------------------------------------------------------

PluginRegistry::Found PluginRegistry::findLocal(
    std::string const& name, std::string const& version, std::string const& nspace) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (Entry const& e : mEntries)
    {
        if (e.name == name && e.version == version && e.nspace == nspace)
        {
            return Found{e.creator, e.kind};
        }
    }
    return Found{};
}

PluginRegistry::Found PluginRegistry::find(std::string const& name, std::string const& version, std::string const& nspace)
{
    Found found = findLocal(name, version, nspace);
    if (found.creator != nullptr || !mParentSearch.load() || mParent == nullptr)
    {
        return found;
    }
    if (auto* kilnParent = dynamic_cast<PluginRegistry*>(mParent))
    {
        return kilnParent->find(name, version, nspace);
    }
    // A parent implemented elsewhere: ask it through the interface and classify what it returns.
    IPluginCreatorInterface* creator = mParent->getCreator(name.c_str(), version.c_str(), nspace.c_str());
    CreatorKind kind{};
    if (creator != nullptr && creatorKindOf(*creator, kind))
    {
        return Found{creator, kind};
    }
    return Found{};
}

void PluginRegistry::describeSameName(std::string const& name, std::vector<std::string>& out) const
{
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (Entry const& e : mEntries)
        {
            if (e.name == name)
            {
                out.push_back("version " + quote(e.version) + " namespace " + quote(e.nspace) + " ("
                    + creatorKindName(e.kind) + ", in " + mLabel + ")");
            }
        }
    }
    if (mParentSearch.load() && mParent != nullptr)
    {
        if (auto const* kilnParent = dynamic_cast<PluginRegistry const*>(mParent))
        {
            kilnParent->describeSameName(name, out);
        }
    }
}

std::vector<PluginRegistry::VisibleCreator> PluginRegistry::visibleCreators() const
{
    std::vector<VisibleCreator> out;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (Entry const& e : mEntries)
        {
            out.push_back(VisibleCreator{e.name, e.version, e.nspace, e.kind, mLabel});
        }
    }
    if (!mParentSearch.load() || mParent == nullptr)
    {
        return out;
    }
    if (auto const* kilnParent = dynamic_cast<PluginRegistry const*>(mParent))
    {
        auto more = kilnParent->visibleCreators();
        out.insert(out.end(), more.begin(), more.end());
        return out;
    }
    // A parent implemented elsewhere: list it through the interface.
    int32_t n = 0;
    IPluginCreatorInterface* const* list = mParent->getAllCreators(&n);
    for (int32_t i = 0; list != nullptr && i < n; ++i)
    {
        VisibleCreator c;
        if (list[i] != nullptr && describeCreator(*list[i], c.kind, c.name, c.version, c.nspace).isOk())
        {
            c.registry = "the parent plugin registry";
            out.push_back(std::move(c));
        }
    }
    return out;
}

std::vector<std::string> PluginRegistry::searchedRegistries() const
{
    std::vector<std::string> out{mLabel};
    if (mParentSearch.load() && mParent != nullptr)
    {
        if (auto const* kilnParent = dynamic_cast<PluginRegistry const*>(mParent))
        {
            auto more = kilnParent->searchedRegistries();
            out.insert(out.end(), more.begin(), more.end());
        }
        else
        {
            out.push_back("the parent plugin registry");
        }
    }
    return out;
}

void PluginRegistry::logMiss(std::string const& name, std::string const& version, std::string const& nspace) const noexcept
{
    try
    {
        if (logger() == nullptr)
        {
            return;
        }
        std::vector<std::string> sameName;
        describeSameName(name, sameName);
        std::string message = "No plugin creator found for " + describeKey(name, version, nspace) + " in " + mLabel
            + (mParent == nullptr ? "" : (mParentSearch.load() ? " or its parent" : " (parent search disabled)"))
            + ". ";
        if (sameName.empty())
        {
            message += "No creator named " + quote(name)
                + " is registered; is its library loaded (loadLibrary, initLibNvInferPlugins or "
                  "REGISTER_TENSORRT_PLUGIN)?";
        }
        else
        {
            message += "Creators named " + quote(name) + " are registered with: ";
            for (size_t i = 0; i < sameName.size(); ++i)
            {
                message += (i == 0 ? "" : "; ") + sameName[i];
            }
            message += ".";
        }
        logVerbose(message);
    }
    catch (...)
    {
    }
}

IPluginCreatorInterface* PluginRegistry::getCreator(
    AsciiChar const* const pluginName, AsciiChar const* const pluginVersion, AsciiChar const* const pluginNamespace) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginCreatorInterface*>(nullptr),
        [&]() -> StatusOr<IPluginCreatorInterface*> {
            std::string name, version, nspace;
            KILN_RETURN_IF_ERROR(lookupArguments(
                "IPluginRegistry::getCreator", pluginName, pluginVersion, pluginNamespace, name, version, nspace));
            Found found = find(name, version, nspace);
            if (found.creator == nullptr)
            {
                logMiss(name, version, nspace);
            }
            return found.creator;
        });
}

IPluginCreator* PluginRegistry::getPluginCreator(
    AsciiChar const* const pluginName, AsciiChar const* const pluginVersion, AsciiChar const* const pluginNamespace) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginCreator*>(nullptr),
        [&]() -> StatusOr<IPluginCreator*> {
            std::string name, version, nspace;
            KILN_RETURN_IF_ERROR(lookupArguments("IPluginRegistry::getPluginCreator", pluginName, pluginVersion,
                pluginNamespace, name, version, nspace));
            Found found = find(name, version, nspace);
            if (found.creator == nullptr)
            {
                logMiss(name, version, nspace);
                return static_cast<IPluginCreator*>(nullptr);
            }
            if (found.kind != CreatorKind::kV1)
            {
                logVerbose("getPluginCreator: " + describeKey(name, version, nspace) + " is served by an "
                    + creatorKindName(found.kind)
                    + ", which the deprecated getPluginCreator() does not return; use getCreator() instead");
                return static_cast<IPluginCreator*>(nullptr);
            }
            return static_cast<IPluginCreator*>(found.creator);
        });
}

IPluginCreator* const* PluginRegistry::getPluginCreatorList(int32_t* const numCreators) const noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginCreator* const*>(nullptr),
        [&]() -> StatusOr<IPluginCreator* const*> {
            KILN_CHECK_ARG(numCreators != nullptr, "IPluginRegistry::getPluginCreatorList: numCreators is null");
            std::lock_guard<std::mutex> lock(mMutex);
            *numCreators = static_cast<int32_t>(mV1Creators.size());
            return mV1Creators.empty() ? nullptr : mV1Creators.data();
        });
}

IPluginCreatorInterface* const* PluginRegistry::getAllCreators(int32_t* const numCreators) const noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginCreatorInterface* const*>(nullptr),
        [&]() -> StatusOr<IPluginCreatorInterface* const*> {
            KILN_CHECK_ARG(numCreators != nullptr, "IPluginRegistry::getAllCreators: numCreators is null");
            std::lock_guard<std::mutex> lock(mMutex);
            *numCreators = static_cast<int32_t>(mAllCreators.size());
            return mAllCreators.empty() ? nullptr : mAllCreators.data();
        });
}

void PluginRegistry::collectAll(std::vector<IPluginCreatorInterface*>& out, std::set<Key>& seen)
{
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (Entry const& e : mEntries)
        {
            // A creator here shadows one with the same key further up, as it does for lookups.
            if (seen.insert(Key{e.name, e.version, e.nspace}).second)
            {
                out.push_back(e.creator);
            }
        }
    }
    if (!mParentSearch.load() || mParent == nullptr)
    {
        return;
    }
    if (auto* kilnParent = dynamic_cast<PluginRegistry*>(mParent))
    {
        kilnParent->collectAll(out, seen);
        return;
    }
    int32_t count = 0;
    IPluginCreatorInterface* const* creators = mParent->getAllCreatorsRecursive(&count);
    for (int32_t i = 0; creators != nullptr && i < count; ++i)
    {
        if (creators[i] == nullptr)
        {
            continue;
        }
        CreatorKind kind{};
        std::string name, version, nspace;
        if (describeCreator(*creators[i], kind, name, version, nspace).isOk()
            && !seen.insert(Key{name, version, nspace}).second)
        {
            continue;
        }
        out.push_back(creators[i]);
    }
}

IPluginCreatorInterface* const* PluginRegistry::getAllCreatorsRecursive(int32_t* const numCreators) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginCreatorInterface* const*>(nullptr),
        [&]() -> StatusOr<IPluginCreatorInterface* const*> {
            KILN_CHECK_ARG(numCreators != nullptr, "IPluginRegistry::getAllCreatorsRecursive: numCreators is null");
            std::vector<IPluginCreatorInterface*> all;
            std::set<Key> seen;
            collectAll(all, seen);
            std::lock_guard<std::mutex> lock(mMutex);
            mRecursiveCreators = std::move(all);
            *numCreators = static_cast<int32_t>(mRecursiveCreators.size());
            return mRecursiveCreators.empty() ? nullptr : mRecursiveCreators.data();
        });
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
        return loadLibraryFrom(path, path, baseName(path));
    });
}

StatusOr<IPluginRegistry::PluginLibraryHandle> PluginRegistry::loadLibraryFrom(
    std::string const& path, std::string const& displayName, std::string const& fileName)
{
    std::string const context = "IPluginRegistry::loadLibrary(" + quote(displayName) + ")";
    Library const info{displayName, baseName(fileName)};

    dlerror(); // clear any stale message (dlerror() state is per thread)
    void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr)
    {
        char const* why = dlerror();
        return invalidArgument(context + ": dlopen failed: " + (why != nullptr ? why : "unknown error"));
    }
    // From here on every failure unloads the library again.
    auto fail = [&](Status const& status) -> StatusOr<void*> {
        dlclose(handle);
        return status.withContext(context);
    };
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (auto it = mLibraries.find(handle); it != mLibraries.end())
        {
            return fail(invalidArgument("the library is already loaded into " + mLabel + " (as "
                + quote(it->second.path) + "), so its plugins are already registered"));
        }
    }

    // Messages the library logs while it is being loaded go to this registry's logger.
    ScopedPluginLogger scope(logger());
    if (auto setFinder = reinterpret_cast<SetLoggerFinderFn>(dlsym(handle, "setLoggerFinder")))
    {
        Status st = callUserCode("setLoggerFinder()", [&] { setFinder(&pluginLoggerFinder()); });
        if (!st.isOk())
        {
            return fail(st);
        }
    }

    std::vector<IPluginCreatorInterface*> creators;
    int32_t count = 0;
    char const* entryPoint = nullptr;
    if (auto getCreators = reinterpret_cast<GetCreatorsFn>(dlsym(handle, "getCreators")))
    {
        entryPoint = "getCreators()";
        IPluginCreatorInterface* const* list = nullptr;
        Status st = callUserCode(entryPoint, [&] { list = getCreators(count); });
        if (!st.isOk())
        {
            return fail(st);
        }
        for (int32_t i = 0; list != nullptr && i < count; ++i)
        {
            creators.push_back(list[i]);
        }
        if (count > 0 && list == nullptr)
        {
            return fail(invalidArgument(
                "getCreators() returned a null array for " + std::to_string(count) + " creator(s)"));
        }
    }
    else if (auto getPluginCreators = reinterpret_cast<GetPluginCreatorsFn>(dlsym(handle, "getPluginCreators")))
    {
        entryPoint = "getPluginCreators()";
        IPluginCreator* const* list = nullptr;
        Status st = callUserCode(entryPoint, [&] { list = getPluginCreators(count); });
        if (!st.isOk())
        {
            return fail(st);
        }
        for (int32_t i = 0; list != nullptr && i < count; ++i)
        {
            creators.push_back(list[i]);
        }
        if (count > 0 && list == nullptr)
        {
            return fail(invalidArgument(
                "getPluginCreators() returned a null array for " + std::to_string(count) + " creator(s)"));
        }
    }
    else
    {
        return fail(invalidArgument(
            "the library exports neither getCreators() nor getPluginCreators(); a plugin library "
            "loaded at run time must export extern \"C\" IPluginCreatorInterface* const* "
            "getCreators(int32_t& nbCreators)"));
    }
    if (count < 0)
    {
        return fail(invalidArgument(
            std::string(entryPoint) + " returned a negative creator count (" + std::to_string(count) + ")"));
    }

    std::vector<Entry> entries;
    for (size_t i = 0; i < creators.size(); ++i)
    {
        if (creators[i] == nullptr)
        {
            return fail(invalidArgument(
                std::string(entryPoint) + " returned a null creator at index " + std::to_string(i)));
        }
        Entry entry;
        entry.creator = creators[i];
        // Each creator is registered under the namespace it reports itself ("" if none).
        Status st = describeCreator(*creators[i], entry.kind, entry.name, entry.version, entry.nspace);
        if (!st.isOk())
        {
            return fail(st.withContext("creator " + std::to_string(i)));
        }
        entries.push_back(std::move(entry));
    }
    if (entries.empty())
    {
        logWarning(context + ": " + entryPoint + " returned no creators; the library is loaded but registers nothing");
    }
    Status st = insertEntries(std::move(entries), handle, info);
    if (!st.isOk())
    {
        return fail(st);
    }
    logVerbose("Loaded plugin library " + quote(displayName) + " into " + mLabel + " (" + std::to_string(count)
        + " creator(s) from " + entryPoint + ")");
    return handle;
}

std::string PluginRegistry::findLibrary(std::string const& fileName) const
{
    std::string const wanted = baseName(fileName);
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
        if (auto const* kilnParent = dynamic_cast<PluginRegistry const*>(mParent))
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
                + describeKey(e.name, e.version, e.nspace) + " from " + mLabel + " (library " + quote(path) + ")");
        }
        dlerror();
        if (dlclose(handle) != 0)
        {
            char const* why = dlerror();
            return internalError("IPluginRegistry::deregisterLibrary: dlclose(" + quote(path)
                + ") failed: " + (why != nullptr ? why : "unknown error"));
        }
        logVerbose("Unloaded plugin library " + quote(path) + " from " + mLabel);
        return Status::ok();
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Shared plugin resources
// ---------------------------------------------------------------------------------------------------------------

IPluginResource* PluginRegistry::acquirePluginResource(AsciiChar const* key, IPluginResource* resource) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), static_cast<IPluginResource*>(nullptr),
        [&]() -> StatusOr<IPluginResource*> {
            KILN_CHECK_ARG(key != nullptr, "IPluginRegistry::acquirePluginResource: the key is null");
            KILN_CHECK_ARG(resource != nullptr, std::string("IPluginRegistry::acquirePluginResource(")
                + quote(key) + "): the resource is null");
            std::string const name = key;
            {
                std::lock_guard<std::mutex> lock(mResourceMutex);
                if (auto it = mResources.find(name); it != mResources.end())
                {
                    ++it->second.references;
                    logVerbose("Plugin resource " + quote(name) + " acquired again ("
                        + std::to_string(it->second.references) + " references)");
                    return it->second.object;
                }
            }
            // First acquisition: the registry owns a clone, made outside the lock.
            IPluginResource* clone = nullptr;
            KILN_RETURN_IF_ERROR(callUserCode("IPluginResource::clone() of resource " + quote(name),
                [&] { clone = (resource->*kResourceClone)(); }));
            if (clone == nullptr)
            {
                return internalError("IPluginRegistry::acquirePluginResource(" + quote(name)
                    + "): IPluginResource::clone() returned nullptr");
            }
            IPluginResource* registered = nullptr;
            {
                std::lock_guard<std::mutex> lock(mResourceMutex);
                auto [it, inserted] = mResources.try_emplace(name, Resource{clone, 0});
                ++it->second.references;
                registered = it->second.object;
                if (inserted)
                {
                    clone = nullptr;
                }
            }
            if (clone != nullptr)
            {
                // Another thread registered the key while we were cloning: keep theirs, drop ours.
                Status failure;
                destroyResource(clone, name, failure);
                reportError(failure);
            }
            else
            {
                logVerbose("Plugin resource " + quote(name) + " registered in " + mLabel + " (1 reference)");
            }
            return registered;
        });
}

int32_t PluginRegistry::releasePluginResource(AsciiChar const* key) noexcept
{
    return apiGuard(Logger(logger()), mRecorder.load(), int32_t{-1}, [&]() -> StatusOr<int32_t> {
        KILN_CHECK_ARG(key != nullptr, "IPluginRegistry::releasePluginResource: the key is null");
        std::string const name = key;
        IPluginResource* last = nullptr;
        {
            std::lock_guard<std::mutex> lock(mResourceMutex);
            auto it = mResources.find(name);
            if (it == mResources.end())
            {
                return invalidArgument("IPluginRegistry::releasePluginResource: no resource is registered under key "
                    + quote(name) + " in " + mLabel);
            }
            if (--it->second.references > 0)
            {
                logVerbose("Plugin resource " + quote(name) + " released (" + std::to_string(it->second.references)
                    + " references left)");
                return int32_t{0};
            }
            last = it->second.object;
            mResources.erase(it);
        }
        Status failure;
        int32_t result = destroyResource(last, name, failure);
        KILN_RETURN_IF_ERROR(failure.withContext("IPluginRegistry::releasePluginResource"));
        logVerbose("Plugin resource " + quote(name) + " released and deleted (no references left)");
        return result;
    });
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
    // Leaked for the same reason as the global registry: libraries may log from their static destructors.
    static RegistryLoggerFinder* const finder = new RegistryLoggerFinder();
    return *finder;
}

} // namespace kiln
