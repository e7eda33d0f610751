// Parity of the CUDA reduction-family kernels with the CPU reference: reduce (every operation, several axes masks,
// keepDims on and off, float and integer types, empty reductions), softmax (every axis, float types) and
// normalization (layer, instance and group norm; float types), topK (kMAX/kMIN, ties, index types) and cumulative
// sums (every axis, exclusive/reverse).
#include "cudaParity.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::ReduceOperation;

TEST(CudaParity, ReduceEveryOperation)
{
    for (int32_t op = 0; op <= static_cast<int32_t>(ReduceOperation::kAVG); ++op)
    {
        for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
        {
            for (uint32_t axes : {1U, 2U, 5U, 7U, 6U})
            {
                for (bool keep : {true, false})
                {
                    SCOPED_TRACE("reduce op " + std::to_string(op) + " type " + std::to_string(static_cast<int>(t))
                        + " axes " + std::to_string(axes) + " keep " + std::to_string(keep));
                    ParityOptions o;
                    bool const prod = static_cast<ReduceOperation>(op) == ReduceOperation::kPROD;
                    o.lo = prod ? 0.5 : -20.0; // products of many factors stay finite
                    o.hi = prod ? 1.5 : 20.0;
                    if (prod && (t == DataType::kINT32 || t == DataType::kINT64))
                    {
                        o.lo = -3.0; // integer products wrap: compared exactly all the same
                        o.hi = 3.0;
                    }
                    o.tolerance.fp32Atol = 1e-4;
                    checkParity([&](INetworkDefinition& n) {
                        auto* l = n.addReduce(*n.addInput("x", t, dims({3, 4, 5})), static_cast<ReduceOperation>(op),
                            axes, keep);
                        n.markOutput(*l->getOutput(0));
                    }, o);
                }
            }
        }
        // An empty reduction (identities) and an empty output.
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addReduce(*n.addInput("x", DataType::kFLOAT, dims({3, 0, 2})), static_cast<ReduceOperation>(op),
                2U, true);
            n.markOutput(*l->getOutput(0));
            auto* m = n.addReduce(*n.addInput("y", DataType::kINT32, dims({0, 4})), static_cast<ReduceOperation>(op),
                2U, false);
            n.markOutput(*m->getOutput(0));
        });
    }
}

TEST(CudaParity, SoftMax)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (uint32_t axis = 0; axis < 3; ++axis)
        {
            ParityOptions o;
            o.lo = -6.0;
            o.hi = 6.0;
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addSoftMax(*n.addInput("x", t, dims({4, 7, 33})));
                l->setAxes(1U << axis);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
        // Innermost axis (one warp per row): rows held in registers (128) and rows longer than the cache (300).
        for (int64_t length : {int64_t{128}, int64_t{300}})
        {
            ParityOptions o;
            o.lo = -6.0;
            o.hi = 6.0;
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addSoftMax(*n.addInput("x", t, dims({3, 5, length})));
                l->setAxes(1U << 2);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
    }
}

TEST(CudaParity, Normalization)
{
    struct Case
    {
        std::vector<int64_t> x;
        std::vector<int64_t> scale;
        uint32_t axes;
        int64_t groups;
    };
    std::vector<Case> const cases{
        {{2, 5, 16}, {1, 1, 16}, 4U, 1},        // layer norm over the last axis
        {{2, 3, 4, 5}, {1, 3, 1, 1}, 12U, 1},   // instance norm over the spatial axes
        {{2, 6, 3, 4}, {1, 6, 1, 1}, 12U, 3},   // group norm: 3 groups of 2 channels
        {{3, 4, 0}, {1, 1, 1}, 4U, 1},          // empty
        {{2, 3, 5, 7}, {1, 1, 5, 7}, 12U, 1},   // layer norm over the last two axes (the row kernel)
        {{2, 9000}, {1, 9000}, 2U, 1},          // rows longer than the row kernel's register cache
        {{2, 5, 16}, {1, 5, 16}, 4U, 1},        // scale varying along a statistics axis: the general kernel
    };
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (Case const& c : cases)
        {
            ParityOptions o;
            o.lo = -3.0;
            o.hi = 3.0;
            o.tolerance.fp32Atol = 1e-4; // x - mean of nearly equal values
            o.tolerance.fp16Atol = 4e-3;
            o.tolerance.bf16Atol = 3e-2;
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addNormalizationV2(*n.addInput("x", t, dims(c.x)), *n.addInput("s", t, dims(c.scale)),
                    *n.addInput("b", t, dims(c.scale)), c.axes);
                l->setEpsilon(1e-3F);
                l->setNbGroups(c.groups);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
    }
}

TEST(CudaParity, TopK)
{
    for (auto op : {nvinfer1::TopKOperation::kMAX, nvinfer1::TopKOperation::kMIN})
    {
        for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kINT64})
        {
            for (DataType it : {DataType::kINT32, DataType::kINT64})
            {
                for (uint32_t axis = 0; axis < 3; ++axis)
                {
                    ParityOptions o;
                    o.lo = -4.0; // few distinct integer values: ties must keep the lower index first
                    o.hi = 4.0;
                    checkParity([&](INetworkDefinition& n) {
                        auto* l = n.addTopK(*n.addInput("x", t, dims({5, 9, 6})), op, 3, 1U << axis, it);
                        n.markOutput(*l->getOutput(0));
                        n.markOutput(*l->getOutput(1));
                    }, o);
                }
            }
        }
    }
}

TEST(CudaParity, Cumulative)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kINT64})
    {
        for (int32_t axis : {0, 2, -2})
        {
            for (bool exclusive : {false, true})
            {
                for (bool reverse : {false, true})
                {
                    ParityOptions o;
                    o.lo = -5.0;
                    o.hi = 5.0;
                    o.tolerance.fp16Atol = 1e-2; // sums of up to 7 FP16 values rounded once: a few output ulps
                    checkParity([&](INetworkDefinition& n) {
                        int32_t const axisValue[] = {axis};
                        nvinfer1::Weights const w{DataType::kINT32, axisValue, 1};
                        auto* a = n.addConstant(dims({}), w);
                        auto* l = n.addCumulative(*n.addInput("x", t, dims({3, 5, 7})), *a->getOutput(0),
                            nvinfer1::CumulativeOperation::kSUM, exclusive, reverse);
                        n.markOutput(*l->getOutput(0));
                    }, o);
                }
            }
        }
    }
}

} // namespace
} // namespace kiln::test::cuda
