//! \file KilnPluginCpu.h
//! \brief Kiln extension: lets a TensorRT plugin run on Kiln's CPU backend.
//!
//! TensorRT plugins are CUDA code: enqueue() receives device pointers and a cudaStream_t. Kiln's CPU backend
//! runs a plugin only when the plugin says that its enqueue() works on host memory. It says so by also
//! deriving from kiln::IPluginCpuSupport:
//!
//! \code
//!     class MyPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport { ... };
//!     class MyPluginV3 : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore,
//!                        public nvinfer1::IPluginV3OneBuild, public nvinfer1::IPluginV3OneRuntime,
//!                        public kiln::IPluginCpuSupport { ... };
//! \endcode
//!
//! Kiln finds the mix-in with dynamic_cast on the plugin object (for IPluginV3 also on its kRUNTIME capability
//! object), so the plugin library must be compiled with RTTI (the default). On the CPU backend enqueue() then
//! receives host pointers for inputs, outputs and workspace, and the stream is the value the application passed
//! to IExecutionContext::enqueueV3 (often nullptr); enqueue runs synchronously on the calling thread.
//! A plugin without the mix-in, or whose supportsCpu() returns false, is rejected when an engine is built for
//! the CPU backend, with an error naming the plugin. The header needs nothing but the C++ standard library, so
//! a plugin can include it next to NVIDIA's own headers.
#ifndef KILN_PLUGIN_CPU_H
#define KILN_PLUGIN_CPU_H

namespace kiln
{

//!
//! \class IPluginCpuSupport
//! \brief Mix-in that declares a plugin's enqueue() able to run on the CPU backend with host pointers.
//!
class IPluginCpuSupport
{
public:
    //! Return true when enqueue() can run on host memory. Override to decide per configuration, e.g. to
    //! support only some data types on the CPU; the builder asks once per plugin layer, before format selection.
    virtual bool supportsCpu() const noexcept
    {
        return true;
    }

    virtual ~IPluginCpuSupport() noexcept = default;

protected:
    IPluginCpuSupport() = default;
    IPluginCpuSupport(IPluginCpuSupport const&) = default;
    IPluginCpuSupport& operator=(IPluginCpuSupport const&) = default;
};

} // namespace kiln

#endif // KILN_PLUGIN_CPU_H
