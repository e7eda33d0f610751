// trtNamesConsumer.cpp — a program written as TensorRT's samples and tools are: linked with plain `-lnvinfer` (no
// Kiln name anywhere), it loads the plugin library and the ONNX parser at run time by their TensorRT file names,
// dlopen("libnvinfer_plugin.so.10") and dlopen("libnvonnxparser.so.10"), and reaches them through their C entry
// points (initLibNvInferPlugins, createNvOnnxParser_INTERNAL). It then parses an ONNX model (Relu, encoded here),
// builds, serializes, deserializes and runs it, and checks that the plugins registered by the loaded library are
// visible in the registry of the libnvinfer the program was linked with (one Kiln in the process).
// Built by scripts/test-install.sh (installed tree) and by tests/CMakeLists.txt (build tree, ctest
// install.trtNamesConsumer). Run it with the library directory on LD_LIBRARY_PATH, as TensorRT's programs are.
#include <NvInfer.h>
#include <NvOnnxParser.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

class ConsoleLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[trtNamesConsumer] %s\n", msg);
        }
    }
};

int fail(std::string const& what)
{
    std::fprintf(stderr, "trtNamesConsumer: FAILED: %s\n", what.c_str());
    return 1;
}

//! dlopen by file name only, as TensorRT's samples do; the dynamic loader searches LD_LIBRARY_PATH.
void* openByName(char const* name)
{
    void* handle = dlopen(name, RTLD_LAZY);
    if (handle == nullptr)
    {
        char const* error = dlerror();
        std::fprintf(stderr, "trtNamesConsumer: dlopen(%s): %s\n", name, error != nullptr ? error : "?");
    }
    return handle;
}

// ---- a minimal protobuf writer for the ONNX model -----------------------------------------------------------------

void varint(std::string& out, uint64_t value)
{
    while (value >= 0x80)
    {
        out.push_back(static_cast<char>((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

void intField(std::string& out, uint32_t field, uint64_t value)
{
    varint(out, (uint64_t{field} << 3) | 0);
    varint(out, value);
}

void bytesField(std::string& out, uint32_t field, std::string const& bytes)
{
    varint(out, (uint64_t{field} << 3) | 2);
    varint(out, bytes.size());
    out += bytes;
}

//! ValueInfoProto: name, FLOAT tensor of shape [n].
std::string floatVector(std::string const& name, int64_t n)
{
    std::string dim;
    intField(dim, 1, static_cast<uint64_t>(n)); // Dimension.dim_value
    std::string shape;
    bytesField(shape, 1, dim); // TensorShapeProto.dim
    std::string tensor;
    intField(tensor, 1, 1); // elem_type FLOAT
    bytesField(tensor, 2, shape);
    std::string type;
    bytesField(type, 1, tensor); // TypeProto.tensor_type
    std::string info;
    bytesField(info, 1, name);
    bytesField(info, 2, type);
    return info;
}

//! ModelProto (IR 8, opset 13): y = Relu(x), x and y FLOAT [n].
std::string reluModel(int64_t n)
{
    std::string node;
    bytesField(node, 1, "x");
    bytesField(node, 2, "y");
    bytesField(node, 3, "relu");
    bytesField(node, 4, "Relu");
    std::string graph;
    bytesField(graph, 1, node);
    bytesField(graph, 2, "trtNamesConsumer");
    bytesField(graph, 11, floatVector("x", n));
    bytesField(graph, 12, floatVector("y", n));
    std::string opset;
    bytesField(opset, 1, "");
    intField(opset, 2, 13);
    std::string model;
    intField(model, 1, 8);
    bytesField(model, 7, graph);
    bytesField(model, 8, opset);
    return model;
}

} // namespace

int main()
{
    ConsoleLogger logger;

    // The plugin library, as TensorRT's samples load it.
    void* pluginLibrary = openByName("libnvinfer_plugin.so.10");
    if (pluginLibrary == nullptr)
    {
        return fail("the plugin library libnvinfer_plugin.so.10 is not found by name");
    }
    using InitPlugins = bool (*)(void*, char const*);
    auto initPlugins = reinterpret_cast<InitPlugins>(dlsym(pluginLibrary, "initLibNvInferPlugins"));
    if (initPlugins == nullptr || !initPlugins(&logger, ""))
    {
        return fail("initLibNvInferPlugins from libnvinfer_plugin.so.10");
    }
    // Its creators landed in the registry of the libnvinfer this program links: one Kiln in the process.
    if (getPluginRegistry()->getCreator("LReLU_TRT", "1", "") == nullptr)
    {
        return fail("LReLU_TRT, registered by the loaded plugin library, is not in getPluginRegistry()");
    }

    // The ONNX parser, the same way.
    void* parserLibrary = openByName("libnvonnxparser.so.10");
    if (parserLibrary == nullptr)
    {
        return fail("the parser library libnvonnxparser.so.10 is not found by name");
    }
    using CreateParser = void* (*) (void*, void*, int);
    auto createParser = reinterpret_cast<CreateParser>(dlsym(parserLibrary, "createNvOnnxParser_INTERNAL"));
    if (createParser == nullptr)
    {
        return fail("createNvOnnxParser_INTERNAL in libnvonnxparser.so.10");
    }

    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder ? builder->createNetworkV2(0) : nullptr};
    if (!network)
    {
        return fail("createInferBuilder / createNetworkV2");
    }
    std::unique_ptr<nvonnxparser::IParser> parser{
        static_cast<nvonnxparser::IParser*>(createParser(network.get(), &logger, NV_ONNX_PARSER_VERSION))};
    int64_t const n = 64;
    std::string const model = reluModel(n);
    if (!parser || !parser->parse(model.data(), model.size()))
    {
        for (int32_t i = 0; parser && i < parser->getNbErrors(); ++i)
        {
            std::fprintf(stderr, "  parser: %s\n", parser->getError(i)->desc());
        }
        return fail("parsing the Relu model with the dlopen'ed parser");
    }

    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{config ? builder->buildSerializedNetwork(*network, *config) : nullptr};
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{
        plan && runtime ? runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine ? engine->createExecutionContext() : nullptr};
    if (!context)
    {
        return fail("build, serialize, deserialize, createExecutionContext");
    }
    std::mt19937 rng(18);
    std::uniform_real_distribution<float> values(-3.0F, 3.0F);
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x)
    {
        v = values(rng);
    }
    std::vector<float> y(x.size(), std::nanf(""));
    if (!context->setTensorAddress("x", x.data()) || !context->setTensorAddress("y", y.data())
        || !context->enqueueV3(nullptr))
    {
        return fail("enqueueV3 (run with KILN_BACKEND=cpu: the buffers are host memory)");
    }
    for (size_t i = 0; i < x.size(); ++i)
    {
        if (y[i] != std::fmax(x[i], 0.0F))
        {
            return fail("Relu output " + std::to_string(i) + " is " + std::to_string(y[i]));
        }
    }

    Dl_info where{};
    char const* libnvinfer = dladdr(reinterpret_cast<void*>(&createInferBuilder_INTERNAL), &where) != 0 && where.dli_fname
        ? where.dli_fname
        : "?";
    std::printf("trtNamesConsumer: PASSED (libnvinfer from %s; plugins and parser loaded by their .so.10 names)\n",
        libnvinfer);
    // The libraries stay loaded (as in TensorRT's samples): the registry holds the plugin library's creators.
    return 0;
}
