// The CUDA convolution kernel's per-shape plan (legacy cuDNN descriptors and workspace layout, or a cuDNN graph-API
// plan) and its 5-D helpers: Kiln normalises 1-D, 2-D and 3-D convolutions to [N, C, D, H, W].
#pragma once

#include "backends/common/convolutionParams.h"
#include "backends/cuda/kernels/convolutionGraph.h"
#include "backends/cuda/kernels/cudnnCommon.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::cuda
{

//! Per-shape execution plan.
struct ConvPlan
{
    std::vector<int64_t> key;
    WindowGeometry g;
    int64_t n{0};
    int64_t c{0};
    bool cudnn{false};
#if KILN_HAVE_CUDNN
    TensorDesc xDesc; //!< convolution: (padded) input; deconvolution: the input (cuDNN's dy)
    TensorDesc yDesc; //!< convolution: output; deconvolution: the (full) output (cuDNN's dx)
    FilterDesc wDesc;
    ConvDesc convDesc;
    int32_t algo{0};
#endif
    int64_t cudnnBytes{0};
    bool padInput{false};
    int64_t paddedDims[5]{}; //!< 5-D [N, C, P...] of the padded input
    int64_t padOffset[3]{};  //!< padded position -> input position
    bool convertKernel{false};
    int64_t kernelCount{0};
    bool stage{false};       //!< cuDNN writes into the workspace; the pointwise pass writes the output
    int64_t resultDims[5]{}; //!< 5-D extents of cuDNN's result
    int64_t cropOffset[3]{}; //!< output position -> result position
    // Workspace layout.
    int64_t padAt{0};
    int64_t kernelAt{0};
    int64_t stageAt{0};
    int64_t total{0};
    // The graph-API plan of this shape (null: the legacy calls), decided at reshape for `graphFor` (1: the fused
    // addition has the output's full shape or there is none, 0: it broadcasts; -1: not decided yet).
    std::shared_ptr<ConvGraphPlan const> graph;
    int32_t graphFor{-1};
};

//! True when 5-D strides are those of a packed tensor of `dims` (dimensions of extent 1 may have any stride).
inline bool packedOver(int64_t const (&strides)[5], int64_t const (&dims)[5])
{
    int64_t expect = 1;
    for (int32_t i = 4; i >= 0; --i)
    {
        if (dims[i] != 1 && strides[i] != expect)
        {
            return false;
        }
        expect *= dims[i];
    }
    return true;
}

inline void toDims5(int64_t (&d5)[5], int64_t n, int64_t c, int64_t const (&sp)[3])
{
    d5[0] = n;
    d5[1] = c;
    d5[2] = sp[0];
    d5[3] = sp[1];
    d5[4] = sp[2];
}

inline void toDims5(int64_t (&d5)[5], nvinfer1::Dims const& d)
{
    if (d.nbDims == 4)
    {
        d5[0] = d.d[0];
        d5[1] = d.d[1];
        d5[2] = 1;
        d5[3] = d.d[2];
        d5[4] = d.d[3];
        return;
    }
    for (int32_t i = 0; i < 5; ++i)
    {
        d5[i] = i < d.nbDims ? d.d[i] : 1;
    }
}

//! The spatial extents (natural rank) of a 5-D normalised array.
inline std::vector<int64_t> natural(int64_t n, int64_t c, int64_t const (&sp)[3], int32_t nbSpatial)
{
    std::vector<int64_t> v{n, c};
    for (int32_t i = 3 - nbSpatial; i < 3; ++i)
    {
        v.push_back(sp[i]);
    }
    return v;
}

} // namespace kiln::cuda
