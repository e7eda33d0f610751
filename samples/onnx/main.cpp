// sampleOnnxPlugin — the main job's model and its check, in plain C++ (protobuf through ONNX's generated classes;
// no Python, nothing downloaded).
//   sampleOnnxPlugin generate DIR        writes DIR/model.onnx and the input DIR/x.bin (raw FP32, batch 4)
//   sampleOnnxPlugin check DIR OUT.json  recomputes y for DIR/x.bin and compares it with kilnexec's --exportOutput
// The model: y = Relu(ScaleTacticsPlugin(x @ W + b, alpha = 0.5)), x [batch, 8] with a dynamic batch, W [8, 16] and
// b [16] random initializers. "ScaleTacticsPlugin" is no ONNX op: the parser finds it in the plugin registry
// (plugin_namespace "kilnSamples", plugin_version "1"), served by libkilnSampleOnnxPlugins.so.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace
{

constexpr int kIN = 8;
constexpr int kOUT = 16;
constexpr int kBATCH = 4;
constexpr float kALPHA = 0.5F;
constexpr double kTOLERANCE = 1e-4;

std::vector<float> randomValues(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    std::vector<float> v(n);
    for (float& x : v)
    {
        x = dist(rng);
    }
    return v;
}

std::vector<float> weights()
{
    return randomValues(kIN * kOUT, 1001);
}

std::vector<float> bias()
{
    return randomValues(kOUT, 1002);
}

void addFloatInitializer(onnx::GraphProto& graph, std::string const& name, std::vector<int64_t> const& dims,
    std::vector<float> const& values)
{
    onnx::TensorProto* t = graph.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
    {
        t->add_dims(d);
    }
    for (float v : values)
    {
        t->add_float_data(v);
    }
}

void addFloatValueInfo(onnx::ValueInfoProto* info, std::string const& name, std::string const& batch, int64_t width)
{
    info->set_name(name);
    onnx::TypeProto_Tensor* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_param(batch);
    tensor->mutable_shape()->add_dim()->set_dim_value(width);
}

onnx::NodeProto* addNode(onnx::GraphProto& graph, std::string const& op, std::vector<std::string> const& inputs,
    std::string const& output)
{
    onnx::NodeProto* node = graph.add_node();
    node->set_op_type(op);
    node->set_name(op + "_0");
    for (std::string const& input : inputs)
    {
        node->add_input(input);
    }
    node->add_output(output);
    return node;
}

bool writeFile(std::string const& path, void const* data, size_t size)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
    return static_cast<bool>(out);
}

int generate(std::string const& dir)
{
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("sampleOnnxPlugin");
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    onnx::GraphProto& graph = *model.mutable_graph();
    graph.set_name("mainJob");
    addFloatValueInfo(graph.add_input(), "x", "batch", kIN);
    addFloatInitializer(graph, "W", {kIN, kOUT}, weights());
    addFloatInitializer(graph, "b", {kOUT}, bias());
    addNode(graph, "MatMul", {"x", "W"}, "h");
    addNode(graph, "Add", {"h", "b"}, "z");
    onnx::NodeProto* custom = addNode(graph, "ScaleTacticsPlugin", {"z"}, "s");
    auto addAttribute = [custom](std::string const& name) {
        onnx::AttributeProto* a = custom->add_attribute();
        a->set_name(name);
        return a;
    };
    onnx::AttributeProto* alpha = addAttribute("alpha");
    alpha->set_type(onnx::AttributeProto::FLOAT);
    alpha->set_f(kALPHA);
    onnx::AttributeProto* ns = addAttribute("plugin_namespace");
    ns->set_type(onnx::AttributeProto::STRING);
    ns->set_s("kilnSamples");
    onnx::AttributeProto* version = addAttribute("plugin_version");
    version->set_type(onnx::AttributeProto::STRING);
    version->set_s("1");
    addNode(graph, "Relu", {"s"}, "y");
    addFloatValueInfo(graph.add_output(), "y", "batch", kOUT);

    std::string bytes;
    if (!model.SerializeToString(&bytes) || !writeFile(dir + "/model.onnx", bytes.data(), bytes.size()))
    {
        std::fprintf(stderr, "sampleOnnxPlugin: cannot write %s/model.onnx\n", dir.c_str());
        return 1;
    }
    std::vector<float> const x = randomValues(kBATCH * kIN, 1003);
    if (!writeFile(dir + "/x.bin", x.data(), x.size() * sizeof(float)))
    {
        std::fprintf(stderr, "sampleOnnxPlugin: cannot write %s/x.bin\n", dir.c_str());
        return 1;
    }
    std::printf("sampleOnnxPlugin: wrote %s/model.onnx (MatMul -> Add -> ScaleTacticsPlugin [custom op, alpha %.2f] "
                "-> Relu; x [batch, %d] -> y [batch, %d]) and %s/x.bin (batch %d)\n",
        dir.c_str(), static_cast<double>(kALPHA), kIN, kOUT, dir.c_str(), kBATCH);
    return 0;
}

//! The values of output "y" in kilnexec's --exportOutput file ([{"name", "dimensions", "values": [...]}, ...]).
bool readExportedY(std::string const& path, std::vector<double>& values, std::string& dims)
{
    std::ifstream in(path, std::ios::binary);
    std::string const text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t const name = text.find("\"name\" : \"y\"");
    size_t const dimsAt = text.find("\"dimensions\" : \"", name);
    size_t const open = text.find('[', text.find("\"values\"", name));
    if (name == std::string::npos || dimsAt == std::string::npos || open == std::string::npos)
    {
        return false;
    }
    size_t const dimsStart = dimsAt + std::strlen("\"dimensions\" : \"");
    dims = text.substr(dimsStart, text.find('"', dimsStart) - dimsStart);
    char const* p = text.c_str() + open + 1;
    while (true)
    {
        while (*p == ' ' || *p == ',' || *p == '\n')
        {
            ++p;
        }
        if (*p == ']' || *p == '\0')
        {
            return *p == ']';
        }
        char* end = nullptr;
        double const v = std::strtod(p, &end);
        if (end == p)
        {
            return false; // "NaN"/"Infinity" strings or garbage
        }
        values.push_back(v);
        p = end;
    }
}

int check(std::string const& dir, std::string const& outputJson)
{
    std::ifstream in(dir + "/x.bin", std::ios::binary);
    std::vector<float> x(kBATCH * kIN);
    in.read(reinterpret_cast<char*>(x.data()), static_cast<std::streamsize>(x.size() * sizeof(float)));
    if (!in)
    {
        std::fprintf(stderr, "sampleOnnxPlugin: cannot read %s/x.bin (run 'generate' first)\n", dir.c_str());
        return 1;
    }
    std::vector<double> actual;
    std::string dims;
    if (!readExportedY(outputJson, actual, dims))
    {
        std::fprintf(stderr, "sampleOnnxPlugin: %s holds no numeric output 'y' (kilnexec --exportOutput)\n",
            outputJson.c_str());
        return 1;
    }
    std::vector<float> const w = weights();
    std::vector<float> const b = bias();
    std::vector<double> expected(kBATCH * kOUT);
    for (int r = 0; r < kBATCH; ++r)
    {
        for (int c = 0; c < kOUT; ++c)
        {
            double acc = b[c];
            for (int k = 0; k < kIN; ++k)
            {
                acc += static_cast<double>(x[r * kIN + k]) * w[k * kOUT + c];
            }
            expected[r * kOUT + c] = std::max(0.0, static_cast<double>(kALPHA) * acc);
        }
    }
    std::string const expectedDims = std::to_string(kBATCH) + "x" + std::to_string(kOUT);
    if (dims != expectedDims || actual.size() != expected.size())
    {
        std::fprintf(stderr, "sampleOnnxPlugin: output y is %s with %zu values; expected %s\n", dims.c_str(),
            actual.size(), expectedDims.c_str());
        return 1;
    }
    double maxError = 0.0;
    int bad = 0;
    for (size_t i = 0; i < expected.size(); ++i)
    {
        double const error = std::fabs(actual[i] - expected[i]);
        maxError = std::max(maxError, error);
        if (error > kTOLERANCE * (1.0 + std::fabs(expected[i])))
        {
            if (bad++ < 5)
            {
                std::fprintf(stderr, "sampleOnnxPlugin: y[%zu] = %.9g, reference %.9g\n", i, actual[i], expected[i]);
            }
        }
    }
    if (bad > 0)
    {
        std::fprintf(stderr, "sampleOnnxPlugin: FAILED: %d of %zu values differ from the C++ reference (max error %.3g)\n",
            bad, expected.size(), maxError);
        return 1;
    }
    std::printf("sampleOnnxPlugin: PASSED: output y (%s) matches the C++ reference (max abs error %.3g, tolerance "
                "%.0e relative)\n",
        dims.c_str(), maxError, kTOLERANCE);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::string const command = argc > 1 ? argv[1] : "";
    if (command == "generate" && argc == 3)
    {
        return generate(argv[2]);
    }
    if (command == "check" && argc == 4)
    {
        return check(argv[2], argv[3]);
    }
    std::fprintf(stderr, "usage: sampleOnnxPlugin generate DIR | sampleOnnxPlugin check DIR OUTPUT.json\n");
    return 2;
}
