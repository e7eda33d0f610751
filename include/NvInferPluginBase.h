// NvInferPluginBase.h — plugin building blocks shared by every plugin generation: plugin fields, phases,
// capability types, plugin resources, the creator base and the IPluginV3 root interface.
#ifndef NV_INFER_PLUGIN_BASE_H
#define NV_INFER_PLUGIN_BASE_H

#include "NvInferRuntimeBase.h"

namespace nvinfer1
{

//!
//! \enum PluginFieldType
//! \brief Element type of the data carried by a PluginField.
//!
enum class PluginFieldType : int32_t
{
    kFLOAT16 = 0,  //!< IEEE binary16.
    kFLOAT32 = 1,  //!< IEEE binary32.
    kFLOAT64 = 2,  //!< IEEE binary64.
    kINT8 = 3,     //!< int8_t.
    kINT16 = 4,    //!< int16_t.
    kINT32 = 5,    //!< int32_t.
    kCHAR = 6,     //!< char (strings; length counts characters).
    kDIMS = 7,     //!< nvinfer1::Dims.
    kUNKNOWN = 8,  //!< Opaque bytes; length counts bytes.
    kBF16 = 9,     //!< bfloat16.
    kINT64 = 10,   //!< int64_t.
    kFP8 = 11,     //!< 8-bit float.
    kINT4 = 12,    //!< 4-bit integer.
    kFP4 = 13,     //!< 4-bit float.
};

//!
//! \class PluginField
//! \brief One named attribute passed to (or serialized from) a plugin: a typed array of `length` elements.
//!
class PluginField
{
public:
    //! Attribute name.
    AsciiChar const* name;
    //! Pointer to the attribute data (not owned).
    void const* data;
    //! Element type of data.
    PluginFieldType type;
    //! Number of elements in data.
    int32_t length;

    PluginField(AsciiChar const* const fieldName = nullptr, void const* const fieldData = nullptr,
        PluginFieldType const fieldType = PluginFieldType::kUNKNOWN, int32_t const fieldLength = 0) noexcept
        : name(fieldName)
        , data(fieldData)
        , type(fieldType)
        , length(fieldLength)
    {
    }
};

//!
//! \struct PluginFieldCollection
//! \brief A view of an array of PluginField.
//!
struct PluginFieldCollection
{
    //! Number of entries in fields.
    int32_t nbFields{};
    //! The fields (not owned).
    PluginField const* fields{};
};

//!
//! \enum TensorRTPhase
//! \brief The phase in which a plugin object is created: network building or engine execution.
//!
enum class TensorRTPhase : int32_t
{
    kBUILD = 0,
    kRUNTIME = 1
};

//!
//! \enum PluginCapabilityType
//! \brief The capability interfaces an IPluginV3 object can expose.
//!
enum class PluginCapabilityType : int32_t
{
    kCORE = 0,    //!< Required of every IPluginV3.
    kBUILD = 1,   //!< Required of plugins added to a network.
    kRUNTIME = 2  //!< Required of plugins used at build time and at run time.
};

namespace v_1_0
{
//! Empty base of the IPluginV3 capability interfaces.
class IPluginCapability : public IVersionedInterface
{
};

//!
//! \brief A resource that plugins can share through IPluginRegistry::acquirePluginResource().
//!
//! The registry stores a clone() of the object passed in and calls release() on that clone when its reference
//! count drops to zero.
//!
class IPluginResource : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IPluginResource", 1, 0};
    }

    //! Free the underlying resource (only called on clones). Return 0 on success.
    virtual int32_t release() noexcept = 0;

    //! Return an initialized copy of this resource, or nullptr on failure. Must be thread-safe.
    virtual IPluginResource* clone() noexcept = 0;

    ~IPluginResource() noexcept override = default;

    IPluginResource() = default;
    IPluginResource(IPluginResource const&) = default;
    IPluginResource(IPluginResource&&) = default;
    IPluginResource& operator=(IPluginResource const&) & = default;
    IPluginResource& operator=(IPluginResource&&) & = default;
};

//! Base class of every plugin creator generation.
class IPluginCreatorInterface : public IVersionedInterface
{
public:
    ~IPluginCreatorInterface() noexcept override = default;

protected:
    IPluginCreatorInterface() = default;
    IPluginCreatorInterface(IPluginCreatorInterface const&) = default;
    IPluginCreatorInterface(IPluginCreatorInterface&&) = default;
    IPluginCreatorInterface& operator=(IPluginCreatorInterface const&) & = default;
    IPluginCreatorInterface& operator=(IPluginCreatorInterface&&) & = default;
};

//!
//! \brief Root of the V3 plugin generation: a plugin is a set of capability interfaces.
//!
class IPluginV3 : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"PLUGIN", 1, 0};
    }

    //! Return the object implementing the requested capability, or nullptr if absent. Plugins added to a network
    //! must provide kCORE, kBUILD and kRUNTIME; plugins created for the runtime phase need kCORE and kRUNTIME.
    virtual IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept = 0;

    //! Return a fully initialized copy with the same parameters and capabilities, or nullptr on failure.
    virtual IPluginV3* clone() noexcept = 0;
};
} // namespace v_1_0

using IPluginResource = v_1_0::IPluginResource;
using IPluginCreatorInterface = v_1_0::IPluginCreatorInterface;
using IPluginV3 = v_1_0::IPluginV3;
using IPluginCapability = v_1_0::IPluginCapability;

} // namespace nvinfer1

#endif // NV_INFER_PLUGIN_BASE_H
