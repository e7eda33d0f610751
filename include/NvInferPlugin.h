// NvInferPlugin.h — entry point of Kiln's standard plugin library (libnvinfer_plugin equivalent): registers all
// bundled plugin creators with the global plugin registry.
#ifndef NV_INFER_PLUGIN_H
#define NV_INFER_PLUGIN_H

#include "NvInfer.h"
#include "NvInferPluginUtils.h"

extern "C"
{
    //!
    //! \brief Register every plugin creator of the standard plugin library with the global plugin registry,
    //! under namespace libNamespace ("" for none). Call once before looking plugins up.
    //!
    //! \param logger An nvinfer1::ILogger* (passed as void*) that receives registration messages, or nullptr.
    //! \param libNamespace Namespace under which the creators are registered.
    //!
    //! \return true if all creators were registered.
    //!
    TENSORRTAPI bool initLibNvInferPlugins(void* logger, char const* libNamespace);

} // extern "C"

#endif // NV_INFER_PLUGIN_H
