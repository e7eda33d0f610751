// PluginRegistry lookups: getCreator()/getPluginCreator() with parent fallback, the creator lists (own and
// recursive), and what a lookup can see (visibleCreators, searchedRegistries, the "closest names" message of a
// miss). The rest of the registry is in pluginRegistry.cpp.
#include "plugin/pluginRegistry.h"

#include "core/apiGuard.h"
#include "core/quoting.h"
#include "core/runtimeTypeInfo.h"

namespace kiln
{
using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

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

} // namespace

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
    if (auto* kilnParent = safeDynamicCast<PluginRegistry>(mParent))
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
                out.push_back("version " + singleQuoted(e.version) + " namespace " + singleQuoted(e.nspace) + " ("
                    + creatorKindName(e.kind) + ", in " + mLabel + ")");
            }
        }
    }
    if (mParentSearch.load() && mParent != nullptr)
    {
        if (auto const* kilnParent = safeDynamicCast<PluginRegistry const>(mParent))
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
    if (auto const* kilnParent = safeDynamicCast<PluginRegistry const>(mParent))
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
        if (list[i] != nullptr && loadCreatorKey(*list[i], c.kind, c.name, c.version, c.nspace).isOk())
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
        if (auto const* kilnParent = safeDynamicCast<PluginRegistry const>(mParent))
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
            message += "No creator named " + singleQuoted(name)
                + " is registered; is its library loaded (loadLibrary, initLibNvInferPlugins or "
                  "REGISTER_TENSORRT_PLUGIN)?";
        }
        else
        {
            message += "Creators named " + singleQuoted(name) + " are registered with: ";
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
    if (auto* kilnParent = safeDynamicCast<PluginRegistry>(mParent))
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
        if (loadCreatorKey(*creators[i], kind, name, version, nspace).isOk()
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

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
