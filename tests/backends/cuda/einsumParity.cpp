// Parity of the CUDA einsum kernel with the CPU reference: matrix products (plain and batched), transposes,
// diagonals, traces, full and partial reductions, outer products and a three-input contraction, in FLOAT, HALF and
// BF16, plus the kernel's refusal of more inputs than it supports (checked without a GPU).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::INetworkDefinition;
using nvinfer1::ITensor;

struct EinsumCase
{
    char const* equation;
    std::vector<std::vector<int64_t>> shapes;
};

TEST(CudaParity, EinsumEquations)
{
    std::vector<EinsumCase> const cases = {
        {"ij,jk->ik", {{3, 4}, {4, 5}}},
        {"bij,bjk->bik", {{2, 3, 6}, {2, 6, 4}}},
        {"bhqd,bhkd->bhqk", {{2, 2, 3, 8}, {2, 2, 5, 8}}},
        {"ij->ji", {{4, 7}}},
        {"ii->i", {{5, 5}}},
        {"ii", {{6, 6}}},
        {"ijk->", {{3, 4, 5}}},
        {"ijk->ik", {{3, 4, 5}}},
        {"i,j->ij", {{4}, {6}}},
        {"abc,cd,de->abe", {{2, 3, 4}, {4, 5}, {5, 3}}},
        {"ij,ij->i", {{5, 9}, {5, 9}}},
    };
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (EinsumCase const& c : cases)
        {
            SCOPED_TRACE(std::string(c.equation) + " type " + std::to_string(static_cast<int>(t)));
            checkParity([&](INetworkDefinition& n) {
                std::vector<ITensor*> ins;
                for (size_t i = 0; i < c.shapes.size(); ++i)
                {
                    ins.push_back(n.addInput(("x" + std::to_string(i)).c_str(), t, dims(c.shapes[i])));
                }
                auto* l = n.addEinsum(ins.data(), static_cast<int32_t>(ins.size()), c.equation);
                ASSERT_NE(l, nullptr);
                n.markOutput(*l->getOutput(0));
            });
        }
    }
}

TEST(CudaParity, EinsumRefusesTooManyInputs)
{
    // Nine inputs (the CUDA kernel takes up to eight): the error comes before any device work, so no GPU is needed.
    PlanNode node;
    node.kind = nvinfer1::LayerType::kEINSUM;
    node.name = "manyInputs";
    node.attrs.setString("equation", "a,b,c,d,e,f,g,h,i->abcdefghi");
    KernelSetup setup;
    setup.node = &node;
    std::vector<TensorView> ins(9);
    float dummy = 0.F;
    for (TensorView& v : ins)
    {
        v.data = &dummy;
        v.type = DataType::kFLOAT;
        v.dims = dims({1});
        setup.inputTypes.push_back(DataType::kFLOAT);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(1);
    }
    TensorView out;
    out.data = &dummy;
    out.type = DataType::kFLOAT;
    out.dims = dims({1, 1, 1, 1, 1, 1, 1, 1, 1});
    setup.outputTypes.push_back(DataType::kFLOAT);
    setup.outputRanks.push_back(9);
    auto kernel = ::kiln::cuda::cudaKernelFactory(nvinfer1::LayerType::kEINSUM)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    Status st = (*kernel)->reshape(ins, {out});
    st = st.isOk() ? (*kernel)->run(ins, {out}, RunContext{}) : st;
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("layer 'manyInputs' (Einsum): the CUDA kernel supports at most 8 inputs"),
        std::string::npos)
        << st.message();
}

} // namespace
} // namespace kiln::test::cuda
