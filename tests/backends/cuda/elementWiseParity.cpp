// Parity of the CUDA elementwise-family kernels with the CPU reference: elementwise (every operation, broadcasting,
// float/int/bool types, empty tensors), unary, activation, cast, select, parametric ReLU, identity, constant, fill
// and shape. Also the kernel table and the factories' error paths, which need no GPU.
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
using nvinfer1::ElementWiseOperation;
using nvinfer1::INetworkDefinition;
using nvinfer1::ITensor;
using nvinfer1::UnaryOperation;

std::vector<DataType> const kFLOAT_TYPES{DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

struct ShapePair
{
    std::vector<int64_t> a;
    std::vector<int64_t> b;
};
// Same shapes, broadcasting both ways, a size-1 tensor, and an empty tensor.
std::vector<ShapePair> const kSHAPES{{{2, 3, 5}, {2, 3, 5}}, {{4, 1, 6}, {1, 3, 6}}, {{1}, {7}},
    {{3, 0, 2}, {3, 1, 2}}, {{2, 17, 33}, {2, 17, 1}}};

ITensor* input(INetworkDefinition& n, char const* name, DataType t, std::vector<int64_t> const& d)
{
    return n.addInput(name, t, dims(d));
}

TEST(CudaParity, ElementWiseArithmetic)
{
    std::vector<ElementWiseOperation> const ops{ElementWiseOperation::kSUM, ElementWiseOperation::kPROD,
        ElementWiseOperation::kMAX, ElementWiseOperation::kMIN, ElementWiseOperation::kSUB, ElementWiseOperation::kDIV,
        ElementWiseOperation::kPOW, ElementWiseOperation::kFLOOR_DIV};
    std::vector<DataType> types = kFLOAT_TYPES;
    types.push_back(DataType::kINT32);
    types.push_back(DataType::kINT64);
    for (ElementWiseOperation op : ops)
    {
        for (DataType t : types)
        {
            for (ShapePair const& s : kSHAPES)
            {
                SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)) + " type " + std::to_string(static_cast<int>(t))
                    + " shapes " + dimsString(dims(s.a)) + " " + dimsString(dims(s.b)));
                ParityOptions o;
                if (op == ElementWiseOperation::kPOW)
                {
                    o.lo = t == DataType::kINT32 || t == DataType::kINT64 ? -3.0 : 0.1; // exponents stay small
                    o.hi = 3.0;
                }
                else
                {
                    o.lo = -9.0;
                    o.hi = 9.0;
                }
                checkParity([&](INetworkDefinition& n) {
                    auto* l = n.addElementWise(*input(n, "a", t, s.a), *input(n, "b", t, s.b), op);
                    n.markOutput(*l->getOutput(0));
                }, o);
            }
        }
    }
}

TEST(CudaParity, ElementWiseCompareAndLogic)
{
    std::vector<DataType> types = kFLOAT_TYPES;
    types.push_back(DataType::kINT32);
    types.push_back(DataType::kINT64);
    for (ElementWiseOperation op :
        {ElementWiseOperation::kEQUAL, ElementWiseOperation::kGREATER, ElementWiseOperation::kLESS})
    {
        for (DataType t : types)
        {
            for (ShapePair const& s : kSHAPES)
            {
                ParityOptions o;
                o.lo = -3.0; // few distinct values, so kEQUAL is often true
                o.hi = 3.0;
                checkParity([&](INetworkDefinition& n) {
                    ITensor* a = input(n, "a", t, s.a);
                    // Round float inputs through a cast to INT32 and back so that equal values occur.
                    auto* l = n.addElementWise(*a, *input(n, "b", t, s.b), op);
                    n.markOutput(*l->getOutput(0));
                }, o);
            }
        }
    }
    for (ElementWiseOperation op : {ElementWiseOperation::kAND, ElementWiseOperation::kOR, ElementWiseOperation::kXOR})
    {
        for (ShapePair const& s : kSHAPES)
        {
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addElementWise(*input(n, "a", DataType::kBOOL, s.a), *input(n, "b", DataType::kBOOL, s.b), op);
                n.markOutput(*l->getOutput(0));
            });
        }
    }
}

TEST(CudaParity, Unary)
{
    for (int32_t op = 0; op < nvinfer1::EnumMax<UnaryOperation>(); ++op)
    {
        auto const u = static_cast<UnaryOperation>(op);
        if (u == UnaryOperation::kNOT)
        {
            continue; // BOOL only, below
        }
        for (DataType t : kFLOAT_TYPES)
        {
            SCOPED_TRACE("unary op " + std::to_string(op) + " type " + std::to_string(static_cast<int>(t)));
            ParityOptions o;
            o.lo = -3.0;
            o.hi = 3.0;
            if (u == UnaryOperation::kACOSH)
            {
                o.lo = 1.0;
                o.hi = 5.0;
            }
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addUnary(*input(n, "x", t, {3, 4, 37}), u);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
    }
    for (UnaryOperation u : {UnaryOperation::kABS, UnaryOperation::kNEG, UnaryOperation::kSIGN})
    {
        for (DataType t : {DataType::kINT32, DataType::kINT64})
        {
            ParityOptions o;
            o.lo = -100.0;
            o.hi = 100.0;
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addUnary(*input(n, "x", t, {5, 0, 3}), u); // empty
                n.markOutput(*l->getOutput(0));
                auto* m = n.addUnary(*input(n, "y", t, {6, 41}), u);
                n.markOutput(*m->getOutput(0));
            }, o);
        }
    }
    checkParity([&](INetworkDefinition& n) {
        auto* l = n.addUnary(*input(n, "x", DataType::kBOOL, {9, 13}), UnaryOperation::kNOT);
        n.markOutput(*l->getOutput(0));
    });
}

TEST(CudaParity, Activation)
{
    for (int32_t a = 0; a < nvinfer1::EnumMax<ActivationType>(); ++a)
    {
        for (DataType t : kFLOAT_TYPES)
        {
            SCOPED_TRACE("activation " + std::to_string(a) + " type " + std::to_string(static_cast<int>(t)));
            ParityOptions o;
            o.lo = -4.0;
            o.hi = 4.0;
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addActivation(*input(n, "x", t, {2, 5, 29}), static_cast<ActivationType>(a));
                l->setAlpha(0.37F);
                l->setBeta(1.6F);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
    }
    ParityOptions o;
    o.lo = -50.0;
    o.hi = 50.0;
    checkParity([&](INetworkDefinition& n) {
        auto* l = n.addActivation(*input(n, "x", DataType::kINT32, {4, 33}), ActivationType::kRELU);
        n.markOutput(*l->getOutput(0));
    }, o);
}

TEST(CudaParity, CastEveryPair)
{
    std::vector<DataType> const types{DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8,
        DataType::kUINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL};
    for (DataType from : types)
    {
        for (DataType to : types)
        {
            SCOPED_TRACE("cast " + std::to_string(static_cast<int>(from)) + " -> " + std::to_string(static_cast<int>(to)));
            ParityOptions o;
            o.lo = from == DataType::kUINT8 ? 0.0 : -300.0; // beyond the 8-bit ranges: saturation and wrapping
            o.hi = 300.0;
            if (from == DataType::kINT8)
            {
                o.lo = -128.0;
                o.hi = 127.0;
            }
            else if (from == DataType::kUINT8)
            {
                o.hi = 255.0;
            }
            checkParity([&](INetworkDefinition& n) {
                auto* l = n.addCast(*input(n, "x", from, {3, 67}), to);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
    }
}

TEST(CudaParity, SelectAndParametricReLU)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addSelect(*input(n, "c", DataType::kBOOL, {4, 1, 7}), *input(n, "t", t, {1, 5, 7}),
                *input(n, "e", t, {4, 5, 1}));
            n.markOutput(*l->getOutput(0));
        });
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addSelect(*input(n, "c", DataType::kBOOL, {0, 3}), *input(n, "t", t, {0, 3}),
                *input(n, "e", t, {1, 3}));
            n.markOutput(*l->getOutput(0));
        });
    }
    for (DataType t : kFLOAT_TYPES)
    {
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addParametricReLU(*input(n, "x", t, {2, 6, 9}), *input(n, "s", t, {1, 6, 1}));
            n.markOutput(*l->getOutput(0));
        });
    }
}

TEST(CudaParity, IdentityAndConstant)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT64, DataType::kBOOL})
    {
        checkParity([&](INetworkDefinition& n) {
            auto* l = n.addIdentity(*input(n, "x", t, {7, 19}));
            n.markOutput(*l->getOutput(0));
        });
    }
    std::vector<float> values(2 * 3 * 11);
    std::mt19937 rng(7);
    for (float& v : values)
    {
        v = std::uniform_real_distribution<float>(-5.F, 5.F)(rng);
    }
    checkParity([&](INetworkDefinition& n) {
        nvinfer1::Weights w{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
        auto* c = n.addConstant(dims({2, 3, 11}), w);
        auto* l = n.addElementWise(*input(n, "x", DataType::kFLOAT, {2, 3, 11}), *c->getOutput(0),
            ElementWiseOperation::kSUM);
        n.markOutput(*l->getOutput(0));
    });
    // The constant node on its own (the builder may fold the one above into its consumer).
    PlanNode node;
    node.kind = nvinfer1::LayerType::kCONSTANT;
    node.name = "constant";
    WeightsView w{values.data(), DataType::kFLOAT, static_cast<int64_t>(values.size())};
    checkKernel(node, {}, {HostTensor(DataType::kFLOAT, dims({6, 11}))}, {w});
    checkKernel(node, {}, {HostTensor(DataType::kHALF, dims({66}))}, {w});
}

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

TEST(CudaParity, ScaleEveryMode)
{
    std::mt19937 rng(11);
    std::vector<float> shift(5 * 6);
    std::vector<float> scale(5 * 6);
    std::vector<float> power(5 * 6);
    for (size_t i = 0; i < shift.size(); ++i)
    {
        shift[i] = std::uniform_real_distribution<float>(-1.F, 1.F)(rng);
        scale[i] = std::uniform_real_distribution<float>(0.5F, 2.F)(rng);
        power[i] = std::uniform_real_distribution<float>(1.F, 3.F)(rng);
    }
    for (auto mode : {nvinfer1::ScaleMode::kUNIFORM, nvinfer1::ScaleMode::kCHANNEL, nvinfer1::ScaleMode::kELEMENTWISE})
    {
        int64_t const count = mode == nvinfer1::ScaleMode::kUNIFORM ? 1 : (mode == nvinfer1::ScaleMode::kCHANNEL ? 5 : 30);
        for (bool withPower : {true, false}) // an absent weights slot is an identity
        {
            DataType const t = DataType::kFLOAT;
            ParityOptions o;
            o.lo = 0.5; // positive bases for the power
            o.hi = 2.0;
            checkParity([&](INetworkDefinition& n) {
                nvinfer1::Weights const sh{DataType::kFLOAT, shift.data(), count};
                nvinfer1::Weights const sc{DataType::kFLOAT, scale.data(), count};
                nvinfer1::Weights const pw{DataType::kFLOAT, power.data(), count};
                nvinfer1::Weights const none{DataType::kFLOAT, nullptr, 0};
                auto* l = n.addScaleNd(*input(n, "x", t, {2, 5, 6}), mode, sh, sc, withPower ? pw : none, 1);
                n.markOutput(*l->getOutput(0));
            }, o);
        }
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
