// The CUDA parity harness (see cudaParity.h): plan from the public builder, shapes from the runtime's shape
// binding, CPU reference kernels as the oracle, CUDA kernels on the same inputs, per-node comparison.
#include "cudaParity.h"

#include "backends/cpu/cpuKernel.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cuda/cudaKernel.h"
#include "backends/cuda/cudaLibraries.h"
#include "core/dataType.h"
#include "engine/engineReader.h"
#include "kiln/KilnBackend.h"
#include "runtime/engineData.h"
#include "runtime/shapeBinding.h"
#include "common/kernelRun.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

namespace kiln::test::cuda
{
using nvinfer1::DataType;

namespace
{

//! Device memory freed on scope exit.
struct DeviceMemory
{
    void* ptr{nullptr};
    ~DeviceMemory()
    {
        if (ptr != nullptr)
        {
            (void) cudaFree(ptr);
        }
    }
};

std::string kindName(nvinfer1::LayerType kind)
{
    return std::to_string(static_cast<int32_t>(kind));
}

//! Converts `n` elements of host data from one type to another (weights of another type than their tensor).
HostTensor fromWeights(PlanWeights const& w, DataType type, nvinfer1::Dims const& d)
{
    HostTensor h(type, d);
    ew::convertElements(w.data, w.type, h.data(), type, std::min<int64_t>(w.count, h.volume()));
    return h;
}

::testing::AssertionResult compareOutput(HostTensor const& gpu, HostTensor const& cpu, Tolerance const& tol)
{
    switch (cpu.type)
    {
    case DataType::kFLOAT: return allClose(gpu, cpu, tol.fp32Atol, tol.fp32Rtol);
    case DataType::kHALF: return allClose(gpu, cpu, tol.fp16Atol, tol.fp16Rtol);
    case DataType::kBF16: return allClose(gpu, cpu, tol.bf16Atol, tol.bf16Rtol);
    default: return allClose(gpu, cpu, 0.0, 0.0); // integers and BOOL: exact
    }
}

void skipGpuHalf(std::string const& message)
{
    GTEST_SKIP() << message;
}

bool gPerturbExpected = false;  //!< harness self-test: corrupt the expected outputs before comparing
int64_t gComparedOutputs = 0;   //!< outputs compared on the GPU in this process
int64_t gComparedElements = 0;

//! Prints what the GPU half compared, so that a run's log shows the harness did real work.
class ParityReport : public ::testing::Environment
{
public:
    void TearDown() override
    {
        std::printf("[ CUDA parity ] %lld node outputs (%lld elements) compared with the CPU reference on the GPU\n",
            static_cast<long long>(gComparedOutputs), static_cast<long long>(gComparedElements));
    }
};
[[maybe_unused]] ::testing::Environment* const gParityReport = ::testing::AddGlobalTestEnvironment(new ParityReport);

//! A stream and the library handles for one test.
struct GpuSession
{
    cudaStream_t stream{nullptr};
    ::kiln::cuda::CudaLibraries libraries;
    GpuSession()
    {
        if (cudaStreamCreate(&stream) != cudaSuccess)
        {
            stream = nullptr;
        }
    }
    ~GpuSession()
    {
        if (stream != nullptr)
        {
            (void) cudaStreamDestroy(stream);
        }
    }
};

//! Runs the CUDA kernel of `setup` on device copies of `hostIns` (outputs poisoned first) and compares every output
//! with `expected`; then runs the same kernel again, without a reshape, on new copies at other addresses (a run must
//! take its buffers from its views, never from the reshape's) and compares again. False (with a test failure) on any
//! error or mismatch.
bool gpuCompare(KernelSetup const& setup, std::vector<TensorView> const& hostIns,
    std::vector<HostTensor const*> const& expected, Tolerance const& tol, GpuSession& session)
{
    PlanNode const& node = *setup.node;
    KernelSetup withLibraries = setup;
    withLibraries.sessionState = &session.libraries; // as the CUDA session passes its library handles
    auto kernel = ::kiln::cuda::cudaKernelFactory(node.kind)(withLibraries);
    if (!kernel.isOk())
    {
        ADD_FAILURE() << "node '" << node.name << "' (layer kind " << kindName(node.kind)
                      << "): CUDA kernel creation: " << kernel.status().message();
        return false;
    }
    std::vector<std::unique_ptr<DeviceMemory>> memory; // both runs' buffers stay allocated: their addresses differ
    bool same = true;
    for (bool const reshape : {true, false})
    {
        std::string const where = "node '" + node.name + "' (layer kind " + kindName(node.kind) + ")"
            + (reshape ? "" : ", second and third runs on new buffers without a reshape");
        bool ok = true;
        auto const deviceCopy = [&](TensorView v, void const* host, size_t size) {
            auto mem = std::make_unique<DeviceMemory>();
            if (size > 0)
            {
                ok = ok && cudaMalloc(&mem->ptr, size) == cudaSuccess;
                ok = ok
                    && (host != nullptr ? cudaMemcpy(mem->ptr, host, size, cudaMemcpyHostToDevice)
                                        : cudaMemset(mem->ptr, 0xA5, size)) // poison
                        == cudaSuccess
                    && cudaDeviceSynchronize() == cudaSuccess; // the memset is asynchronous to the kernels' streams
            }
            v.data = mem->ptr;
            memory.push_back(std::move(mem));
            return v;
        };
        std::vector<TensorView> ins;
        for (TensorView const& h : hostIns)
        {
            if (h.data == nullptr)
            {
                ins.push_back(h); // absent optional input
                continue;
            }
            ins.push_back(deviceCopy(h, h.data, static_cast<size_t>(h.volume() * elementSize(h.type))));
        }
        std::vector<TensorView> outs;
        for (HostTensor const* e : expected)
        {
            TensorView v;
            v.type = e->type;
            v.dims = e->dims;
            outs.push_back(deviceCopy(v, nullptr, e->bytes.size()));
        }
        if (!ok)
        {
            ADD_FAILURE() << where << ": device allocation or upload failed";
            return false;
        }
        int64_t const workspaceBytes = (*kernel)->workspaceSize(ins, outs);
        auto workspace = std::make_unique<DeviceMemory>();
        if (workspaceBytes > 0 && cudaMalloc(&workspace->ptr, static_cast<size_t>(workspaceBytes)) != cudaSuccess)
        {
            ADD_FAILURE() << where << ": workspace allocation of " << workspaceBytes << " bytes failed";
            return false;
        }
        RunContext const ctx{session.stream, workspace->ptr, workspaceBytes};
        memory.push_back(std::move(workspace));
        Status run = reshape ? (*kernel)->reshape(ins, outs) : Status::ok();
        run = run.isOk() ? (*kernel)->run(ins, outs, ctx) : run;
        // The second run goes twice on the same buffers, the outputs poisoned again in between: state a kernel keeps
        // per address set (cuDNN variant packs) is reused by the repeat, which must still write these outputs.
        if (run.isOk() && !reshape)
        {
            for (size_t i = 0; i < outs.size(); ++i)
            {
                ok = ok && cudaMemsetAsync(outs[i].data, 0xA5, expected[i]->bytes.size(), session.stream) == cudaSuccess;
            }
            run = ok ? (*kernel)->run(ins, outs, ctx) : internalError("re-poisoning the outputs failed");
        }
        cudaError_t const sync = cudaStreamSynchronize(session.stream);
        if (!run.isOk() || sync != cudaSuccess)
        {
            ADD_FAILURE() << where << ": CUDA run: " << (run.isOk() ? cudaGetErrorString(sync) : run.message());
            return false;
        }
        for (size_t o = 0; o < expected.size(); ++o)
        {
            HostTensor actual(expected[o]->type, expected[o]->dims);
            if (!actual.bytes.empty()
                && cudaMemcpy(actual.data(), outs[o].data, actual.bytes.size(), cudaMemcpyDeviceToHost) != cudaSuccess)
            {
                ADD_FAILURE() << where << ": download of output " << o << " failed";
                return false;
            }
            HostTensor reference = *expected[o];
            if (gPerturbExpected && !reference.bytes.empty())
            {
                reference.set(0, reference.at(0) + 3.0); // a difference any tolerance here catches
            }
            ::testing::AssertionResult const r = compareOutput(actual, reference, tol);
            ++gComparedOutputs;
            gComparedElements += actual.volume();
            EXPECT_TRUE(r) << where << ", output " << o << " (" << dataTypeName(expected[o]->type) << " "
                           << dimsString(expected[o]->dims) << ")";
            same = same && static_cast<bool>(r);
        }
        if (!same)
        {
            return false; // reported once, by the first run
        }
    }
    return true;
}

} // namespace

nvinfer1::Dims dims(std::vector<int64_t> const& extents)
{
    return makeDims(extents);
}

bool gpuAvailable(std::string& why)
{
    int count = 0;
    cudaError_t const err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
    {
        why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(err);
        (void) cudaGetLastError();
        return false;
    }
    if (count == 0)
    {
        why = "cudaGetDeviceCount found no device";
        return false;
    }
    return true;
}

int32_t checkParity(NetworkFn const& build, ParityOptions const& options)
{
    // 1. Build through the public API.
    CapturingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    uint32_t const flags
        = options.stronglyTyped ? 1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED) : 0U;
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(flags));
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    // The plan is built for the CPU backend (its tactics are the oracle's); each node's CUDA kernel is then created
    // from the same plan node.
    kiln::setBuilderBackend(config.get(), kiln::BackendKind::kCPU);
    build(*network);
    std::unique_ptr<nvinfer1::IHostMemory> bytes(builder->buildSerializedNetwork(*network, *config));
    if (bytes == nullptr)
    {
        ADD_FAILURE() << "the network did not build: " << logger.allErrors();
        return 0;
    }
    StatusOr<Plan> plan = readEngine(bytes->data(), bytes->size());
    if (!plan.isOk())
    {
        ADD_FAILURE() << "readEngine: " << plan.status().message();
        return 0;
    }
    auto data = makeEngineData(std::move(*plan));
    if (!data.isOk())
    {
        ADD_FAILURE() << "makeEngineData: " << data.status().message();
        return 0;
    }
    EngineData const& d = **data;
    Plan const& p = d.plan;

    // 2. Inputs (given or random) and every tensor's shape.
    std::mt19937 rng(options.seed);
    std::vector<HostTensor> tensors(p.tensors.size());
    std::vector<InputShape> shapes(static_cast<size_t>(d.nbIo()));
    std::vector<void const*> addresses(static_cast<size_t>(d.nbIo()), nullptr);
    for (int32_t pos = 0; pos < d.nbInputs; ++pos)
    {
        auto const t = static_cast<size_t>(p.ioTensors[static_cast<size_t>(pos)]);
        PlanTensor const& pt = p.tensors[t];
        auto given = options.inputs.find(pt.name);
        if (given != options.inputs.end())
        {
            tensors[t] = given->second;
        }
        else
        {
            nvinfer1::Dims const ed = engineDims(d, static_cast<int32_t>(t));
            tensors[t] = HostTensor::random(pt.type, ed, rng, options.lo, options.hi);
        }
        shapes[static_cast<size_t>(pos)].set = true;
        shapes[static_cast<size_t>(pos)].dims = tensors[t].dims;
        addresses[static_cast<size_t>(pos)] = tensors[t].data();
    }
    std::vector<int64_t> symbols;
    std::vector<int32_t> missing;
    BindScratch scratch;
    Status st = bindSymbols(d, 0, shapes, addresses.data(), symbols, missing, scratch);
    EvaluatedShapes ev;
    if (st.isOk())
    {
        st = evaluateShapes(d, 0, symbols, shapes, ev);
    }
    if (!st.isOk() || !missing.empty())
    {
        ADD_FAILURE() << "shape binding: " << st.message() << " (" << missing.size() << " inputs missing)";
        return 0;
    }
    for (size_t t = 0; t < p.tensors.size(); ++t)
    {
        PlanTensor const& pt = p.tensors[t];
        if (pt.ioMode == nvinfer1::TensorIOMode::kINPUT || d.producer[t] >= 0)
        {
            continue;
        }
        if (pt.constant >= 0)
        {
            tensors[t] = fromWeights(p.weights[static_cast<size_t>(pt.constant)], pt.type, ev.dims[t]);
        }
        else if (pt.hasValues)
        {
            tensors[t] = HostTensor(pt.type, ev.dims[t]);
            for (size_t i = 0; i < ev.values[t].size(); ++i)
            {
                storeInt(tensors[t].data(), pt.type, static_cast<int64_t>(i), ev.values[t][i]);
            }
        }
    }
    auto const view = [&](int32_t t, bool host) {
        TensorView v;
        if (t < 0)
        {
            return v;
        }
        auto const ti = static_cast<size_t>(t);
        v.type = p.tensors[ti].type;
        v.dims = ev.dims[ti];
        v.data = host ? tensors[ti].data() : nullptr;
        v.values = p.tensors[ti].hasValues && ev.values[ti].size() == static_cast<size_t>(tensors[ti].volume())
            ? ev.values[ti].data()
            : nullptr;
        return v;
    };

    // 3. CPU reference for every node, in plan order; check that the CUDA table has every node's kind.
    std::vector<std::vector<HostTensor>> cpuOutputs(p.nodes.size());
    bool tableComplete = true;
    for (size_t n = 0; n < p.nodes.size(); ++n)
    {
        PlanNode const& node = p.nodes[n];
        KernelSetup const setup = makeKernelSetup(p, node);
        KernelFactory factory = cpuKernelFactory(node.kind);
        if (factory == nullptr)
        {
            ADD_FAILURE() << "node '" << node.name << "': no CPU kernel for layer kind " << kindName(node.kind);
            return 0;
        }
        auto kernel = factory(setup);
        if (!kernel.isOk())
        {
            ADD_FAILURE() << "CPU kernel of node '" << node.name << "': " << kernel.status().message();
            return 0;
        }
        std::vector<TensorView> ins;
        std::vector<TensorView> outs;
        for (int32_t t : node.inputs)
        {
            ins.push_back(view(t, true));
        }
        for (int32_t t : node.outputs)
        {
            auto const ti = static_cast<size_t>(t);
            tensors[ti] = HostTensor(p.tensors[ti].type, ev.dims[ti]);
            std::memset(tensors[ti].data(), 0xA5, tensors[ti].bytes.size());
            outs.push_back(view(t, true));
        }
        Status const run = kiln::test::reshapeAndRun(*(*kernel), ins, outs);
        if (!run.isOk())
        {
            ADD_FAILURE() << "CPU run of node '" << node.name << "': " << run.message();
            return 0;
        }
        if (::kiln::cuda::cudaKernelFactory(node.kind) == nullptr)
        {
            ADD_FAILURE() << "node '" << node.name << "': no CUDA kernel for layer kind " << kindName(node.kind);
            tableComplete = false;
        }
    }
    if (!tableComplete)
    {
        return 0;
    }

    // 4. The GPU half: every node on device copies of the CPU's inputs.
    std::string why;
    if (!gpuAvailable(why))
    {
        skipGpuHalf("no CUDA GPU (" + why + "): CPU half checked (" + std::to_string(p.nodes.size())
            + " nodes), GPU half skipped");
        return 0;
    }
    GpuSession session;
    if (session.stream == nullptr)
    {
        ADD_FAILURE() << "cudaStreamCreate failed";
        return 0;
    }
    int32_t compared = 0;
    for (PlanNode const& node : p.nodes)
    {
        std::vector<TensorView> ins;
        std::vector<HostTensor const*> expected;
        for (int32_t t : node.inputs)
        {
            ins.push_back(view(t, true));
        }
        for (int32_t t : node.outputs)
        {
            expected.push_back(&tensors[static_cast<size_t>(t)]);
        }
        compared += gpuCompare(makeKernelSetup(p, node), ins, expected, options.tolerance, session) ? 1 : 0;
    }
    return compared;
}

bool checkKernel(PlanNode const& node, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs,
    std::vector<WeightsView> const& weights, Tolerance const& tolerance)
{
    KernelSetup setup;
    setup.node = &node;
    std::vector<TensorView> ins;
    for (HostTensor const& h : inputs)
    {
        if (h.bytes.empty() && h.dims.nbDims == 0)
        {
            // A default-constructed HostTensor: an absent optional input.
            setup.inputTypes.push_back(nvinfer1::DataType::kFLOAT);
            setup.inputPresent.push_back(false);
            setup.inputRanks.push_back(0);
            ins.emplace_back();
            continue;
        }
        setup.inputTypes.push_back(h.type);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(h.dims.nbDims);
        TensorView v;
        v.type = h.type;
        v.dims = h.dims;
        v.data = const_cast<void*>(h.data());
        ins.push_back(v);
    }
    std::vector<HostTensor> expected = outputs;
    std::vector<TensorView> outs;
    for (HostTensor& h : expected)
    {
        setup.outputTypes.push_back(h.type);
        setup.outputRanks.push_back(h.dims.nbDims);
        std::memset(h.data(), 0xA5, h.bytes.size());
        TensorView v;
        v.type = h.type;
        v.dims = h.dims;
        v.data = h.data();
        outs.push_back(v);
    }
    setup.weights = weights;
    std::string const where = "node '" + node.name + "' (layer kind " + kindName(node.kind) + ")";
    // The CPU reference runs with its default tactic (the node may name a CUDA one).
    PlanNode cpuNode = node;
    cpuNode.tactic.clear();
    KernelSetup cpuSetup = setup;
    cpuSetup.node = &cpuNode;
    KernelFactory factory = cpuKernelFactory(node.kind);
    if (factory == nullptr || ::kiln::cuda::cudaKernelFactory(node.kind) == nullptr)
    {
        ADD_FAILURE() << where << ": no CPU or CUDA kernel for this kind";
        return false;
    }
    auto kernel = factory(cpuSetup);
    Status const run = kernel.isOk() ? kiln::test::reshapeAndRun(*(*kernel), ins, outs) : kernel.status();
    if (!run.isOk())
    {
        ADD_FAILURE() << where << ": CPU reference: " << run.message();
        return false;
    }
    std::string why;
    if (!gpuAvailable(why))
    {
        skipGpuHalf("no CUDA GPU (" + why + "): CPU reference ran, GPU half skipped");
        return false;
    }
    GpuSession session;
    std::vector<HostTensor const*> expectedPtrs;
    for (HostTensor const& h : expected)
    {
        expectedPtrs.push_back(&h);
    }
    return gpuCompare(setup, ins, expectedPtrs, tolerance, session);
}

void setPerturbExpectedForSelfTest(bool on)
{
    gPerturbExpected = on;
}

} // namespace kiln::test::cuda
