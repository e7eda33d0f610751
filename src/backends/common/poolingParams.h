// Backend-neutral host-side logic of IPoolingLayer kernels (CPU and CUDA): the node's configuration (window,
// pooling type, blend factor, averageCountExcludesPadding) and the per-run shape checks with their messages.
#pragma once

#include "backends/kernel.h"
#include "network/layers/convolutionLayer.h"

#include <vector>

namespace kiln
{

struct PoolConfig
{
    WindowParams params;
    nvinfer1::PoolingType type{nvinfer1::PoolingType::kMAX};
    double blend{0.0};
    bool excludePadding{true};
};

//! Reads and validates "windowSize", strides, paddings, "poolingType", "blendFactor", "averageCountExcludesPadding".
StatusOr<PoolConfig> readPoolConfig(PlanNode const& node);

//! Storage types the pooling kernels accept (kFLOAT, kHALF, kBF16, kINT8).
bool isPoolStorage(nvinfer1::DataType t);

//! Checks one run's input and output against the configuration and returns the window extents. Messages name the
//! layer.
Status checkPoolShapes(PlanNode const& node, PoolConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::vector<WindowExtent>& ext);

//! checkPoolShapes without the buffer checks (data not looked at: at reshape).
Status poolShapes(PlanNode const& node, PoolConfig const& cfg, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::vector<WindowExtent>& ext);

} // namespace kiln
