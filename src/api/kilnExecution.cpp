// The Kiln extension functions of include/kiln/KilnExecution.h: automatic CUDA graphs per execution context.
#include "kiln/KilnExecution.h"

#include "runtime/executionContext.h"
#include "core/runtimeTypeInfo.h"

namespace kiln
{

bool setAutoCudaGraphs(nvinfer1::IExecutionContext* context, bool enabled) noexcept
{
    auto* ctx = safeDynamicCast<ExecutionContext>(context);
    if (ctx == nullptr)
    {
        return false;
    }
    ctx->autoGraph().setEnabled(enabled);
    return true;
}

bool getAutoCudaGraphs(nvinfer1::IExecutionContext const* context) noexcept
{
    auto const* ctx = safeDynamicCast<ExecutionContext const>(context);
    return ctx != nullptr && ctx->autoGraph().enabled();
}

} // namespace kiln
