// PluginResourceStore: see pluginResources.h.
#include "plugin/pluginResources.h"

#include "core/quoting.h"
#include "plugin/pluginRegistry.h"
#include "plugin/registryCall.h"

namespace kiln
{
using namespace nvinfer1;

namespace
{

// IPluginResource's methods are declared noexcept, but a library compiled against other headers may still throw
// through them; calling through member pointers without noexcept keeps a landing pad at every call site.
using ResourceCloneFn = IPluginResource* (IPluginResource::*)();
using ResourceReleaseFn = int32_t (IPluginResource::*)();
ResourceCloneFn const kResourceClone = &IPluginResource::clone;
ResourceReleaseFn const kResourceRelease = &IPluginResource::release;

//! Release and delete a resource clone owned by the registry; returns release()'s result (-1 if it threw).
int32_t destroyResource(IPluginResource* object, std::string const& key, Status& failure)
{
    int32_t result = 0;
    Status st = callUserCode("IPluginResource::release() of resource " + singleQuoted(key),
        [&] { result = (object->*kResourceRelease)(); });
    if (!st.isOk())
    {
        failure = st;
        result = -1;
    }
    else if (result != 0)
    {
        failure = internalError("IPluginResource::release() of resource " + singleQuoted(key) + " returned "
            + std::to_string(result));
    }
    Status del = callUserCode("the destructor of resource " + singleQuoted(key), [&] { delete object; });
    if (!del.isOk() && failure.isOk())
    {
        failure = del;
        result = -1;
    }
    return result;
}

} // namespace

StatusOr<IPluginResource*> PluginResourceStore::acquire(char const* key, IPluginResource* resource)
{
    KILN_CHECK_ARG(key != nullptr, "IPluginRegistry::acquirePluginResource: the key is null");
    KILN_CHECK_ARG(resource != nullptr, std::string("IPluginRegistry::acquirePluginResource(") + singleQuoted(key)
        + "): the resource is null");
    std::string const name = key;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (auto it = mResources.find(name); it != mResources.end())
        {
            ++it->second.references;
            mOwner.logVerbose("Plugin resource " + singleQuoted(name) + " acquired again ("
                + std::to_string(it->second.references) + " references)");
            return it->second.object;
        }
    }
    // First acquisition: the registry owns a clone, made outside the lock.
    IPluginResource* clone = nullptr;
    KILN_RETURN_IF_ERROR(callUserCode("IPluginResource::clone() of resource " + singleQuoted(name),
        [&] { clone = (resource->*kResourceClone)(); }));
    if (clone == nullptr)
    {
        return internalError("IPluginRegistry::acquirePluginResource(" + singleQuoted(name)
            + "): IPluginResource::clone() returned nullptr");
    }
    IPluginResource* registered = nullptr;
    {
        std::lock_guard<std::mutex> lock(mMutex);
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
        mOwner.reportError(failure);
    }
    else
    {
        mOwner.logVerbose(
            "Plugin resource " + singleQuoted(name) + " registered in " + mOwner.label() + " (1 reference)");
    }
    return registered;
}

StatusOr<int32_t> PluginResourceStore::release(char const* key)
{
    KILN_CHECK_ARG(key != nullptr, "IPluginRegistry::releasePluginResource: the key is null");
    std::string const name = key;
    IPluginResource* last = nullptr;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        auto it = mResources.find(name);
        if (it == mResources.end())
        {
            return invalidArgument("IPluginRegistry::releasePluginResource: no resource is registered under key "
                + singleQuoted(name) + " in " + mOwner.label());
        }
        if (--it->second.references > 0)
        {
            mOwner.logVerbose("Plugin resource " + singleQuoted(name) + " released ("
                + std::to_string(it->second.references) + " references left)");
            return int32_t{0};
        }
        last = it->second.object;
        mResources.erase(it);
    }
    Status failure;
    int32_t result = destroyResource(last, name, failure);
    KILN_RETURN_IF_ERROR(failure.withContext("IPluginRegistry::releasePluginResource"));
    mOwner.logVerbose("Plugin resource " + singleQuoted(name) + " released and deleted (no references left)");
    return result;
}

void PluginResourceStore::releaseAll() noexcept
{
    std::map<std::string, Resource> resources;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        resources.swap(mResources);
    }
    for (auto& [key, resource] : resources)
    {
        try
        {
            mOwner.logVerbose("Releasing plugin resource " + singleQuoted(key) + " still held by " + mOwner.label()
                + " (" + std::to_string(resource.references) + " reference(s) left)");
            Status failure;
            destroyResource(resource.object, key, failure);
            mOwner.reportError(failure);
        }
        catch (...)
        {
        }
    }
}

} // namespace kiln
