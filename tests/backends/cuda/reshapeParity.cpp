// The create → reshape → run lifecycle of the CUDA kernels: ONE kernel object is reshaped to new shapes and back
// (its per-shape plans: cuBLASLt descriptors and algorithms, cuDNN descriptors and algorithms, index maps), and each
// reshape is followed by runs on fresh random data at new addresses, compared with host references written here.
// A shape that does not fit the node fails in reshape, naming the node.
#include "backends/cuda/cudaKernel.h"
#include "backends/cuda/cudaLibraries.h"
#include "cudaParity.h"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <random>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

//! Device copies of host tensors, freed at the end of the test.
class DeviceTensors
{
public:
    ~DeviceTensors()
    {
        for (void* p : mPointers)
        {
            (void) cudaFree(p);
        }
    }
    //! A device view of `h` (uploaded) or, with `poison`, of its shape filled with 0xA5 bytes; `offset` bytes after
    //! the start of its allocation (256-byte aligned), to give a run less aligned buffers.
    TensorView add(HostTensor const& h, bool poison = false, size_t offset = 0)
    {
        TensorView v;
        v.type = h.type;
        v.dims = h.dims;
        size_t const bytes = h.bytes.size();
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, bytes + offset + 1), cudaSuccess);
        mPointers.push_back(p);
        void* const at = static_cast<uint8_t*>(p) + offset;
        EXPECT_EQ(poison ? cudaMemset(at, 0xA5, bytes) : cudaMemcpy(at, h.data(), bytes, cudaMemcpyHostToDevice),
            cudaSuccess);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the memset is asynchronous to the kernels' streams
        v.data = at;
        return v;
    }
    void* allocate(int64_t bytes)
    {
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, static_cast<size_t>(bytes > 0 ? bytes : 1)), cudaSuccess);
        mPointers.push_back(p);
        return p;
    }

private:
    std::vector<void*> mPointers;
};

HostTensor download(TensorView const& v)
{
    HostTensor h(v.type, v.dims);
    EXPECT_EQ(cudaMemcpy(h.data(), v.data, h.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
}

::testing::AssertionResult near(HostTensor const& actual, HostTensor const& expected, double tol)
{
    for (int64_t i = 0; i < expected.volume(); ++i)
    {
        double const a = actual.at(i);
        double const e = expected.at(i);
        if (!(std::fabs(a - e) <= tol * (1.0 + std::fabs(e))))
        {
            return ::testing::AssertionFailure() << "element " << i << ": " << a << " vs " << e;
        }
    }
    return ::testing::AssertionSuccess();
}

//! One kernel of a node, created as the CUDA session creates it, with its library handles.
struct KernelUnderTest
{
    ::kiln::cuda::CudaLibraries libraries;
    cudaStream_t stream{nullptr};
    std::unique_ptr<Kernel> kernel;

    bool create(KernelSetup setup)
    {
        setup.sessionState = &libraries;
        auto k = ::kiln::cuda::cudaKernelFactory(setup.node->kind)(setup);
        EXPECT_TRUE(k.isOk()) << k.status().message();
        if (!k.isOk())
        {
            return false;
        }
        kernel = std::move(k).value();
        return cudaStreamCreate(&stream) == cudaSuccess;
    }
    ~KernelUnderTest()
    {
        kernel.reset();
        if (stream != nullptr)
        {
            (void) cudaStreamDestroy(stream);
        }
    }
    //! Reshape (when asked) and run on the given views; true when both succeed and the stream finishes.
    bool run(std::vector<TensorView> const& ins, std::vector<TensorView> const& outs, DeviceTensors& memory,
        bool reshape)
    {
        Status st = reshape ? kernel->reshape(ins, outs) : Status::ok();
        int64_t const workspace = kernel->workspaceSize(ins, outs);
        RunContext const ctx{stream, workspace > 0 ? memory.allocate(workspace) : nullptr, workspace};
        st = st.isOk() ? kernel->run(ins, outs, ctx) : st;
        EXPECT_TRUE(st.isOk()) << st.message();
        return st.isOk() && cudaStreamSynchronize(stream) == cudaSuccess;
    }
};

KernelSetup setupOf(PlanNode const& node, std::vector<DataType> const& inputs, std::vector<int32_t> const& ranks,
    DataType output, int32_t outputRank)
{
    KernelSetup s;
    s.node = &node;
    s.inputTypes = inputs;
    s.inputPresent.assign(inputs.size(), true);
    s.inputRanks = ranks;
    s.outputTypes = {output};
    s.outputRanks = {outputRank};
    return s;
}

//! Runs `test` for each shape case in order: a reshape and a run, then a second run on new buffers without a reshape.
template <typename Case, typename Fn>
void forEachShape(std::vector<Case> const& cases, Fn&& test)
{
    for (size_t i = 0; i < cases.size(); ++i)
    {
        SCOPED_TRACE("shape case " + std::to_string(i));
        test(cases[i], true);
        test(cases[i], false);
    }
}

TEST(CudaReshape, ElementWiseBroadcastMapFollowsTheShapes)
{
    KILN_REQUIRE_GPU();
    PlanNode node;
    node.kind = LayerType::kELEMENTWISE;
    node.name = "sum";
    node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::ElementWiseOperation::kSUM));
    KernelUnderTest k;
    ASSERT_TRUE(k.create(setupOf(node, {DataType::kFLOAT, DataType::kFLOAT}, {3, 3}, DataType::kFLOAT, 3)));
    struct Shapes
    {
        std::vector<int64_t> a;
        std::vector<int64_t> b;
        std::vector<int64_t> out;
    };
    std::vector<Shapes> const cases
        = {{{2, 3, 4}, {1, 3, 1}, {2, 3, 4}}, {{5, 1, 7}, {5, 6, 7}, {5, 6, 7}}, {{2, 3, 4}, {1, 3, 1}, {2, 3, 4}}};
    std::mt19937 rng(11);
    DeviceTensors memory;
    forEachShape(cases, [&](Shapes const& c, bool reshape) {
        HostTensor const a = HostTensor::random(DataType::kFLOAT, dims(c.a), rng);
        HostTensor const b = HostTensor::random(DataType::kFLOAT, dims(c.b), rng);
        HostTensor expected(DataType::kFLOAT, dims(c.out));
        for (int64_t i = 0; i < expected.volume(); ++i)
        {
            int64_t const i2 = i % c.out[2];
            int64_t const i1 = (i / c.out[2]) % c.out[1];
            int64_t const i0 = i / (c.out[2] * c.out[1]);
            auto const at = [&](HostTensor const& t, std::vector<int64_t> const& d) {
                return t.at(((i0 % d[0]) * d[1] + (i1 % d[1])) * d[2] + (i2 % d[2]));
            };
            expected.set(i, at(a, c.a) + at(b, c.b));
        }
        TensorView const out = memory.add(expected, true);
        ASSERT_TRUE(k.run({memory.add(a), memory.add(b)}, {out}, memory, reshape));
        EXPECT_TRUE(near(download(out), expected, 1e-6));
    });
}

//! A matrix multiply node of tactic "cublaslt": A [b0, b1, M, K] times B [b0', b1', N, K] transposed.
PlanNode matmulNode(std::string const& name)
{
    PlanNode node;
    node.kind = LayerType::kMATRIX_MULTIPLY;
    node.name = name;
    node.tactic = "cublaslt";
    node.attrs.setInt("op0", static_cast<int64_t>(nvinfer1::MatrixOperation::kNONE));
    node.attrs.setInt("op1", static_cast<int64_t>(nvinfer1::MatrixOperation::kTRANSPOSE));
    return node;
}

struct MatmulProblem
{
    std::array<int64_t, 2> batchA;
    std::array<int64_t, 2> batchB;
    int64_t m;
    int64_t n;
    int64_t k;
};

//! Random operands of `p` and the host reference of matmulNode's product (batch dims of extent 1 broadcast).
std::array<HostTensor, 3> matmulCase(MatmulProblem const& p, DataType type, std::mt19937& rng)
{
    std::array<int64_t, 2> const batch{std::max(p.batchA[0], p.batchB[0]), std::max(p.batchA[1], p.batchB[1])};
    HostTensor const a = HostTensor::random(type, dims({p.batchA[0], p.batchA[1], p.m, p.k}), rng);
    HostTensor const b = HostTensor::random(type, dims({p.batchB[0], p.batchB[1], p.n, p.k}), rng);
    HostTensor expected(type, dims({batch[0], batch[1], p.m, p.n}));
    auto const matrix = [](std::array<int64_t, 2> const& d, int64_t i0, int64_t i1) {
        return (d[0] == 1 ? 0 : i0) * d[1] + (d[1] == 1 ? 0 : i1);
    };
    for (int64_t i0 = 0; i0 < batch[0]; ++i0)
    {
        for (int64_t i1 = 0; i1 < batch[1]; ++i1)
        {
            int64_t const ma = matrix(p.batchA, i0, i1);
            int64_t const mb = matrix(p.batchB, i0, i1);
            int64_t const mo = i0 * batch[1] + i1;
            for (int64_t i = 0; i < p.m; ++i)
            {
                for (int64_t j = 0; j < p.n; ++j)
                {
                    double acc = 0.0;
                    for (int64_t q = 0; q < p.k; ++q)
                    {
                        acc += a.at((ma * p.m + i) * p.k + q) * b.at((mb * p.n + j) * p.k + q); // B transposed
                    }
                    expected.set((mo * p.m + i) * p.n + j, acc);
                }
            }
        }
    }
    return {a, b, expected};
}

TEST(CudaReshape, MatrixMultiplyCublasLtPlanFollowsTheShapes)
{
    KILN_REQUIRE_GPU();
    PlanNode const node = matmulNode("mm");
    KernelUnderTest k;
    ASSERT_TRUE(k.create(setupOf(node, {DataType::kFLOAT, DataType::kFLOAT}, {4, 4}, DataType::kFLOAT, 4)));
    // A uniform batch (one strided call), B broadcast, a batch that is neither (one call per matrix), other extents,
    // then the first problem again.
    std::vector<MatmulProblem> const cases = {{{2, 2}, {2, 2}, 8, 4, 16}, {{3, 2}, {1, 1}, 5, 9, 6},
        {{2, 1}, {1, 3}, 7, 5, 12}, {{1, 1}, {1, 1}, 33, 17, 40}, {{2, 2}, {2, 2}, 8, 4, 16}};
    std::mt19937 rng(12);
    DeviceTensors memory;
    forEachShape(cases, [&](MatmulProblem const& p, bool reshape) {
        auto const [a, b, expected] = matmulCase(p, DataType::kFLOAT, rng);
        TensorView const out = memory.add(expected, true);
        ASSERT_TRUE(k.run({memory.add(a), memory.add(b)}, {out}, memory, reshape));
        EXPECT_TRUE(near(download(out), expected, 1e-4));
    });
}

TEST(CudaReshape, MatrixMultiplyRunOnLessAlignedBuffersThanItsPlan)
{
    // The cuBLASLt plan of a reshape on 256-byte aligned buffers must not run on buffers aligned to one FP16 element:
    // such a run makes (once) and uses a plan for that alignment.
    KILN_REQUIRE_GPU();
    PlanNode const node = matmulNode("mmHalf");
    KernelUnderTest k;
    ASSERT_TRUE(k.create(setupOf(node, {DataType::kHALF, DataType::kHALF}, {4, 4}, DataType::kHALF, 4)));
    std::mt19937 rng(14);
    DeviceTensors memory;
    bool first = true;
    for (size_t const offset : {size_t{0}, size_t{2}, size_t{2}, size_t{0}})
    {
        SCOPED_TRACE("byte offset " + std::to_string(offset));
        auto const [a, b, expected] = matmulCase({{1, 1}, {1, 1}, 24, 40, 32}, DataType::kHALF, rng);
        TensorView const out = memory.add(expected, true, offset);
        // Only the first pass reshapes (aligned buffers); the others run on the alignment they get.
        ASSERT_TRUE(k.run({memory.add(a, false, offset), memory.add(b, false, offset)}, {out}, memory, first));
        EXPECT_TRUE(near(download(out), expected, 1e-2));
        first = false;
    }
}

TEST(CudaReshape, ConvolutionPlanFollowsTheShapes)
{
    KILN_REQUIRE_GPU();
    int64_t const c = 3;
    int64_t const k = 4;
    PlanNode node;
    node.kind = LayerType::kCONVOLUTION;
    node.name = "conv";
    node.attrs.setInt("nbOutputMaps", k);
    node.attrs.setInt("nbGroups", 1);
    node.attrs.setInts("kernelSize", {3, 3});
    node.attrs.setInts("stride", {1, 1});
    node.attrs.setInts("dilation", {1, 1});
    node.attrs.setInts("prePadding", {1, 1});
    node.attrs.setInts("postPadding", {1, 1});
    node.attrs.setInt("paddingMode", static_cast<int64_t>(nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN));
    node.inputs = {0};
    node.outputs = {1};
    std::mt19937 rng(13);
    HostTensor const kernel = HostTensor::random(DataType::kFLOAT, dims({k, c, 3, 3}), rng);
    HostTensor const bias = HostTensor::random(DataType::kFLOAT, dims({k}), rng);
    KernelSetup setup = setupOf(node, {DataType::kFLOAT}, {4}, DataType::kFLOAT, 4);
    setup.weights = {WeightsView{kernel.data(), DataType::kFLOAT, kernel.volume()},
        WeightsView{bias.data(), DataType::kFLOAT, bias.volume()}};
    KernelUnderTest kut;
    ASSERT_TRUE(kut.create(setup));
    struct Image
    {
        int64_t n;
        int64_t h;
        int64_t w;
    };
    std::vector<Image> const cases = {{1, 8, 8}, {2, 5, 7}, {1, 8, 8}};
    DeviceTensors memory;
    forEachShape(cases, [&](Image const& im, bool reshape) {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, dims({im.n, c, im.h, im.w}), rng);
        HostTensor expected(DataType::kFLOAT, dims({im.n, k, im.h, im.w}));
        for (int64_t b = 0; b < im.n; ++b)
        {
            for (int64_t o = 0; o < k; ++o)
            {
                for (int64_t y = 0; y < im.h; ++y)
                {
                    for (int64_t xo = 0; xo < im.w; ++xo)
                    {
                        double acc = bias.at(o);
                        for (int64_t ci = 0; ci < c; ++ci)
                        {
                            for (int64_t ky = 0; ky < 3; ++ky)
                            {
                                for (int64_t kx = 0; kx < 3; ++kx)
                                {
                                    int64_t const iy = y + ky - 1;
                                    int64_t const ix = xo + kx - 1;
                                    if (iy >= 0 && iy < im.h && ix >= 0 && ix < im.w)
                                    {
                                        acc += x.at(((b * c + ci) * im.h + iy) * im.w + ix)
                                            * kernel.at(((o * c + ci) * 3 + ky) * 3 + kx);
                                    }
                                }
                            }
                        }
                        expected.set(((b * k + o) * im.h + y) * im.w + xo, acc);
                    }
                }
            }
        }
        TensorView const out = memory.add(expected, true);
        ASSERT_TRUE(kut.run({memory.add(x)}, {out}, memory, reshape));
        EXPECT_TRUE(near(download(out), expected, 1e-4));
    });
}

TEST(CudaReshape, AShapeThatDoesNotFitFailsInReshape)
{
    // No device work happens before the failure: the views carry shapes only (reshape views may have no data).
    PlanNode node;
    node.kind = LayerType::kELEMENTWISE;
    node.name = "badSum";
    node.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::ElementWiseOperation::kSUM));
    KernelSetup const setup = setupOf(node, {DataType::kFLOAT, DataType::kFLOAT}, {2, 2}, DataType::kFLOAT, 2);
    auto kernel = ::kiln::cuda::cudaKernelFactory(node.kind)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    TensorView a{nullptr, DataType::kFLOAT, dims({2, 3})};
    TensorView b{nullptr, DataType::kFLOAT, dims({2, 4})};
    TensorView out{nullptr, DataType::kFLOAT, dims({2, 3})};
    Status const st = (*kernel)->reshape({a, b}, {out});
    ASSERT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("badSum"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("do not broadcast"), std::string::npos) << st.message();
    // A run without a successful reshape is refused, not launched with stale arguments.
    Status const run = (*kernel)->run({a, b}, {out}, RunContext{});
    ASSERT_FALSE(run.isOk());
    EXPECT_NE(run.message().find("without a successful reshape"), std::string::npos) << run.message();
}

} // namespace
} // namespace kiln::test::cuda
