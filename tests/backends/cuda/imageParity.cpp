// Parity of the CUDA grid-sample and LRN kernels with the CPU reference: every interpolation mode, sample mode
// and alignCorners setting with grids reaching outside [-1, 1] (so that fill, clamp and reflection all act), and
// LRN with several windows and ranks, in FLOAT, HALF and BF16.
#include "cudaParity.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

TEST(CudaParity, GridSampleModes)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (InterpolationMode mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC})
        {
            for (SampleMode sample : {SampleMode::kFILL, SampleMode::kCLAMP, SampleMode::kREFLECT})
            {
                for (bool align : {false, true})
                {
                    SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " mode "
                        + std::to_string(static_cast<int>(mode)) + " sample " + std::to_string(static_cast<int>(sample))
                        + " align " + std::to_string(align));
                    ParityOptions o;
                    o.lo = -1.6; // grid coordinates beyond the borders (and input values)
                    o.hi = 1.6;
                    o.seed = 77 + static_cast<uint32_t>(mode) * 7 + static_cast<uint32_t>(sample);
                    o.tolerance.fp32Atol = 1e-5;
                    checkParity([&](INetworkDefinition& n) {
                        auto* in = n.addInput("x", t, dims({2, 3, 5, 6}));
                        auto* grid = n.addInput("grid", t, dims({2, 4, 7, 2}));
                        auto* l = n.addGridSample(*in, *grid);
                        ASSERT_NE(l, nullptr);
                        l->setInterpolationMode(mode);
                        l->setAlignCorners(align);
                        ASSERT_TRUE(l->setSampleMode(sample));
                        n.markOutput(*l->getOutput(0));
                    }, o);
                }
            }
        }
    }
}

TEST(CudaParity, LRNWindows)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int64_t window : {1, 3, 5, 7})
        {
            for (std::vector<int64_t> const& shape :
                std::vector<std::vector<int64_t>>{{2, 7, 4, 5}, {6, 3, 3}, {1, 2, 9, 2, 3}})
            {
                SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " window " + std::to_string(window));
                checkParity([&](INetworkDefinition& n) {
                    auto* l = n.addLRN(*n.addInput("x", t, dims(shape)), window, 0.6F, 0.75F, 1.5F);
                    ASSERT_NE(l, nullptr);
                    n.markOutput(*l->getOutput(0));
                });
            }
        }
    }
}

} // namespace
} // namespace kiln::test::cuda
