// Parity of the CUDA kernels that keep squeeze-excitation blocks in the channel-last region (kHWC8 FP16/BF16 without
// padding channels, stored [N, H, W, C]) with the CPU reference on NCHW copies, on random data with poisoned outputs:
// the reduction over H and W reading kHWC8 (reduce.cu: sum, average, max, min; few channels and many pixels, which
// splits the pixels over chunks and combines them in a second kernel, and many channels with few pixels; linear and
// kHWC8 outputs), and the elementwise broadcast of a per-channel [N, C, 1, 1] or [1, C, 1, 1] operand over a kHWC8
// tensor (elementWise.cu's fast path with an outer and an inner kept block). Without a GPU the CPU half runs and the
// tests skip.
#include "cudaParity.h"

#include "backends/cpu/cpuKernel.h"
#include "backends/cuda/cudaKernel.h"
#include "common/kernelRun.h"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;
using nvinfer1::ReduceOperation;
using nvinfer1::TensorFormat;

//! The storage of a kHWC8 tensor [N, C, H, W] with C % 8 == 0: the same values ordered [N, H, W, C].
HostTensor storageOrder(HostTensor const& t)
{
    int64_t const n = t.dims.d[0];
    int64_t const c = t.dims.d[1];
    int64_t const hw = t.dims.d[2] * t.dims.d[3];
    HostTensor r(t.type, dims({n, t.dims.d[2], t.dims.d[3], c}));
    for (int64_t i = 0; i < t.volume(); ++i)
    {
        int64_t const b = i / (c * hw);
        int64_t const ch = i / hw % c;
        int64_t const p = i % hw;
        r.set((b * hw + p) * c + ch, t.at(i));
    }
    return r;
}

//! One device allocation holding a host tensor's bytes (or `bytes` uninitialised bytes), freed with the object.
class DeviceCopy
{
public:
    explicit DeviceCopy(void const* host, size_t bytes)
    {
        if (cudaMalloc(&mPtr, std::max<size_t>(bytes, 1)) != cudaSuccess)
        {
            mPtr = nullptr;
        }
        else if (host != nullptr && cudaMemcpy(mPtr, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
        {
            (void) cudaFree(mPtr);
            mPtr = nullptr;
        }
    }
    ~DeviceCopy() { (void) cudaFree(mPtr); }
    DeviceCopy(DeviceCopy const&) = delete;
    DeviceCopy& operator=(DeviceCopy const&) = delete;
    void* get() const { return mPtr; }

private:
    void* mPtr{nullptr};
};

//! Runs the CPU reference of `node` on the NCHW tensors into `expected` (shaped as the output).
void runCpu(PlanNode const& node, std::vector<HostTensor> const& inputs, HostTensor& expected)
{
    KernelSetup setup;
    setup.node = &node;
    std::vector<TensorView> views;
    for (HostTensor const& h : inputs)
    {
        setup.inputTypes.push_back(h.type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(h.dims.nbDims);
        views.push_back(TensorView{const_cast<void*>(h.data()), h.type, h.dims, nullptr});
    }
    setup.outputTypes = {expected.type};
    setup.outputRanks = {expected.dims.nbDims};
    auto cpu = cpuKernelFactory(node.kind)(setup);
    ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
    Status const ran = reshapeAndRun(**cpu, views, {TensorView{expected.data(), expected.type, expected.dims, nullptr}});
    ASSERT_TRUE(ran.isOk()) << ran.message();
}

//! Runs the CUDA kernel of `node` with the region formats on the storage-order copies of `inputs` (logical dims in
//! the views), twice (the second run without a reshape, on an output poisoned again), and compares the output's
//! bytes with `want` (its storage-order reference) within atol + rtol * |expected|.
void runGpuAndCompare(PlanNode const& node, std::vector<HostTensor> const& inputs, std::vector<TensorFormat> const& inFormats,
    HostTensor const& logicalOut, TensorFormat outFormat, HostTensor const& want, double atol, double rtol)
{
    KernelSetup setup;
    setup.node = &node;
    std::vector<std::unique_ptr<DeviceCopy>> buffers;
    std::vector<TensorView> views;
    for (size_t k = 0; k < inputs.size(); ++k)
    {
        HostTensor const stored = inFormats[k] == TensorFormat::kHWC8 ? storageOrder(inputs[k]) : inputs[k];
        buffers.push_back(std::make_unique<DeviceCopy>(stored.data(), stored.bytes.size()));
        ASSERT_NE(buffers.back()->get(), nullptr);
        setup.inputTypes.push_back(inputs[k].type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(inputs[k].dims.nbDims);
        views.push_back(TensorView{buffers.back()->get(), inputs[k].type, inputs[k].dims, nullptr});
    }
    setup.inputFormats = inFormats;
    setup.outputTypes = {logicalOut.type};
    setup.outputRanks = {logicalOut.dims.nbDims};
    setup.outputFormats = {outFormat};
    auto gpu = ::kiln::cuda::cudaKernelFactory(node.kind)(setup);
    ASSERT_TRUE(gpu.isOk()) << gpu.status().message();
    DeviceCopy y(nullptr, want.bytes.size());
    ASSERT_NE(y.get(), nullptr);
    std::vector<TensorView> const outs{TensorView{y.get(), logicalOut.type, logicalOut.dims, nullptr}};
    Status const reshaped = (*gpu)->reshape(views, outs);
    ASSERT_TRUE(reshaped.isOk()) << reshaped.message();
    int64_t const wsBytes = (*gpu)->workspaceSize(views, outs);
    DeviceCopy workspace(nullptr, static_cast<size_t>(wsBytes));
    ASSERT_NE(workspace.get(), nullptr);
    for (int32_t pass = 0; pass < 2; ++pass)
    {
        SCOPED_TRACE("run " + std::to_string(pass));
        HostTensor result = want;
        std::memset(result.data(), 0xA5, result.bytes.size());
        ASSERT_EQ(cudaMemcpy(y.get(), result.data(), result.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
        Status const st = (*gpu)->run(views, outs, RunContext{nullptr, workspace.get(), wsBytes});
        ASSERT_TRUE(st.isOk()) << st.message();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(result.data(), y.get(), result.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        int32_t bad = 0;
        for (int64_t i = 0; i < result.volume() && bad < 5; ++i)
        {
            double const g = result.at(i);
            double const e = want.at(i);
            if (!(std::fabs(g - e) <= atol + rtol * std::fabs(e)))
            {
                ADD_FAILURE() << "element " << i << " (storage order): gpu " << g << ", expected " << e;
                ++bad;
            }
        }
    }
}

struct ReduceCase
{
    std::vector<int64_t> in;
    ReduceOperation op;
    DataType type;
    bool keepDims{true};
    TensorFormat outFormat{TensorFormat::kLINEAR};
};

void runReduceHwc8(ReduceCase const& c, uint32_t seed)
{
    SCOPED_TRACE("reduce op " + std::to_string(static_cast<int>(c.op)) + " " + dataTypeName(c.type) + " ["
        + std::to_string(c.in[0]) + ", " + std::to_string(c.in[1]) + ", " + std::to_string(c.in[2]) + ", "
        + std::to_string(c.in[3]) + "] output " + formatName(c.outFormat));
    PlanNode node;
    node.kind = LayerType::kREDUCE;
    node.name = "gap";
    node.attrs.setInt("operation", static_cast<int64_t>(c.op));
    node.attrs.setInt("axes", 0b1100);
    node.attrs.setInt("keepDims", c.keepDims ? 1 : 0);
    node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    node.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(TensorFormat::kHWC8));
    if (c.outFormat == TensorFormat::kHWC8)
    {
        node.attrs.setInt(kREGION_OUTPUT_ATTRIBUTE, 1);
    }
    std::mt19937 rng(seed);
    HostTensor const x = HostTensor::random(c.type, dims(c.in), rng, -1.0, 1.0);
    std::vector<int64_t> outDims{c.in[0], c.in[1]};
    if (c.keepDims)
    {
        outDims.insert(outDims.end(), {1, 1});
    }
    HostTensor expected(c.type, dims(outDims));
    runCpu(node, {x}, expected);
    KILN_REQUIRE_GPU();
    // [N, C] and kHWC8 [N, C, 1, 1] hold the same bytes: the reference in NCHW order is the storage order. Sums of
    // H x W values carry float accumulation error beyond the output's rounding.
    double const count = static_cast<double>(c.in[2] * c.in[3]);
    double const rtol = c.type == DataType::kHALF ? 2e-3 : 1e-2;
    double const atol = rtol + (c.op == ReduceOperation::kSUM ? 1e-6 * count : 0.0);
    runGpuAndCompare(node, {x}, {TensorFormat::kHWC8}, expected, c.outFormat, expected, atol, rtol);
}

TEST(CudaParity, ReduceHwc8)
{
    using R = ReduceOperation;
    uint32_t seed = 900;
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        for (R op : {R::kAVG, R::kSUM})
        {
            // EfficientNet-B0's first squeeze-excitation mean: few channels, many pixels (split into chunks).
            runReduceHwc8({{32, 32, 112, 112}, op, t}, seed++);
            // MobileNetV3-Large's final global average pool: many channels, few pixels; kHWC8 output.
            runReduceHwc8({{32, 960, 7, 7}, op, t, true, TensorFormat::kHWC8}, seed++);
        }
        runReduceHwc8({{3, 24, 5, 7}, R::kMAX, t}, seed++);
        runReduceHwc8({{2, 40, 33, 35}, R::kMIN, t, false}, seed++);
        runReduceHwc8({{1, 8, 64, 64}, R::kAVG, t}, seed++);
        runReduceHwc8({{5, 264, 28, 28}, R::kSUM, t, true, TensorFormat::kHWC8}, seed++);
    }
}

TEST(CudaParity, ReduceHwc8RefusesOtherForms)
{
    // Checked at reshape (no launch): the builder's probe keeps such reductions linear.
    PlanNode node;
    node.kind = LayerType::kREDUCE;
    node.name = "r";
    node.attrs.setInt("operation", static_cast<int64_t>(ReduceOperation::kPROD));
    node.attrs.setInt("axes", 0b1100);
    node.attrs.setInt("keepDims", 1);
    KernelSetup setup;
    setup.node = &node;
    setup.inputTypes = {DataType::kHALF};
    setup.inputPresent = {true};
    setup.inputRanks = {4};
    setup.inputFormats = {TensorFormat::kHWC8};
    setup.outputTypes = {DataType::kHALF};
    setup.outputRanks = {4};
    auto kernel = ::kiln::cuda::cudaKernelFactory(LayerType::kREDUCE)(setup);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    std::vector<TensorView> const in{TensorView{nullptr, DataType::kHALF, dims({2, 16, 4, 4}), nullptr}};
    std::vector<TensorView> const out{TensorView{nullptr, DataType::kHALF, dims({2, 16, 1, 1}), nullptr}};
    Status const prod = (*kernel)->reshape(in, out);
    EXPECT_FALSE(prod.isOk());
    EXPECT_NE(prod.message().find("kSUM, kAVG, kMAX or kMIN over axes 2 and 3"), std::string::npos) << prod.message();
    node.attrs.setInt("operation", static_cast<int64_t>(ReduceOperation::kAVG));
    node.attrs.setInt("axes", 0b0100);
    std::vector<TensorView> const outH{TensorView{nullptr, DataType::kHALF, dims({2, 16, 1, 4}), nullptr}};
    EXPECT_FALSE((*kernel)->reshape(in, outH).isOk());
    node.attrs.setInt("axes", 0b1100);
    std::vector<TensorView> const in12{TensorView{nullptr, DataType::kHALF, dims({2, 12, 4, 4}), nullptr}};
    std::vector<TensorView> const out12{TensorView{nullptr, DataType::kHALF, dims({2, 12, 1, 1}), nullptr}};
    Status const padded = (*kernel)->reshape(in12, out12);
    EXPECT_FALSE(padded.isOk());
    EXPECT_NE(padded.message().find("whole vectors of 8 channels"), std::string::npos) << padded.message();
    EXPECT_TRUE((*kernel)->reshape(in, out).isOk());
}

struct BroadcastCase
{
    std::vector<int64_t> full;
    bool perImage{true}; //!< [N, C, 1, 1]; false: [1, C, 1, 1]
    bool scaleFirst{false};
    ElementWiseOperation op{ElementWiseOperation::kPROD};
};

void runChannelBroadcastHwc8(BroadcastCase const& c, DataType t, uint32_t seed)
{
    SCOPED_TRACE(std::string("broadcast ") + dataTypeName(t) + " [" + std::to_string(c.full[0]) + ", "
        + std::to_string(c.full[1]) + ", " + std::to_string(c.full[2]) + ", " + std::to_string(c.full[3]) + "] by ["
        + (c.perImage ? "N" : "1") + ", C, 1, 1]" + (c.scaleFirst ? " (scale first)" : ""));
    PlanNode node;
    node.kind = LayerType::kELEMENTWISE;
    node.name = "scale";
    node.attrs.setInt("operation", static_cast<int64_t>(c.op));
    node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    node.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(TensorFormat::kHWC8));
    std::mt19937 rng(seed);
    HostTensor const x = HostTensor::random(t, dims(c.full), rng, -2.0, 2.0);
    HostTensor const s = HostTensor::random(t, dims({c.perImage ? c.full[0] : 1, c.full[1], 1, 1}), rng, 0.0, 1.0);
    std::vector<HostTensor> const inputs = c.scaleFirst ? std::vector<HostTensor>{s, x} : std::vector<HostTensor>{x, s};
    HostTensor expected(t, dims(c.full));
    runCpu(node, inputs, expected);
    KILN_REQUIRE_GPU();
    double const tol = t == DataType::kHALF ? 2e-3 : 1e-2;
    runGpuAndCompare(node, inputs, {TensorFormat::kHWC8, TensorFormat::kHWC8}, expected, TensorFormat::kHWC8,
        storageOrder(expected), tol, tol);
}

TEST(CudaParity, ElementWiseChannelBroadcastHwc8)
{
    uint32_t seed = 950;
    for (DataType t : {DataType::kHALF, DataType::kBF16})
    {
        runChannelBroadcastHwc8({{4, 96, 14, 14}, true, false}, t, seed++);
        runChannelBroadcastHwc8({{4, 96, 14, 14}, true, true}, t, seed++);
        runChannelBroadcastHwc8({{2, 1152, 7, 7}, false, false}, t, seed++);
        runChannelBroadcastHwc8({{3, 16, 5, 7}, true, false, ElementWiseOperation::kSUM}, t, seed++);
        runChannelBroadcastHwc8({{32, 32, 112, 112}, true, false}, t, seed++);
        runChannelBroadcastHwc8({{1, 40, 3, 3}, true, true, ElementWiseOperation::kSUB}, t, seed++);
    }
}

} // namespace
} // namespace kiln::test::cuda
