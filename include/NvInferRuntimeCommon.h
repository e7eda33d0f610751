// NvInferRuntimeCommon.h — IPluginRegistry, the library-implemented registry of plugin creators and shared
// plugin resources. Pure virtual, in TensorRT 10.16's method order (plugin libraries call it through the vtable).
#ifndef NV_INFER_RUNTIME_COMMON_H
#define NV_INFER_RUNTIME_COMMON_H

#include "NvInferRuntimeBase.h"
#include "NvInferRuntimePlugin.h"

namespace nvinfer1
{

KILN_IGNORE_DEPRECATED_BEGIN

//!
//! \class IPluginRegistry
//! \brief Registry of plugin creators, looked up by (name, version, namespace).
//!
//! The global registry is returned by getPluginRegistry(); builders and runtimes own local registries that fall
//! back to their parent when parent search is enabled. Implemented by Kiln; do not derive from it.
//!
class IPluginRegistry
{
public:
    //! Handle of a plugin library loaded with loadLibrary().
    using PluginLibraryHandle = void*;

    //! \deprecated Deprecated in TensorRT 10.0; use registerCreator(IPluginCreatorInterface&, ...).
    TRT_DEPRECATED virtual bool registerCreator(
        IPluginCreator& creator, AsciiChar const* const pluginNamespace) noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0; use getAllCreators().
    TRT_DEPRECATED virtual IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept
        = 0;

    //! \deprecated Deprecated in TensorRT 10.0; use getCreator(). Returns nullptr for non-IPluginCreator matches.
    TRT_DEPRECATED virtual IPluginCreator* getPluginCreator(AsciiChar const* const pluginName,
        AsciiChar const* const pluginVersion, AsciiChar const* const pluginNamespace = "") noexcept = 0;

    IPluginRegistry() = default;
    IPluginRegistry(IPluginRegistry const&) = delete;
    IPluginRegistry(IPluginRegistry&&) = delete;
    IPluginRegistry& operator=(IPluginRegistry const&) & = delete;
    IPluginRegistry& operator=(IPluginRegistry&&) & = delete;

protected:
    virtual ~IPluginRegistry() noexcept = default;

public:
    //! Set (or clear with nullptr) the error recorder of this registry.
    virtual void setErrorRecorder(IErrorRecorder* const recorder) noexcept = 0;

    //! The error recorder set on this registry, or nullptr.
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;

    //! \deprecated Deprecated in TensorRT 10.0; use deregisterCreator(IPluginCreatorInterface const&).
    TRT_DEPRECATED virtual bool deregisterCreator(IPluginCreator const& creator) noexcept = 0;

    //! Whether lookups that miss fall back to the parent registry (default true).
    virtual bool isParentSearchEnabled() const = 0;

    //! Enable or disable falling back to the parent registry.
    virtual void setParentSearchEnabled(bool const enabled) = 0;

    //! Load a plugin shared library and register its creators; nullptr if loading fails or any contained
    //! plugin is already registered.
    virtual PluginLibraryHandle loadLibrary(AsciiChar const* pluginPath) noexcept = 0;

    //! Deregister the creators of a library loaded with loadLibrary() and release its resources.
    virtual void deregisterLibrary(PluginLibraryHandle handle) noexcept = 0;

    //! Register a creator of any generation; false if one with the same name/version/namespace exists.
    virtual bool registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const pluginNamespace) noexcept
        = 0;

    //! All creators registered in this registry (not its parents); nullptr if none.
    virtual IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept = 0;

    //! Look up a creator of any generation by name, version and namespace.
    virtual IPluginCreatorInterface* getCreator(AsciiChar const* const pluginName,
        AsciiChar const* const pluginVersion, AsciiChar const* const pluginNamespace = "") noexcept = 0;

    //! Remove a creator registered earlier; false if it was not found.
    virtual bool deregisterCreator(IPluginCreatorInterface const& creator) noexcept = 0;

    //! Register a clone of `resource` under `key` (or take a reference to the existing one) and return the
    //! registered object.
    virtual IPluginResource* acquirePluginResource(AsciiChar const* key, IPluginResource* resource) noexcept = 0;

    //! Drop one reference to the resource under `key`; at zero it is released and deleted. 0 on success.
    virtual int32_t releasePluginResource(AsciiChar const* key) noexcept = 0;

    //! Like getAllCreators(), but including the creators reachable through parent registries.
    virtual IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept = 0;
};

KILN_IGNORE_DEPRECATED_END

} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_COMMON_H
