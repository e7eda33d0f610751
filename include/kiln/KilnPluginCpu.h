//! \file KilnPluginCpu.h
//! \brief Kiln extension: lets a TensorRT plugin run on Kiln's CPU backend.
//!
//! TensorRT plugins are CUDA code: enqueue() receives device pointers and a cudaStream_t. Kiln's CPU backend
//! runs a plugin only when the plugin says that its enqueue() works on host memory (the "CPU opt-in"). Derive the
//! plugin from kiln::IPluginCpuSupport and make it findable:
//!
//! \code
//!     // IPluginV3: answer the Kiln capability type (works with and without RTTI).
//!     class MyPluginV3 : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore,
//!                        public nvinfer1::IPluginV3OneBuild, public nvinfer1::IPluginV3OneRuntime,
//!                        public kiln::IPluginCpuSupport
//!     {
//!         nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
//!         {
//!             if (type == kiln::kPLUGIN_CAPABILITY_CPU) return static_cast<kiln::IPluginCpuSupport*>(this);
//!             ...
//!         }
//!     };
//!     // IPluginV2 family compiled with RTTI: the mix-in alone is enough.
//!     class MyPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport { ... };
//!     // IPluginV2 family compiled with -fno-rtti: its creator lists kiln::kPLUGIN_CPU_SUPPORT_FIELD in
//!     // getFieldNames(), declaring that every plugin it makes runs on host memory.
//! \endcode
//!
//! Kiln never applies dynamic_cast to a plugin object whose class has no type information (code compiled with
//! -fno-rtti): it asks IPluginV3 plugins for the capability kPLUGIN_CAPABILITY_CPU and checks the answer's
//! getInterfaceInfo() kind (plugins may answer unknown capability types with any interface), and it finds the
//! mix-in of plugins compiled with RTTI with dynamic_cast, as before. On the CPU backend enqueue() receives host
//! pointers for inputs, outputs and workspace, and the stream is the value the application passed to
//! IExecutionContext::enqueueV3 (often nullptr); enqueue runs synchronously on the calling thread. A plugin that
//! has not opted in, or whose supportsCpu() returns false, is rejected when an engine is built for the CPU
//! backend, with an error naming the plugin. The header needs only the TensorRT headers (Kiln's or NVIDIA's).
#ifndef KILN_PLUGIN_CPU_H
#define KILN_PLUGIN_CPU_H

#include "NvInferRuntime.h"

namespace kiln
{

//! The capability type that Kiln passes to IPluginV3::getCapabilityInterface() to find the CPU opt-in. It lies
//! outside TensorRT's PluginCapabilityType values, which TensorRT itself never asks for.
constexpr nvinfer1::PluginCapabilityType kPLUGIN_CAPABILITY_CPU
    = static_cast<nvinfer1::PluginCapabilityType>(0x4B4C4E01);

//! The getInterfaceInfo() kind of IPluginCpuSupport; Kiln accepts the capability only with this kind, major 1.
constexpr char const* kPLUGIN_CPU_CAPABILITY_KIND = "KILN_PLUGIN_CPU";

//! A field name that an IPluginCreator (IPluginV2 family) lists in getFieldNames() to declare that every plugin
//! it creates runs on the CPU backend. For plugin libraries compiled without RTTI, where Kiln cannot look for the
//! mix-in; the field carries no value and createPlugin() never receives it.
constexpr char const* kPLUGIN_CPU_SUPPORT_FIELD = "kiln_cpu_support";

//!
//! \class IPluginCpuSupport
//! \brief Declares a plugin's enqueue() able to run on the CPU backend with host pointers; for IPluginV3 also the
//! capability interface returned for kPLUGIN_CAPABILITY_CPU.
//!
class IPluginCpuSupport : public nvinfer1::IPluginCapability
{
public:
    //! Identifies the capability; Kiln checks it before using an answer of getCapabilityInterface().
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{kPLUGIN_CPU_CAPABILITY_KIND, 1, 0};
    }

    //! Return true when enqueue() can run on host memory. Override to decide per configuration, e.g. to
    //! support only some data types on the CPU; the builder asks once per plugin layer, before format selection.
    virtual bool supportsCpu() const noexcept
    {
        return true;
    }

    ~IPluginCpuSupport() noexcept override = default;

protected:
    IPluginCpuSupport() = default;
    IPluginCpuSupport(IPluginCpuSupport const&) = default;
    IPluginCpuSupport& operator=(IPluginCpuSupport const&) & = default;
};

} // namespace kiln

#endif // KILN_PLUGIN_CPU_H
