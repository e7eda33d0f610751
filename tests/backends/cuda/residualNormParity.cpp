// Parity of the CUDA kernel of the residual-norm fusion ("fuse.residualNorm": x + r, then a layer norm over the last
// axis, with the sum as a second output when a later layer reads it) with the CPU kernel of the same node. The
// networks are built with KILN_FUSE=1; a CPU-only check first confirms that each one fused (fewer layers). Cases: the
// warp-per-row kernel (FP16/BF16 rows of 768 and 1,000 members, a residual of the input's shape, a bias row, a block
// repeating over the batch; the sum written or not) and the paths that add first (FP32, rows of 2,048 or of 100
// members: the sum into the output or into the workspace).
#include "cudaParity.h"

#include "common/scopedEnv.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::Weights;

struct NormCase
{
    DataType type{DataType::kHALF};
    int64_t channels{768};
    std::vector<int64_t> residual{2, 37, 768}; //!< dims of r; leading 1s broadcast
    bool residualConstant{false};              //!< r is a constant (a bias row) instead of input "r"
    bool sumReadLater{true};                   //!< z = sum * y reads the sum after the norm
};

NetworkFn residualNorm(NormCase const& c, std::vector<HostTensor>& store)
{
    std::mt19937 rng(91);
    std::vector<int64_t> const row{1, 1, c.channels};
    store.push_back(HostTensor::random(c.type, dims(row), rng, 0.5, 1.5));
    store.push_back(HostTensor::random(c.type, dims(row), rng, -1.0, 1.0));
    store.push_back(HostTensor::random(c.type, dims(c.residual), rng, -2.0, 2.0));
    auto const weights = [&store](size_t i) {
        return Weights{store[i].type, store[i].data(), store[i].volume()};
    };
    Weights const scale = weights(store.size() - 3);
    Weights const shift = weights(store.size() - 2);
    Weights const bias = weights(store.size() - 1);
    return [=](nvinfer1::INetworkDefinition& n) {
        auto* x = n.addInput("x", c.type, dims({2, 37, c.channels}));
        ITensor* r = c.residualConstant ? n.addConstant(dims(c.residual), bias)->getOutput(0)
                                        : n.addInput("r", c.type, dims(c.residual));
        auto* add = n.addElementWise(*x, *r, ElementWiseOperation::kSUM);
        auto* ln = n.addNormalizationV2(*add->getOutput(0), *n.addConstant(dims(row), scale)->getOutput(0),
            *n.addConstant(dims(row), shift)->getOutput(0), 1U << 2);
        n.markOutput(*ln->getOutput(0));
        if (c.sumReadLater)
        {
            n.markOutput(*n.addElementWise(*add->getOutput(0), *ln->getOutput(0), ElementWiseOperation::kPROD)
                              ->getOutput(0));
        }
    };
}

//! Layer norms compare float statistics (the warp kernel) with the CPU's double ones: one unit in the last place of
//! outputs of magnitude up to about 4.
ParityOptions normOptions()
{
    ParityOptions o;
    o.tolerance.fp32Atol = 1e-5;
    o.tolerance.fp32Rtol = 1e-5;
    o.tolerance.fp16Atol = 4e-3;
    o.tolerance.fp16Rtol = 2e-3;
    o.tolerance.bf16Atol = 3e-2;
    o.tolerance.bf16Rtol = 1.6e-2;
    return o;
}

void checkResidualNorm(NormCase const& c)
{
    SCOPED_TRACE(std::string(c.type == DataType::kFLOAT ? "FP32" : c.type == DataType::kHALF ? "FP16" : "BF16")
        + ", C = " + std::to_string(c.channels) + (c.sumReadLater ? ", sum read later" : ", sum not read")
        + (c.residualConstant ? ", constant residual" : ""));
    ScopedEnv const fuse("KILN_FUSE", "1");
    std::vector<HostTensor> store;
    store.reserve(3);
    NetworkFn const build = residualNorm(c, store);
    {
        NetworkRunner r(1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
        build(r.network());
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        EXPECT_EQ(r.engine().getNbLayers(), c.sumReadLater ? 2 : 1); // add + ln fused (then the product)
    }
    checkParity(build, normOptions());
}

TEST(CudaParity, FusedResidualLayerNormWarpRows)
{
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        for (bool later : {true, false})
        {
            NormCase c;
            c.type = t;
            c.sumReadLater = later;
            checkResidualNorm(c);
        }
        NormCase row; // a bias row
        row.type = t;
        row.residual = {1, 1, 768};
        row.residualConstant = true;
        checkResidualNorm(row);
        NormCase block; // [1, S, C] repeating over the batch
        block.type = t;
        block.residual = {1, 37, 768};
        checkResidualNorm(block);
        NormCase wide; // 1,000 members: the last lanes' vectors are partly absent
        wide.type = t;
        wide.channels = 1000;
        wide.residual = {2, 37, 1000};
        checkResidualNorm(wide);
    }
}

TEST(CudaParity, FusedResidualLayerNormAddsFirst)
{
    for (bool later : {true, false})
    {
        NormCase fp32; // FP32: the addition, then the row kernel
        fp32.type = DataType::kFLOAT;
        fp32.sumReadLater = later;
        checkResidualNorm(fp32);
        NormCase fp32Row = fp32;
        fp32Row.residual = {1, 1, 768};
        fp32Row.residualConstant = true;
        checkResidualNorm(fp32Row);
        NormCase longRows; // 2,048 members: beyond the warp kernel
        longRows.channels = 2048;
        longRows.residual = {2, 37, 2048};
        longRows.sumReadLater = later;
        checkResidualNorm(longRows);
        NormCase odd; // 100 members: not a multiple of 8
        odd.type = DataType::kBF16;
        odd.channels = 100;
        odd.residual = {1, 1, 100};
        odd.sumReadLater = later;
        checkResidualNorm(odd);
    }
}

} // namespace
} // namespace kiln::test::cuda
