// Parity of the CUDA fill and shape kernels with the CPU reference (node by node: the builder folds these kinds away
// in networks), the parity harness's self-test, and the kernel table and the factories' error paths, which need no
// GPU. The other elementwise-family kinds (elementwise, unary, activation, cast, select, parametric ReLU, identity,
// constant, scale) are checked by the layer tests' CUDA instances (tests/layers, kilnGpuTests).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

TEST(CudaParity, FillAndShape)
{
    PlanNode fill;
    fill.kind = nvinfer1::LayerType::kFILL;
    fill.name = "fill";
    fill.attrs.setInt("seed", 99);
    fill.attrs.setFloat("alpha", -1.5);
    fill.attrs.setFloat("beta", 0.25);
    for (auto op : {nvinfer1::FillOperation::kLINSPACE, nvinfer1::FillOperation::kRANDOM_UNIFORM,
             nvinfer1::FillOperation::kRANDOM_NORMAL})
    {
        fill.attrs.setInt("op", static_cast<int64_t>(op));
        for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32})
        {
            checkKernel(fill, {}, {HostTensor(t, dims({3, 5, 41}))});
        }
    }
    // Integer linspace from integer attributes, and from dynamic alpha/beta inputs on the device.
    fill.attrs.setInt("op", static_cast<int64_t>(nvinfer1::FillOperation::kLINSPACE));
    fill.attrs.setInt("int_params", 1);
    fill.attrs.setInt("alpha_int", -7);
    fill.attrs.setInt("beta_int", 3);
    checkKernel(fill, {}, {HostTensor(DataType::kINT64, dims({4, 9}))});
    PlanNode dyn = fill;
    HostTensor dummy(DataType::kINT32, dims({0}));
    checkKernel(dyn, {dummy, HostTensor::fromValues(DataType::kINT32, dims({}), {5}),
        HostTensor::fromValues(DataType::kINT32, dims({2}), {-2, 11})}, {HostTensor(DataType::kINT32, dims({3, 4}))});
    checkKernel(dyn, {dummy, HostTensor::fromValues(DataType::kFLOAT, dims({}), {0.5}),
        HostTensor::fromValues(DataType::kFLOAT, dims({2}), {-0.25, 1.5})}, {HostTensor(DataType::kFLOAT, dims({3, 4}))});

    PlanNode shape;
    shape.kind = nvinfer1::LayerType::kSHAPE;
    shape.name = "shape";
    for (DataType t : {DataType::kINT32, DataType::kINT64})
    {
        checkKernel(shape, {HostTensor(DataType::kFLOAT, dims({3, 0, 7, 2}))}, {HostTensor(t, dims({4}))});
    }
}

TEST(CudaParity, HarnessDetectsAMismatch)
{
    KILN_REQUIRE_GPU();
    PlanNode node;
    node.kind = nvinfer1::LayerType::kUNARY;
    node.name = "selftest";
    node.attrs.setInt("operation", static_cast<int64_t>(UnaryOperation::kNEG));
    std::mt19937 rng(3);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, dims({4, 5}), rng);
    EXPECT_TRUE(checkKernel(node, {x}, {HostTensor(DataType::kFLOAT, dims({4, 5}))}));
    setPerturbExpectedForSelfTest(true);
    EXPECT_NONFATAL_FAILURE(checkKernel(node, {x}, {HostTensor(DataType::kFLOAT, dims({4, 5}))}), "elements differ");
    setPerturbExpectedForSelfTest(false);
}

// ------------------------------------------------------------------------------------------------------------
// Kernel table and factory errors (no GPU needed).
// ------------------------------------------------------------------------------------------------------------

KernelSetup setupFor(PlanNode const& node, std::vector<DataType> ins, std::vector<DataType> outs)
{
    KernelSetup s;
    s.node = &node;
    s.inputTypes = ins;
    s.inputPresent.assign(ins.size(), true);
    s.inputRanks.assign(ins.size(), 2);
    s.outputTypes = outs;
    s.outputRanks.assign(outs.size(), 2);
    return s;
}

TEST(CudaKernelTable, ListsTheImplementedKindsWithTactics)
{
    using nvinfer1::LayerType;
    for (LayerType k : {LayerType::kELEMENTWISE, LayerType::kUNARY, LayerType::kACTIVATION, LayerType::kCAST,
             LayerType::kSELECT, LayerType::kPARAMETRIC_RELU, LayerType::kIDENTITY, LayerType::kCONSTANT,
             LayerType::kFILL, LayerType::kSHAPE, LayerType::kSCALE, LayerType::kSHUFFLE, LayerType::kSLICE,
             LayerType::kPADDING, LayerType::kGATHER, LayerType::kCONCATENATION, LayerType::kSQUEEZE,
             LayerType::kUNSQUEEZE, LayerType::kREDUCE, LayerType::kSOFTMAX, LayerType::kNORMALIZATION,
             LayerType::kTOPK, LayerType::kRESIZE, LayerType::kSCATTER, LayerType::kCUMULATIVE})
    {
        ASSERT_NE(::kiln::cuda::cudaKernelFactory(k), nullptr) << static_cast<int>(k);
        auto tactics = ::kiln::cuda::cudaKernelTactics(k);
        ASSERT_NE(tactics, nullptr);
        PlanNode node;
        node.kind = k;
        EXPECT_EQ(tactics(setupFor(node, {}, {})), std::vector<std::string>{"kiln"});
    }
    // Plugins are not run by the CUDA kernel table (the runtime calls their enqueue directly, later).
    EXPECT_EQ(::kiln::cuda::cudaKernelFactory(LayerType::kPLUGIN_V3), nullptr);
    EXPECT_EQ(::kiln::cuda::cudaKernelTactics(LayerType::kPLUGIN_V3), nullptr);
}

TEST(CudaKernelTable, FactoriesRejectBadNodes)
{
    using nvinfer1::LayerType;
    PlanNode node;
    node.name = "bad";
    node.kind = LayerType::kELEMENTWISE;
    node.attrs.setInt("operation", 99);
    auto r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {DataType::kFLOAT, DataType::kFLOAT}, {DataType::kFLOAT}));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("ElementWise node 'bad': invalid operation 99"), std::string::npos)
        << r.status().message();

    node.attrs.setInt("operation", 0);
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {DataType::kFLOAT}, {DataType::kFLOAT}));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("expected 2 input(s)"), std::string::npos) << r.status().message();

    node.kind = LayerType::kUNARY;
    node.attrs.setInt("operation", 0);
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {DataType::kFP8}, {DataType::kFLOAT}));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("unsupported types"), std::string::npos) << r.status().message();

    node.kind = LayerType::kACTIVATION;
    node.attrs.setInt("type", static_cast<int64_t>(ActivationType::kTANH));
    node.attrs.setFloat("alpha", 0.0);
    node.attrs.setFloat("beta", 0.0);
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {DataType::kINT32}, {DataType::kINT32}));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("Activation node 'bad': unsupported types"), std::string::npos);

    node.kind = LayerType::kIDENTITY;
    node.attrs.setInt("reformat", 1); // reformat nodes run on the GPU (controlParity.cpp), DLA formats do not
    node.attrs.setInt("outFormat", static_cast<int64_t>(nvinfer1::TensorFormat::kDLA_HWC4));
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {DataType::kFLOAT}, {DataType::kHALF}));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_NE(r.status().message().find("cannot convert format"), std::string::npos) << r.status().message();

    node.kind = LayerType::kCAST;
    node.attrs.setInt("toType", 1000);
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {DataType::kFLOAT}, {DataType::kHALF}));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("invalid target type 1000"), std::string::npos);

    node.kind = LayerType::kCONSTANT;
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {}, {DataType::kFLOAT}));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("missing weights slot"), std::string::npos);

    node.kind = LayerType::kFILL;
    node.attrs = Attributes();
    r = ::kiln::cuda::cudaKernelFactory(node.kind)(setupFor(node, {}, {DataType::kFLOAT}));
    ASSERT_FALSE(r.isOk()); // no "op" attribute
}

} // namespace
} // namespace kiln::test::cuda
