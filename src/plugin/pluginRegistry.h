// PluginRegistry: Kiln's IPluginRegistry. One global instance (getPluginRegistry()) plus local registries owned by
// builders and runtimes, which fall back to their parent on a lookup miss while parent search is enabled.
// Implemented in pluginRegistry.cpp (registration, libraries, resources' entry points) and pluginRegistryLookup.cpp
// (lookups); it uses pluginCreatorKey.h (reading creators), pluginLibraryLoader.h (dlopen and library entry
// points) and pluginResources.h (the shared resource store).
#pragma once

#include "NvInferRuntime.h"
#include "core/logging.h"
#include "core/status.h"
#include "plugin/pluginCreatorKey.h"
#include "plugin/pluginResources.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace kiln
{

KILN_IGNORE_DEPRECATED_BEGIN

//!
//! \brief Kiln's plugin registry.
//!
//! Creators are keyed by (name, version, namespace); a second registration of the same key is an error, never a
//! silent replacement. All methods are thread-safe (one mutex for creators and libraries, one for resources);
//! calls into creators, resources and plugin libraries are made outside the locks. The arrays returned by
//! getPluginCreatorList(), getAllCreators() and getAllCreatorsRecursive() stay valid until the next change of this
//! registry (or, for the recursive list, the next call of getAllCreatorsRecursive()), as in TensorRT.
//!
class PluginRegistry final : public nvinfer1::IPluginRegistry
{
public:
    //! \param parent Registry searched when a lookup misses here (nullptr for none, as for the global registry).
    //! \param logger Logger of the owner (builder/runtime); nullptr means the process-wide registry logger.
    //! \param label How messages name this registry, e.g. "the global plugin registry".
    PluginRegistry(nvinfer1::IPluginRegistry* parent, nvinfer1::ILogger* logger, std::string label);
    ~PluginRegistry() noexcept override;

    // nvinfer1::IPluginRegistry, in TensorRT's order.
    bool registerCreator(nvinfer1::IPluginCreator& creator, nvinfer1::AsciiChar const* const pluginNamespace) noexcept
        override;
    nvinfer1::IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept override;
    nvinfer1::IPluginCreator* getPluginCreator(nvinfer1::AsciiChar const* const pluginName,
        nvinfer1::AsciiChar const* const pluginVersion,
        nvinfer1::AsciiChar const* const pluginNamespace = "") noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* const recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    bool deregisterCreator(nvinfer1::IPluginCreator const& creator) noexcept override;
    bool isParentSearchEnabled() const noexcept override;
    void setParentSearchEnabled(bool const enabled) noexcept override;
    PluginLibraryHandle loadLibrary(nvinfer1::AsciiChar const* pluginPath) noexcept override;
    void deregisterLibrary(PluginLibraryHandle handle) noexcept override;
    bool registerCreator(nvinfer1::IPluginCreatorInterface& creator,
        nvinfer1::AsciiChar const* const pluginNamespace) noexcept override;
    nvinfer1::IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept override;
    nvinfer1::IPluginCreatorInterface* getCreator(nvinfer1::AsciiChar const* const pluginName,
        nvinfer1::AsciiChar const* const pluginVersion,
        nvinfer1::AsciiChar const* const pluginNamespace = "") noexcept override;
    bool deregisterCreator(nvinfer1::IPluginCreatorInterface const& creator) noexcept override;
    nvinfer1::IPluginResource* acquirePluginResource(
        nvinfer1::AsciiChar const* key, nvinfer1::IPluginResource* resource) noexcept override;
    int32_t releasePluginResource(nvinfer1::AsciiChar const* key) noexcept override;
    nvinfer1::IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept override;

    // Kiln extensions (internal).

    //! The parent given at construction (nullptr for the global registry).
    nvinfer1::IPluginRegistry* parent() const noexcept { return mParent; }

    //! The logger messages of this registry go to right now (owner's logger, else the process-wide one; may be
    //! nullptr).
    nvinfer1::ILogger* logger() const noexcept;

    //! Log a failed status as an error and give it to this registry's error recorder (OK statuses are ignored).
    void reportError(Status const& status) const noexcept;
    void logVerbose(std::string const& message) const noexcept;
    void logWarning(std::string const& message) const noexcept;

    //! Kind of a registered creator, or of any creator object (decided from its interface info); false if unknown.
    static bool creatorKindOf(nvinfer1::IPluginCreatorInterface const& creator, CreatorKind& kind) noexcept;

    //! Kind, name, version and own namespace any creator object reports, read the way registration reads them
    //! (every call guarded, every string checked; a null namespace means "").
    static Status readCreatorKey(nvinfer1::IPluginCreatorInterface& creator, CreatorKind& kind, std::string& name,
        std::string& version, std::string& nspace) noexcept;

    //! A creator visible to lookups, with the label of the registry holding it (for "closest names" messages).
    struct VisibleCreator
    {
        std::string name;
        std::string version;
        std::string nspace;
        CreatorKind kind{CreatorKind::kV1};
        std::string registry;
    };

    //! Every creator a lookup here can find: this registry's, then (while parent search is enabled) its parents'.
    std::vector<VisibleCreator> visibleCreators() const;
    //! Labels of the registries a lookup searches, in order.
    std::vector<std::string> searchedRegistries() const;

    //! How messages name this registry ("the global plugin registry", "the runtime's plugin registry", ...).
    std::string const& label() const noexcept { return mLabel; }

    //! loadLibrary() that returns its failure instead of reporting it. dlopen opens `path`; messages name the
    //! library `displayName`, and findLibrary() recognises it by `fileName` (its file's base name). Embedded
    //! libraries are opened as "/proc/self/fd/<n>" and named after the file the builder read.
    StatusOr<PluginLibraryHandle> loadLibraryFrom(
        std::string const& path, std::string const& displayName, std::string const& fileName);

    //! The label of the registry that has loaded a library whose file name is `fileName`: this one, else (while
    //! parent search is enabled) a Kiln ancestor; "" when none has. File names are compared on their base names.
    std::string findLibrary(std::string const& fileName) const;

private:
    //! One registered creator, with its key copied at registration time.
    struct Entry
    {
        nvinfer1::IPluginCreatorInterface* creator{};
        CreatorKind kind{CreatorKind::kV1};
        std::string name;
        std::string version;
        std::string nspace;
        void* library{}; //!< Handle of the library that brought it (loadLibrary), else nullptr.
    };

    //! A creator found by a lookup.
    struct Found
    {
        nvinfer1::IPluginCreatorInterface* creator{};
        CreatorKind kind{CreatorKind::kV1};
    };

    //! A library loaded by loadLibrary().
    struct Library
    {
        std::string path;     //!< How messages name it (the path given to loadLibrary(), or the embedded name).
        std::string fileName; //!< Base name of its file, for findLibrary().
    };

    using Key = std::tuple<std::string, std::string, std::string>;

    Status registerOne(nvinfer1::IPluginCreatorInterface& creator, char const* pluginNamespace);
    Status insertEntries(std::vector<Entry> entries, void* library, Library const& info);
    Status removeCreator(nvinfer1::IPluginCreatorInterface const* creator);
    Found findLocal(std::string const& name, std::string const& version, std::string const& nspace) const;
    Found find(std::string const& name, std::string const& version, std::string const& nspace);
    void describeSameName(std::string const& name, std::vector<std::string>& out) const;
    void collectAll(std::vector<nvinfer1::IPluginCreatorInterface*>& out, std::set<Key>& seen);
    void logMiss(std::string const& name, std::string const& version, std::string const& nspace) const noexcept;
    void rebuildListsLocked();

    nvinfer1::IPluginRegistry* const mParent;
    nvinfer1::ILogger* const mOwnerLogger;
    std::string const mLabel;
    std::atomic<bool> mParentSearch{true};
    std::atomic<nvinfer1::IErrorRecorder*> mRecorder{nullptr};

    mutable std::mutex mMutex; //!< Guards mEntries, the lists and mLibraries.
    std::vector<Entry> mEntries;
    std::vector<nvinfer1::IPluginCreatorInterface*> mAllCreators;
    std::vector<nvinfer1::IPluginCreator*> mV1Creators;
    std::vector<nvinfer1::IPluginCreatorInterface*> mRecursiveCreators;
    std::map<void*, Library> mLibraries;

    PluginResourceStore mResources{*this};
};

KILN_IGNORE_DEPRECATED_END

//! Set the process-wide logger of the global registry (and of getLogger()). Kiln calls it when a builder or
//! runtime is created; until then the global registry reports errors only to its error recorder.
void setRegistryLogger(nvinfer1::ILogger* logger) noexcept;

//! Clear the process-wide registry logger if it is still `logger` (builders and runtimes call this when they are
//! destroyed, so that the global registry never logs to a dead logger).
void unsetRegistryLogger(nvinfer1::ILogger* logger) noexcept;

//! The process-wide registry logger, or nullptr if none was set.
nvinfer1::ILogger* registryLogger() noexcept;

//! The global registry (the object behind getPluginRegistry()); never destroyed.
PluginRegistry& globalPluginRegistry() noexcept;

//! A local registry for a builder or runtime: lookups that miss fall back to `parent` (normally the global
//! registry) while parent search is enabled. `logger` is the owner's logger (nullptr: the process-wide one).
std::unique_ptr<PluginRegistry> createLocalRegistry(nvinfer1::IPluginRegistry* parent,
    nvinfer1::ILogger* logger = nullptr, std::string label = "a local plugin registry");

} // namespace kiln
