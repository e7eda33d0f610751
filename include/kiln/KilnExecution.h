//! \file KilnExecution.h
//! \brief Kiln extension: automatic CUDA graphs for execution contexts.
//!
//! On the CUDA backend, a context that runs enqueueV3 again with the same input shapes and the same tensor
//! addresses replays a CUDA graph captured from an earlier run instead of launching every layer: the host cost of
//! a run no longer grows with the number of layers. TensorRT leaves graph capture to the application; Kiln does it
//! by itself, and an application that captures enqueueV3 into its own graph still can (Kiln then launches plainly
//! into the application's capture).
//!
//! The rules (docs/gpu.md, "Automatic CUDA graphs"):
//! - the first run with new input shapes launches plainly (kernels prepare for the shapes); the next run with those
//!   shapes is captured and launched as a graph; later runs with the same addresses replay it;
//! - changed tensor addresses (setTensorAddress, an output allocator's new buffer, setDeviceMemoryV2) capture the
//!   run again and update the graph in place;
//! - runs that cannot be captured launch plainly, with one kVERBOSE log line saying why: the legacy default stream,
//!   a stream already being captured, a profiler or debug sync, a debug listener, engines with data-dependent
//!   shapes, conditionals, loops or assertion layers, and captures that fail (for example a plugin that
//!   synchronises the stream);
//! - executeV2 never uses a graph; the CPU backend has none.
//!
//! Automatic graphs are on by default; the environment variable KILN_AUTO_CUDA_GRAPH=0 turns them off for every
//! context created afterwards, and setAutoCudaGraphs turns them on or off for one context.
#ifndef KILN_EXECUTION_H
#define KILN_EXECUTION_H

#include "NvInferRuntime.h"

namespace kiln
{

//! Turn automatic CUDA graphs on or off for `context` (turning them off drops its graph). False for a null or
//! non-Kiln context.
TENSORRTAPI bool setAutoCudaGraphs(nvinfer1::IExecutionContext* context, bool enabled) noexcept;

//! Whether automatic CUDA graphs are on for `context` (false for a null or non-Kiln context).
TENSORRTAPI bool getAutoCudaGraphs(nvinfer1::IExecutionContext const* context) noexcept;

} // namespace kiln

#endif // KILN_EXECUTION_H
