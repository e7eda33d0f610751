// PluginResourceStore: the shared plugin resources of one plugin registry (IPluginRegistry::acquirePluginResource /
// releasePluginResource). The first acquisition of a key stores a clone of the caller's resource; later ones share
// it; the last release calls the clone's release() and deletes it.
#pragma once

#include "NvInferRuntime.h"
#include "core/status.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace kiln
{

class PluginRegistry;

//!
//! \brief The resources of one registry, keyed by name, with reference counts. Thread-safe (one mutex, held only
//! for the map: clone(), release() and the destructor of a resource run outside it). Messages go to the owning
//! registry's logger and error recorder.
//!
class PluginResourceStore
{
public:
    explicit PluginResourceStore(PluginRegistry const& owner) noexcept
        : mOwner(owner)
    {
    }
    PluginResourceStore(PluginResourceStore const&) = delete;
    PluginResourceStore& operator=(PluginResourceStore const&) = delete;

    //! The resource registered under `key` (one more reference); on the first acquisition a clone of `resource`.
    StatusOr<nvinfer1::IPluginResource*> acquire(char const* key, nvinfer1::IPluginResource* resource);

    //! Drop one reference to `key`; the last one releases and deletes the resource (release()'s result returned).
    StatusOr<int32_t> release(char const* key);

    //! Release and delete every resource still held, whatever its count (the owning registry is being destroyed).
    //! Failures are reported to the owner, never thrown.
    void releaseAll() noexcept;

private:
    //! A shared resource and its reference count.
    struct Resource
    {
        nvinfer1::IPluginResource* object{};
        int64_t references{};
    };

    PluginRegistry const& mOwner;
    std::mutex mMutex; //!< Guards mResources.
    std::map<std::string, Resource> mResources;
};

} // namespace kiln
