// One backend node test, end to end through the public API (NvInfer.h + NvOnnxParser.h) on the CPU backend.
#include "caseRunner.h"
#include "hostTensorCodec.h"
#include "tensorFile.h"

#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "NvOnnxParser.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

namespace kiln::conformance
{
namespace
{

using nvinfer1::DataType;
namespace fs = std::filesystem;

//! Keeps the first error message (and echoes everything in verbose mode).
class FirstErrorLogger : public nvinfer1::ILogger
{
public:
    explicit FirstErrorLogger(bool verbose)
        : mVerbose(verbose)
    {
    }
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (severity <= Severity::kERROR && mFirstError.empty())
        {
            mFirstError = msg;
        }
        if (mVerbose && severity <= Severity::kWARNING)
        {
            std::cerr << "    [kiln] " << msg << "\n";
        }
    }
    std::string firstError() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mFirstError;
    }

private:
    bool mVerbose;
    mutable std::mutex mMutex;
    std::string mFirstError;
};

//! Output allocator for outputs whose shape is only known after the run.
class HostOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) noexcept override
    {
        mBuffer.assign(static_cast<size_t>(size) + 64, 0xA5);
        return mBuffer.data();
    }
    void notifyShape(char const*, nvinfer1::Dims const& dims) noexcept override { mDims = dims; }

    std::vector<uint8_t> mBuffer;
    nvinfer1::Dims mDims{-1, {}};
};


std::string dimsText(std::vector<int64_t> const& d)
{
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i)
    {
        s += (i ? "," : "") + std::to_string(d[i]);
    }
    return s + "]";
}

std::vector<int64_t> toVector(nvinfer1::Dims const& d)
{
    return std::vector<int64_t>(d.d, d.d + std::max(d.nbDims, 0));
}

nvinfer1::Dims toDims(std::vector<int64_t> const& v)
{
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    for (size_t i = 0; i < v.size() && i < static_cast<size_t>(nvinfer1::Dims::MAX_DIMS); ++i)
    {
        d.d[i] = v[i];
    }
    return d;
}

std::string formatNumber(double v)
{
    std::ostringstream s;
    s.precision(7);
    s << v;
    return s.str();
}

//! Compare one output; returns "" when it matches, else a description of the worst mismatch.
std::string compare(RefTensor const& want, uint8_t const* got, DataType gotType, std::vector<int64_t> const& gotDims)
{
    if (gotDims != want.dims)
    {
        return "output '" + want.name + "' has shape " + dimsText(gotDims) + ", expected " + dimsText(want.dims);
    }
    int64_t const n = want.count();
    bool const gotFloat = isFloatType(gotType);
    if (!want.isFloat || !gotFloat)
    {
        for (int64_t i = 0; i < n; ++i)
        {
            int64_t const w = want.isFloat ? static_cast<int64_t>(want.real[i]) : want.integer[i];
            int64_t const g = gotFloat ? static_cast<int64_t>(realAt(got, gotType, i)) : integerAt(got, gotType, i);
            bool const wantBool = want.onnxType == ::onnx::TensorProto::BOOL;
            if (wantBool ? ((w != 0) != (g != 0)) : (w != g))
            {
                return "output '" + want.name + "' element " + std::to_string(i) + " is " + std::to_string(g)
                    + ", expected " + std::to_string(w);
            }
        }
        return "";
    }
    Tolerance const tol = toleranceFor(want.onnxType == ::onnx::TensorProto::DOUBLE ? ::onnx::TensorProto::FLOAT
                                                                                      : want.onnxType);
    double worst = 0.0;
    int64_t worstAt = -1;
    for (int64_t i = 0; i < n; ++i)
    {
        double const w = want.real[i];
        double const g = realAt(got, gotType, i);
        if (std::isnan(w) || std::isnan(g))
        {
            if (std::isnan(w) != std::isnan(g))
            {
                return "output '" + want.name + "' element " + std::to_string(i) + " is " + formatNumber(g)
                    + ", expected " + formatNumber(w);
            }
            continue;
        }
        if (std::isinf(w) || std::isinf(g))
        {
            if (w != g)
            {
                return "output '" + want.name + "' element " + std::to_string(i) + " is " + formatNumber(g)
                    + ", expected " + formatNumber(w);
            }
            continue;
        }
        double const excess = std::fabs(g - w) - (tol.atol + tol.rtol * std::fabs(w));
        if (excess > worst)
        {
            worst = excess;
            worstAt = i;
        }
    }
    if (worstAt >= 0)
    {
        double const w = want.real[worstAt];
        double const g = realAt(got, gotType, worstAt);
        return "output '" + want.name + "' element " + std::to_string(worstAt) + " is " + formatNumber(g)
            + ", expected " + formatNumber(w) + " (|error| " + formatNumber(std::fabs(g - w)) + ", rtol "
            + formatNumber(tol.rtol) + ", atol " + formatNumber(tol.atol) + ")";
    }
    return "";
}

struct GraphIo
{
    std::vector<std::string> inputs;  //!< non-initializer graph inputs, in order
    std::vector<std::string> outputs; //!< graph outputs, in order
    std::map<std::string, int32_t> declaredTypes; //!< ONNX element type each graph input/output declares
};

//! ONNX 1.12's test data stores BFLOAT16 tensors as UINT16 bit patterns: read them as bfloat16 when the graph
//! declares BFLOAT16.
void reinterpretBFloat16(RefTensor& t, int32_t declaredType)
{
    if (declaredType != ::onnx::TensorProto::BFLOAT16 || t.onnxType != ::onnx::TensorProto::UINT16)
    {
        return;
    }
    t.real.clear();
    for (int64_t bits : t.integer)
    {
        uint32_t const word = static_cast<uint32_t>(bits) << 16;
        float f = 0.0F;
        std::memcpy(&f, &word, 4);
        t.real.push_back(f);
    }
    t.integer.clear();
    t.isFloat = true;
    t.onnxType = ::onnx::TensorProto::BFLOAT16;
}

bool readGraphIo(std::string const& modelBytes, GraphIo& io, std::string& error)
{
    ::onnx::ModelProto model;
    if (!model.ParseFromString(modelBytes))
    {
        error = "model.onnx is not a ModelProto";
        return false;
    }
    std::map<std::string, bool> initializers;
    for (auto const& init : model.graph().initializer())
    {
        initializers[init.name()] = true;
    }
    for (auto const& in : model.graph().input())
    {
        if (initializers.count(in.name()) != 0U)
        {
            continue;
        }
        if (!in.type().has_tensor_type())
        {
            error = "graph input '" + in.name() + "' is not a tensor (sequence/optional/map values are not supported)";
            return false;
        }
        io.inputs.push_back(in.name());
        io.declaredTypes[in.name()] = in.type().tensor_type().elem_type();
    }
    for (auto const& out : model.graph().output())
    {
        if (!out.type().has_tensor_type())
        {
            error = "graph output '" + out.name() + "' is not a tensor (sequence/optional/map values are not supported)";
            return false;
        }
        io.outputs.push_back(out.name());
        io.declaredTypes[out.name()] = out.type().tensor_type().elem_type();
    }
    return true;
}

template <typename T>
struct Destroy
{
    void operator()(T* p) const { delete p; }
};
template <typename T>
using Owned = std::unique_ptr<T, Destroy<T>>;

} // namespace

char const* outcomeName(Outcome outcome)
{
    switch (outcome)
    {
    case Outcome::kPASS: return "PASS";
    case Outcome::kFAIL: return "FAIL";
    case Outcome::kUNSUPPORTED: return "UNSUPPORTED";
    case Outcome::kCRASH: return "CRASH";
    case Outcome::kTIMEOUT: return "TIMEOUT";
    }
    return "?";
}

Tolerance toleranceFor(int32_t onnxType)
{
    switch (onnxType)
    {
    case ::onnx::TensorProto::FLOAT16: return {1e-3, 1e-3};
    case ::onnx::TensorProto::BFLOAT16: return {1e-2, 1e-2};
    default: return {1e-3, 1e-5}; // FLOAT, and DOUBLE computed as FLOAT
    }
}

CaseResult runCase(std::string const& caseDir, bool verbose)
{
    std::string modelBytes;
    {
        std::ifstream file(caseDir + "/model.onnx", std::ios::binary);
        if (!file)
        {
            return {Outcome::kFAIL, "cannot read " + caseDir + "/model.onnx"};
        }
        std::stringstream s;
        s << file.rdbuf();
        modelBytes = s.str();
    }
    GraphIo io;
    std::string error;
    if (!readGraphIo(modelBytes, io, error))
    {
        return {Outcome::kUNSUPPORTED, error};
    }
    std::string const dataDir = caseDir + "/test_data_set_0";
    std::map<std::string, RefTensor> inputs;
    for (size_t i = 0; i < io.inputs.size(); ++i)
    {
        RefTensor t;
        if (!readTensorFile(dataDir + "/input_" + std::to_string(i) + ".pb", t, error))
        {
            return {Outcome::kUNSUPPORTED, error};
        }
        t.name = io.inputs[i];
        reinterpretBFloat16(t, io.declaredTypes[t.name]);
        inputs[t.name] = std::move(t);
    }
    std::vector<RefTensor> expected;
    for (size_t i = 0; i < io.outputs.size(); ++i)
    {
        RefTensor t;
        if (!readTensorFile(dataDir + "/output_" + std::to_string(i) + ".pb", t, error))
        {
            return {Outcome::kUNSUPPORTED, error};
        }
        t.name = io.outputs[i];
        reinterpretBFloat16(t, io.declaredTypes[t.name]);
        expected.push_back(std::move(t));
    }

    FirstErrorLogger logger(verbose);
    // Standard plugins (ROIAlign_TRT for RoiAlign, ...), registered once: initLibNvInferPlugins keeps its logger
    // for the whole process, so it gets one that lives as long (not the per-case logger).
    static struct PluginLibraryLogger : nvinfer1::ILogger
    {
        void log(Severity, char const*) noexcept override {}
    } pluginLibraryLogger;
    static bool const pluginsRegistered = initLibNvInferPlugins(&pluginLibraryLogger, "");
    (void) pluginsRegistered;
    Owned<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    Owned<nvinfer1::INetworkDefinition> network(builder ? builder->createNetworkV2(0) : nullptr);
    if (!network)
    {
        return {Outcome::kFAIL, "cannot create a builder/network: " + logger.firstError()};
    }
    Owned<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    if (!parser)
    {
        return {Outcome::kFAIL, "createParser failed: " + logger.firstError()};
    }
    std::string const modelPath = caseDir + "/model.onnx";
    if (!parser->parse(modelBytes.data(), modelBytes.size(), modelPath.c_str()))
    {
        std::string message = "parser: ";
        if (parser->getNbErrors() > 0)
        {
            nvonnxparser::IParserError const* e = parser->getError(0);
            message += std::string("[") + e->nodeOperator() + "] " + e->desc();
        }
        else
        {
            message += logger.firstError();
        }
        return {Outcome::kUNSUPPORTED, message};
    }

    // Dynamic inputs and shape-tensor inputs get a profile pinned to the test's data.
    Owned<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    nvinfer1::IOptimizationProfile* profile = nullptr;
    std::map<std::string, std::vector<int64_t>> shapeValues;
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        nvinfer1::ITensor* in = network->getInput(i);
        auto const it = inputs.find(in->getName());
        if (it == inputs.end())
        {
            return {Outcome::kFAIL, std::string("network input '") + in->getName() + "' is not a graph input"};
        }
        RefTensor const& ref = it->second;
        nvinfer1::Dims const declared = in->getDimensions();
        bool dynamic = false;
        for (int32_t d = 0; d < declared.nbDims; ++d)
        {
            dynamic = dynamic || declared.d[d] < 0;
        }
        if (!dynamic && !in->isShapeTensor())
        {
            continue;
        }
        if (profile == nullptr)
        {
            profile = builder->createOptimizationProfile();
        }
        nvinfer1::Dims const actual = toDims(ref.dims);
        for (auto sel : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(in->getName(), sel, actual);
        }
        if (in->isShapeTensor())
        {
            std::vector<int64_t> values = ref.isFloat ? std::vector<int64_t>() : ref.integer;
            shapeValues[in->getName()] = values;
            for (auto sel : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                     nvinfer1::OptProfileSelector::kMAX})
            {
                profile->setShapeValuesV2(
                    in->getName(), sel, shapeValues[in->getName()].data(), static_cast<int32_t>(values.size()));
            }
        }
    }
    if (profile != nullptr)
    {
        config->addOptimizationProfile(profile);
    }
    Owned<nvinfer1::IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (!plan)
    {
        return {Outcome::kUNSUPPORTED, "builder: " + logger.firstError()};
    }
    Owned<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    Owned<nvinfer1::ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    if (!engine)
    {
        return {Outcome::kFAIL, "deserializeCudaEngine: " + logger.firstError()};
    }
    Owned<nvinfer1::IExecutionContext> context(engine->createExecutionContext());
    if (!context)
    {
        return {Outcome::kFAIL, "createExecutionContext: " + logger.firstError()};
    }

    std::map<std::string, std::vector<uint8_t>> buffers;
    for (auto const& [name, ref] : inputs)
    {
        if (engine->getTensorIOMode(name.c_str()) != nvinfer1::TensorIOMode::kINPUT)
        {
            continue; // a graph input the network does not use
        }
        DataType const type = engine->getTensorDataType(name.c_str());
        if (!encode(ref, type, buffers[name], error))
        {
            return {Outcome::kUNSUPPORTED, error};
        }
        if (!engine->isShapeInferenceIO(name.c_str()) && !context->setInputShape(name.c_str(), toDims(ref.dims)))
        {
            return {Outcome::kFAIL, "setInputShape('" + name + "'): " + logger.firstError()};
        }
        if (!context->setTensorAddress(name.c_str(), buffers[name].data()))
        {
            return {Outcome::kFAIL, "setTensorAddress('" + name + "'): " + logger.firstError()};
        }
    }
    std::map<std::string, std::unique_ptr<HostOutputAllocator>> allocators;
    for (RefTensor const& want : expected)
    {
        char const* name = want.name.c_str();
        if (engine->getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            return {Outcome::kFAIL, "graph output '" + want.name + "' is not an engine output"};
        }
        nvinfer1::Dims const dims = context->getTensorShape(name);
        bool known = dims.nbDims >= 0;
        int64_t volume = 1;
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            known = known && dims.d[d] >= 0;
            volume *= std::max<int64_t>(dims.d[d], 0);
        }
        if (!known)
        {
            auto allocator = std::make_unique<HostOutputAllocator>();
            context->setOutputAllocator(name, allocator.get());
            allocators[want.name] = std::move(allocator);
            continue;
        }
        size_t const size = elementSize(engine->getTensorDataType(name)) * static_cast<size_t>(volume);
        buffers[want.name].assign(size + 64, 0xA5); // poisoned
        context->setTensorAddress(name, buffers[want.name].data());
    }
    if (!context->enqueueV3(nullptr))
    {
        return {Outcome::kFAIL, "enqueueV3: " + logger.firstError()};
    }
    for (RefTensor const& want : expected)
    {
        char const* name = want.name.c_str();
        DataType const type = engine->getTensorDataType(name);
        std::vector<int64_t> dims;
        uint8_t const* data = nullptr;
        auto const alloc = allocators.find(want.name);
        if (alloc != allocators.end())
        {
            dims = toVector(alloc->second->mDims);
            data = alloc->second->mBuffer.data();
            if (data == nullptr)
            {
                return {Outcome::kFAIL, "output '" + want.name + "' was never allocated"};
            }
        }
        else
        {
            dims = toVector(context->getTensorShape(name));
            data = buffers[want.name].data();
        }
        std::string const mismatch = compare(want, data, type, dims);
        if (!mismatch.empty())
        {
            return {Outcome::kFAIL, mismatch};
        }
    }
    return {Outcome::kPASS, ""};
}

} // namespace kiln::conformance
