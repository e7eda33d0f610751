// constantFolding: scratch import + CPU build + one run of the constant part of an ONNX graph (see constantFolding.h).
#include "onnx/constantFolding.h"

#include "NvInferRuntime.h"
#include "kiln/KilnBackend.h"
#include "core/dataType.h"
#include "onnx/opImporters.h"

#include <cstring>
#include <memory>
#include <set>

namespace kiln
{
namespace
{

//! Forwards everything the scratch build says to the parser's logger at kVERBOSE (folding failures are not errors).
class VerboseLogger : public nvinfer1::ILogger
{
public:
    explicit VerboseLogger(nvinfer1::ILogger* target)
        : mTarget(target)
    {
    }
    void log(Severity /*severity*/, char const* msg) noexcept override
    {
        if (mTarget != nullptr)
        {
            try
            {
                mTarget->log(Severity::kVERBOSE, (std::string("ONNX constant folding: ") + msg).c_str());
            }
            catch (...)
            {
            }
        }
    }

private:
    nvinfer1::ILogger* mTarget;
};

bool isNeverFolded(::onnx::NodeProto const& node)
{
    static std::set<std::string> const kExcluded{"RandomNormal", "RandomUniform", "RandomNormalLike",
        "RandomUniformLike", "Bernoulli", "Multinomial", "Constant"};
    if (kExcluded.count(node.op_type()) != 0 || node.input_size() == 0)
    {
        return true;
    }
    for (auto const& attr : node.attribute())
    {
        if (attr.type() == ::onnx::AttributeProto::GRAPH || attr.type() == ::onnx::AttributeProto::GRAPHS
            || attr.has_g() || attr.graphs_size() > 0)
        {
            return true;
        }
    }
    return findOpImporter(node.op_type(), node.domain()) == nullptr;
}

//! True for a DequantizeLinear of an INT8 initializer of rank 4 or 5 (2-D and 3-D kernels; a 1-D Conv's kernel is
//! reshaped on the way) whose every reader is a Conv taking it as its kernel (input 1): the dequantization stays a
//! layer, so that the builder's INT8 convolution fusion finds the INT8 weights (builder/passes/fusion/
//! int8Convolution.cpp, which folds the ones it does not fuse into FP32 kernel weights).
bool isConvWeightDequantize(::onnx::GraphProto const& graph, ::onnx::NodeProto const& node)
{
    if (node.op_type() != "DequantizeLinear" || (!node.domain().empty() && node.domain() != "ai.onnx")
        || node.input_size() < 2 || node.output_size() != 1)
    {
        return false;
    }
    bool int8Initializer = false;
    for (auto const& init : graph.initializer())
    {
        int8Initializer = int8Initializer
            || (init.name() == node.input(0) && init.data_type() == ::onnx::TensorProto::INT8 && init.dims_size() >= 4);
    }
    if (!int8Initializer)
    {
        return false;
    }
    bool read = false;
    for (auto const& other : graph.node())
    {
        for (int i = 0; i < other.input_size(); ++i)
        {
            if (other.input(i) == node.output(0))
            {
                if (other.op_type() != "Conv" || i != 1)
                {
                    return false;
                }
                read = true;
            }
        }
    }
    for (auto const& o : graph.output())
    {
        read = read && o.name() != node.output(0);
    }
    return read;
}

void note(nvinfer1::ILogger* logger, std::string const& message)
{
    if (logger != nullptr)
    {
        try
        {
            logger->log(nvinfer1::ILogger::Severity::kVERBOSE, ("ONNX constant folding: " + message).c_str());
        }
        catch (...)
        {
        }
    }
}

//! Build and run the scratch network; fills `out` with every network output.
bool buildAndRun(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger,
    std::map<std::string, OnnxConstant>& out)
{
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder.createBuilderConfig());
    // The CPU backend, whatever the process's default: the values are read from host buffers bound as the outputs
    // (on the CUDA backend a kernel would write to those host addresses).
    if (config == nullptr || !kiln::setBuilderBackend(config.get(), kiln::BackendKind::kCPU))
    {
        return false;
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan(builder.buildSerializedNetwork(network, *config));
    if (plan == nullptr)
    {
        return false;
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    if (runtime == nullptr)
    {
        return false;
    }
    std::unique_ptr<nvinfer1::ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    if (engine == nullptr)
    {
        return false;
    }
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    if (ctx == nullptr)
    {
        return false;
    }
    std::vector<std::unique_ptr<uint8_t[]>> keep;
    for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
    {
        char const* name = engine->getIOTensorName(i);
        if (engine->getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            return false; // the scratch network has no inputs
        }
        nvinfer1::Dims const shape = ctx->getTensorShape(name);
        if (shape.nbDims < 0)
        {
            return false;
        }
        OnnxConstant c;
        c.type = engine->getTensorDataType(name);
        for (int32_t d = 0; d < shape.nbDims; ++d)
        {
            if (shape.d[d] < 0)
            {
                return false; // data-dependent shape: leave it to the main network
            }
            c.shape.push_back(shape.d[d]);
        }
        int64_t const elements = c.count();
        int64_t const size = elements < 0 || elements > (int64_t{1} << 30) ? -1 : byteSize(c.type, elements);
        if (elementSize(c.type) == 0 || size < 0 || size > (int64_t{1} << 30))
        {
            return false;
        }
        c.bytes.assign(static_cast<size_t>(size), 0);
        out[name] = std::move(c);
        void* address = out[name].bytes.empty() ? static_cast<void*>(&out[name]) : out[name].bytes.data();
        if (!ctx->setTensorAddress(name, address))
        {
            return false;
        }
    }
    return ctx->enqueueV3(nullptr);
}

} // namespace

FoldedConstants foldConstants(OnnxModel const& model, GraphImportOptions const& base, nvinfer1::ILogger* logger)
{
    FoldedConstants result;
    auto const& graph = model.model().graph();
    int const nbNodes = graph.node_size();
    result.folded.assign(static_cast<size_t>(nbNodes), false);

    std::set<std::string> constants;
    std::set<std::string> graphInputs;
    for (auto const& init : graph.initializer())
    {
        constants.insert(init.name());
    }
    for (auto const& node : graph.node())
    {
        if (node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx"))
        {
            for (auto const& o : node.output())
            {
                constants.insert(o);
            }
        }
    }
    std::set<std::string> foldedOutputs;
    for (int i = 0; i < nbNodes; ++i)
    {
        auto const& node = graph.node(i);
        if (isNeverFolded(node) || base.fallbackFirst || isConvWeightDequantize(graph, node))
        {
            continue;
        }
        bool allConstant = true;
        for (auto const& in : node.input())
        {
            allConstant = allConstant && (in.empty() || constants.count(in) != 0);
        }
        if (!allConstant)
        {
            continue;
        }
        result.folded[static_cast<size_t>(i)] = true;
        ++result.nbFolded;
        for (auto const& o : node.output())
        {
            if (!o.empty())
            {
                constants.insert(o);
                foldedOutputs.insert(o);
            }
        }
    }
    if (result.nbFolded == 0)
    {
        return result;
    }
    // The values needed outside the folded part: inputs of other nodes and graph outputs.
    std::vector<std::string> needed;
    std::set<std::string> seen;
    auto need = [&](std::string const& name) {
        if (foldedOutputs.count(name) != 0 && seen.insert(name).second)
        {
            needed.push_back(name);
        }
    };
    for (int i = 0; i < nbNodes; ++i)
    {
        if (!result.folded[static_cast<size_t>(i)])
        {
            for (auto const& in : graph.node(i).input())
            {
                need(in);
            }
            // Values a subgraph (If branch, Loop body) uses from the enclosing graph are needed too.
            std::vector<::onnx::GraphProto const*> pending;
            for (auto const& attr : graph.node(i).attribute())
            {
                if (attr.has_g())
                {
                    pending.push_back(&attr.g());
                }
                for (auto const& g : attr.graphs())
                {
                    pending.push_back(&g);
                }
            }
            while (!pending.empty())
            {
                ::onnx::GraphProto const* g = pending.back();
                pending.pop_back();
                for (auto const& sub : g->node())
                {
                    for (auto const& in : sub.input())
                    {
                        need(in);
                    }
                    for (auto const& attr : sub.attribute())
                    {
                        if (attr.has_g())
                        {
                            pending.push_back(&attr.g());
                        }
                        for (auto const& sg : attr.graphs())
                        {
                            pending.push_back(&sg);
                        }
                    }
                }
            }
        }
    }
    for (auto const& o : graph.output())
    {
        need(o.name());
    }

    auto fallBack = [&](std::string const& why) {
        note(logger, why + "; importing the " + std::to_string(result.nbFolded) + " constant nodes normally");
        return FoldedConstants{{}, std::vector<bool>(static_cast<size_t>(nbNodes), false), 0};
    };
    if (needed.empty())
    {
        // Nothing outside uses them (dead code): skip them without building anything.
        return result;
    }

    VerboseLogger scratchLogger(logger);
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(scratchLogger));
    if (builder == nullptr)
    {
        return fallBack("cannot create a private builder");
    }
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    if (network == nullptr)
    {
        return fallBack("cannot create a scratch network");
    }
    std::vector<bool> skip(static_cast<size_t>(nbNodes));
    for (size_t i = 0; i < skip.size(); ++i)
    {
        skip[i] = !result.folded[i];
    }
    GraphImportOptions options;
    options.initializerOverrides = base.initializerOverrides;
    options.skipNodes = &skip;
    options.markOutputs = false;
    options.addGraphInputs = false;
    options.extraOutputs = needed;
    WeightStore weights;
    GraphImportResult importResult;
    ImportFailure failure;
    if (!importGraph(model, *network, &scratchLogger, weights, options, importResult, failure))
    {
        return fallBack("scratch import failed (" + failure.desc + ")");
    }
    std::map<std::string, OnnxConstant> values;
    try
    {
        if (!buildAndRun(*builder, *network, scratchLogger, values))
        {
            return fallBack("the scratch network did not build or run");
        }
    }
    catch (...)
    {
        return fallBack("exception while running the scratch network");
    }
    for (auto const& name : needed)
    {
        auto it = values.find(name);
        if (it == values.end())
        {
            return fallBack("value '" + name + "' was not computed");
        }
        result.values[name] = std::move(it->second);
    }
    note(logger, "folded " + std::to_string(result.nbFolded) + " nodes into " + std::to_string(needed.size())
            + " constants");
    return result;
}

} // namespace kiln
