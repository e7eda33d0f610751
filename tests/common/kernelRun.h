// Test helper for tests that drive a backend kernel (backends/kernel.h) directly, as the execution context does:
// reshape to the views' shapes, then run.
#pragma once

#include "backends/kernel.h"
#include "common/networkRunner.h"

#include <vector>

namespace kiln::test
{

//! A view of a host tensor's bytes, type and dims.
inline TensorView viewOf(HostTensor& h)
{
    TensorView v;
    v.data = h.data();
    v.type = h.type;
    v.dims = h.dims;
    return v;
}

//! kernel.reshape(inputs, outputs), then, when it succeeded, kernel.run(inputs, outputs, ctx).
inline Status reshapeAndRun(Kernel& kernel, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, RunContext const& ctx = RunContext{})
{
    Status const shaped = kernel.reshape(inputs, outputs);
    return shaped.isOk() ? kernel.run(inputs, outputs, ctx) : shaped;
}

} // namespace kiln::test
