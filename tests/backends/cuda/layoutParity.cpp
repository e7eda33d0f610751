// Parity of the CUDA data-movement kernels with the CPU reference: shuffle (reshape and both transposes),
// concatenation, slice (every sample mode, negative strides), padding (pads and crops), gather (kDEFAULT with 0/1
// elementwise dimension, kELEMENT, kND, negative indices), squeeze and unsqueeze, resize (every mode and coordinate
// transformation, scales or output sizes), scatter (kELEMENT, kND, unique indices); several types and empty tensors.
#include "cudaParity.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::ITensor;

std::vector<DataType> const kTYPES{DataType::kFLOAT, DataType::kHALF, DataType::kINT64, DataType::kBOOL,
    DataType::kINT8};

ITensor* input(INetworkDefinition& n, char const* name, DataType t, std::vector<int64_t> const& d)
{
    return n.addInput(name, t, dims(d));
}

nvinfer1::Permutation perm(std::vector<int32_t> const& order)
{
    nvinfer1::Permutation p{};
    for (size_t i = 0; i < order.size(); ++i)
    {
        p.order[i] = order[i];
    }
    return p;
}

//! Random valid indices in [-extent, extent) (negative ones count from the end).
HostTensor indices(DataType t, std::vector<int64_t> const& d, int64_t extent, std::mt19937& rng)
{
    HostTensor h(t, dims(d));
    for (int64_t i = 0; i < h.volume(); ++i)
    {
        h.set(i, static_cast<double>(std::uniform_int_distribution<int64_t>(-extent, extent - 1)(rng)));
    }
    return h;
}

TEST(CudaParity, Shuffle)
{
    for (DataType t : kTYPES)
    {
        // Reshape only.
        checkParity([&](INetworkDefinition& n) {
            auto* s = n.addShuffle(*input(n, "x", t, {4, 6, 5}));
            s->setReshapeDimensions(dims({2, 12, 5}));
            n.markOutput(*s->getOutput(0));
        });
        // First transpose only.
        checkParity([&](INetworkDefinition& n) {
            auto* s = n.addShuffle(*input(n, "x", t, {3, 7, 5, 2}));
            s->setFirstTranspose(perm({2, 0, 3, 1}));
            n.markOutput(*s->getOutput(0));
        });
        // Transpose, reshape, transpose (through the workspace).
        checkParity([&](INetworkDefinition& n) {
            auto* s = n.addShuffle(*input(n, "x", t, {3, 4, 10}));
            s->setFirstTranspose(perm({2, 0, 1}));
            s->setReshapeDimensions(dims({5, 2, 12}));
            s->setSecondTranspose(perm({1, 2, 0}));
            n.markOutput(*s->getOutput(0));
        });
        // Empty.
        checkParity([&](INetworkDefinition& n) {
            auto* s = n.addShuffle(*input(n, "x", t, {3, 0, 4}));
            s->setFirstTranspose(perm({2, 1, 0}));
            n.markOutput(*s->getOutput(0));
        });
    }
}

//! Transposes that keep the innermost dimensions in place move whole pieces of the contiguous runs (16, 8, 4 or 2
//! bytes by the run's size): attention's head split [B, S, H, D] -> [B, H, S, D], a run of 20 elements, one of 6.
TEST(CudaParity, ShuffleTransposeKeepingInnerDimensions)
{
    for (DataType t : kTYPES)
    {
        for (auto const& c : {std::make_pair(std::vector<int64_t>{2, 5, 3, 8}, std::vector<int32_t>{0, 2, 1, 3}),
                 std::make_pair(std::vector<int64_t>{2, 3, 4, 5}, std::vector<int32_t>{1, 0, 2, 3}),
                 std::make_pair(std::vector<int64_t>{3, 4, 6}, std::vector<int32_t>{1, 0, 2})})
        {
            checkParity([&](INetworkDefinition& n) {
                auto* s = n.addShuffle(*input(n, "x", t, c.first));
                s->setFirstTranspose(perm(c.second));
                n.markOutput(*s->getOutput(0));
            });
        }
    }
}

TEST(CudaParity, ConcatenationSqueezeUnsqueeze)
{
    for (DataType t : kTYPES)
    {
        for (int32_t axis = 0; axis < 3; ++axis)
        {
            checkParity([&](INetworkDefinition& n) {
                std::vector<int64_t> a{2, 3, 4};
                std::vector<int64_t> b{2, 3, 4};
                std::vector<int64_t> c{2, 3, 4};
                b[static_cast<size_t>(axis)] = 5;
                c[static_cast<size_t>(axis)] = 0; // an empty input
                ITensor* ins[] = {input(n, "a", t, a), input(n, "b", t, b), input(n, "c", t, c)};
                auto* l = n.addConcatenation(ins, 3);
                l->setAxis(axis);
                n.markOutput(*l->getOutput(0));
            });
        }
        checkParity([&](INetworkDefinition& n) {
            static int64_t const axesValues[] = {1};
            nvinfer1::Weights w{DataType::kINT64, axesValues, 1};
            ITensor* axes = n.addConstant(dims({1}), w)->getOutput(0);
            auto* sq = n.addSqueeze(*input(n, "x", t, {3, 1, 5}), *axes);
            n.markOutput(*sq->getOutput(0));
            auto* un = n.addUnsqueeze(*input(n, "y", t, {4, 6}), *axes);
            n.markOutput(*un->getOutput(0));
        });
    }
}

TEST(CudaParity, SliceEveryMode)
{
    for (int32_t mode = 0; mode < nvinfer1::EnumMax<nvinfer1::SampleMode>(); ++mode)
    {
        auto const m = static_cast<nvinfer1::SampleMode>(mode);
        bool const strict = m == nvinfer1::SampleMode::kSTRICT_BOUNDS;
        for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kUINT8})
        {
            SCOPED_TRACE("slice mode " + std::to_string(mode) + " type " + std::to_string(static_cast<int>(t)));
            checkParity([&](INetworkDefinition& n) {
                // In bounds for kSTRICT_BOUNDS; reaching outside (negative start, steps past the end) otherwise.
                auto* l = strict ? n.addSlice(*input(n, "x", t, {5, 8, 7}), dims({4, 1, 6}), dims({3, 4, 3}),
                                       dims({-1, 2, -2}))
                                 : n.addSlice(*input(n, "x", t, {5, 8, 7}), dims({-3, 1, 6}), dims({6, 5, 9}),
                                       dims({2, 3, -2}));
                l->setMode(m);
                n.markOutput(*l->getOutput(0));
            });
        }
    }
}

TEST(CudaParity, Padding)
{
    for (DataType t : {DataType::kFLOAT, DataType::kBF16, DataType::kINT64})
    {
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addPaddingNd(*input(n, "x", t, {2, 3, 5, 6}), dims({1, 2}), dims({2, -1}));
            n.markOutput(*l->getOutput(0));
        });
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addPaddingNd(*input(n, "x", t, {2, 3, 4, 4}), dims({-1, 0}), dims({-1, 3}));
            n.markOutput(*l->getOutput(0));
        });
    }
}

TEST(CudaParity, GatherEveryMode)
{
    std::mt19937 rng(42);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kBOOL})
    {
        for (DataType it : {DataType::kINT32, DataType::kINT64})
        {
            // kDEFAULT on every axis.
            for (int32_t axis = 0; axis < 3; ++axis)
            {
                std::vector<int64_t> const dataDims{4, 5, 6};
                ParityOptions o;
                o.inputs["i"] = indices(it, {2, 3}, dataDims[static_cast<size_t>(axis)], rng);
                checkParity([&](INetworkDefinition& n) {
                    auto* g = n.addGather(*input(n, "d", t, dataDims), *input(n, "i", it, {2, 3}), axis);
                    n.markOutput(*g->getOutput(0));
                }, o);
            }
            // kDEFAULT with one elementwise dimension.
            {
                ParityOptions o;
                o.inputs["i"] = indices(it, {3, 4}, 7, rng);
                checkParity([&](INetworkDefinition& n) {
                    auto* g = n.addGather(*input(n, "d", t, {3, 7, 2}), *input(n, "i", it, {3, 4}), 1);
                    g->setNbElementWiseDims(1);
                    n.markOutput(*g->getOutput(0));
                }, o);
            }
            // kELEMENT.
            {
                ParityOptions o;
                o.inputs["i"] = indices(it, {3, 4, 2}, 6, rng);
                checkParity([&](INetworkDefinition& n) {
                    auto* g = n.addGatherV2(*input(n, "d", t, {3, 6, 5}), *input(n, "i", it, {3, 4, 2}),
                        nvinfer1::GatherMode::kELEMENT);
                    g->setGatherAxis(1);
                    n.markOutput(*g->getOutput(0));
                }, o);
            }
            // kND with tuples of 2 over a batch dimension.
            {
                ParityOptions o;
                HostTensor idx(it, dims({2, 5, 2}));
                for (int64_t i = 0; i < idx.volume(); ++i)
                {
                    int64_t const extent = (i % 2 == 0) ? 3 : 4;
                    idx.set(i, static_cast<double>(std::uniform_int_distribution<int64_t>(-extent, extent - 1)(rng)));
                }
                o.inputs["i"] = idx;
                checkParity([&](INetworkDefinition& n) {
                    auto* g = n.addGatherV2(*input(n, "d", t, {2, 3, 4, 3}), *input(n, "i", it, {2, 5, 2}),
                        nvinfer1::GatherMode::kND);
                    g->setNbElementWiseDims(1);
                    n.markOutput(*g->getOutput(0));
                }, o);
            }
        }
    }
}

TEST(CudaParity, ResizeModes)
{
    using nvinfer1::InterpolationMode;
    using nvinfer1::ResizeCoordinateTransformation;
    for (int32_t mode = 0; mode < nvinfer1::EnumMax<InterpolationMode>(); ++mode)
    {
        for (int32_t transform = 0; transform < nvinfer1::EnumMax<ResizeCoordinateTransformation>(); ++transform)
        {
            for (bool byScales : {true, false})
            {
                for (bool exclude : {false, true})
                {
                    auto const m = static_cast<InterpolationMode>(mode);
                    std::vector<DataType> types{DataType::kFLOAT, DataType::kHALF};
                    if (m == InterpolationMode::kNEAREST)
                    {
                        types.push_back(DataType::kINT32); // nearest copies bits: any type
                    }
                    for (DataType t : types)
                    {
                        SCOPED_TRACE("resize mode " + std::to_string(mode) + " transform " + std::to_string(transform)
                            + " scales " + std::to_string(byScales) + " exclude " + std::to_string(exclude));
                        checkParity([&](INetworkDefinition& n) {
                            auto* l = n.addResize(*input(n, "x", t, {2, 3, 5, 4}));
                            if (byScales)
                            {
                                float const scales[] = {1.F, 1.F, 1.7F, 0.6F};
                                l->setScales(scales, 4);
                            }
                            else
                            {
                                l->setOutputDimensions(dims({2, 3, 9, 1}));
                            }
                            l->setResizeMode(m);
                            l->setCoordinateTransformation(static_cast<ResizeCoordinateTransformation>(transform));
                            l->setNearestRounding(nvinfer1::ResizeRoundMode::kHALF_UP);
                            l->setSelectorForSinglePixel(nvinfer1::ResizeSelector::kUPPER);
                            l->setCubicCoeff(-0.5F);
                            l->setExcludeOutside(exclude);
                            n.markOutput(*l->getOutput(0));
                        });
                    }
                }
            }
        }
    }
}

TEST(CudaParity, ScatterElementAndND)
{
    std::mt19937 rng(17);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT64, DataType::kBOOL})
    {
        for (DataType it : {DataType::kINT32, DataType::kINT64})
        {
            // kELEMENT along axis 1 of [3, 6, 4]: each (i, :, k) column gets a permutation prefix (no duplicates),
            // written half of the time as the negative equivalent.
            ParityOptions o;
            HostTensor idx(it, dims({3, 4, 4}));
            for (int64_t i = 0; i < 3; ++i)
            {
                for (int64_t k = 0; k < 4; ++k)
                {
                    std::vector<int64_t> perm{0, 1, 2, 3, 4, 5};
                    std::shuffle(perm.begin(), perm.end(), rng);
                    for (int64_t j = 0; j < 4; ++j)
                    {
                        int64_t const v = perm[static_cast<size_t>(j)];
                        idx.set((i * 4 + j) * 4 + k, static_cast<double>((v + j) % 2 == 0 ? v : v - 6));
                    }
                }
            }
            o.inputs["i"] = idx;
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addScatter(*input(n, "d", t, {3, 6, 4}), *input(n, "i", it, {3, 4, 4}),
                    *input(n, "u", t, {3, 4, 4}), nvinfer1::ScatterMode::kELEMENT);
                l->setAxis(1);
                n.markOutput(*l->getOutput(0));
            }, o);
            // kND: 3 distinct (row, column) tuples into [4, 5, 2], each updating a slice of 2.
            ParityOptions p;
            p.inputs["i"] = HostTensor::fromValues(it, dims({3, 2}), {3, -1, 0, 2, -4, 0});
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addScatter(*input(n, "d", t, {4, 5, 2}), *input(n, "i", it, {3, 2}),
                    *input(n, "u", t, {3, 2}), nvinfer1::ScatterMode::kND);
                n.markOutput(*l->getOutput(0));
            }, p);
        }
    }
}

} // namespace
} // namespace kiln::test::cuda
