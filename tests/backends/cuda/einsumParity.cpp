// The CUDA einsum kernel's refusal of more inputs than it supports (checked without a GPU). Its results are checked
// against the reference by the einsum layer tests' CUDA instances (tests/layers/einsumLayerTest.cpp, kilnGpuTests).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;

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
