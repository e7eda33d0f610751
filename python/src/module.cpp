// The kiln._kiln extension module: the tensorrt Python API over Kiln's C++ API. `import kiln as trt` re-exports
// everything defined here (python/kiln/__init__.py).
#include "bindings.h"

PYBIND11_MODULE(_kiln, m)
{
    m.doc() = "Kiln: the TensorRT Python API on Kiln's engine";
    using namespace kiln::python;
    bindCore(m);
    bindPluginCommon(m);
    bindBuilder(m);
    bindNetwork(m);
    bindLayers(m);
    bindPluginV2(m);
    bindPluginV3(m);
    bindRuntime(m);
    bindParser(m);
}
