// Shared helpers for the ONNX parser tests (see onnxTestModels.h).
#include "onnxTestModels.h"

#include "onnx/tensorConversion.h"

#include <cstring>
#include <sstream>

namespace kiln::test
{

using nvinfer1::DataType;
using TP = ::onnx::TensorProto;

int32_t onnxElemType(DataType type)
{
    return kilnToOnnxType(type);
}

namespace
{

::onnx::AttributeProto namedAttr(std::string const& name, ::onnx::AttributeProto::AttributeType type)
{
    ::onnx::AttributeProto a;
    a.set_name(name);
    a.set_type(type);
    return a;
}

//! The shape `dims` on a tensor type; a negative extent becomes the symbolic dimension "<name>_d<i>".
void setShape(::onnx::TypeProto_Tensor& type, std::string const& name, std::vector<int64_t> const& dims)
{
    auto* shape = type.mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i)
    {
        auto* dim = shape->add_dim();
        if (dims[i] < 0)
        {
            dim->set_dim_param(name + "_d" + std::to_string(i));
        }
        else
        {
            dim->set_dim_value(dims[i]);
        }
    }
}

} // namespace

::onnx::AttributeProto intAttr(std::string const& name, int64_t value)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::INT);
    a.set_i(value);
    return a;
}

::onnx::AttributeProto floatAttr(std::string const& name, float value)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::FLOAT);
    a.set_f(value);
    return a;
}

::onnx::AttributeProto stringAttr(std::string const& name, std::string const& value)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::STRING);
    a.set_s(value);
    return a;
}

::onnx::AttributeProto intsAttr(std::string const& name, std::vector<int64_t> const& values)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::INTS);
    for (int64_t v : values)
    {
        a.add_ints(v);
    }
    return a;
}

::onnx::AttributeProto floatsAttr(std::string const& name, std::vector<float> const& values)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::FLOATS);
    for (float v : values)
    {
        a.add_floats(v);
    }
    return a;
}

::onnx::AttributeProto stringsAttr(std::string const& name, std::vector<std::string> const& values)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::STRINGS);
    for (auto const& v : values)
    {
        a.add_strings(v);
    }
    return a;
}

::onnx::AttributeProto tensorAttr(std::string const& name, kiln::OnnxConstant const& value)
{
    ::onnx::AttributeProto a = namedAttr(name, ::onnx::AttributeProto::TENSOR);
    *a.mutable_t() = makeTensorProto("", value);
    return a;
}

::onnx::TensorProto makeTensorProto(std::string const& name, kiln::OnnxConstant const& value)
{
    TP t;
    t.set_name(name);
    t.set_data_type(onnxElemType(value.type));
    for (int64_t d : value.shape)
    {
        t.add_dims(d);
    }
    t.set_raw_data(std::string(reinterpret_cast<char const*>(value.bytes.data()), value.bytes.size()));
    return t;
}

kiln::OnnxConstant toConstant(HostTensor const& tensor)
{
    kiln::OnnxConstant c;
    c.type = tensor.type;
    for (int32_t i = 0; i < tensor.dims.nbDims; ++i)
    {
        c.shape.push_back(tensor.dims.d[i]);
    }
    c.bytes = tensor.bytes;
    return c;
}

OnnxModelBuilder::OnnxModelBuilder(int64_t opset, std::string const& graphName)
{
    mModel.set_ir_version(8);
    mModel.set_producer_name("kilnTest");
    auto* op = mModel.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    mModel.mutable_graph()->set_name(graphName);
}

OnnxModelBuilder& OnnxModelBuilder::addOpset(std::string const& domain, int64_t version)
{
    auto* op = mModel.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
    return *this;
}

OnnxModelBuilder& OnnxModelBuilder::addInput(std::string const& name, int32_t elemType, std::vector<int64_t> const& dims)
{
    auto* input = mModel.mutable_graph()->add_input();
    input->set_name(name);
    auto* tt = input->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    setShape(*tt, name, dims);
    return *this;
}

OnnxModelBuilder& OnnxModelBuilder::addInitializer(std::string const& name, kiln::OnnxConstant const& value)
{
    return addInitializer(name, makeTensorProto(name, value));
}

OnnxModelBuilder& OnnxModelBuilder::addInitializer(std::string const& name, ::onnx::TensorProto tensor)
{
    tensor.set_name(name);
    *mModel.mutable_graph()->add_initializer() = std::move(tensor);
    return *this;
}

::onnx::NodeProto& OnnxModelBuilder::addNode(std::string const& op, std::vector<std::string> const& inputs,
    std::vector<std::string> const& outputs, std::vector<::onnx::AttributeProto> const& attributes,
    std::string const& domain)
{
    auto* node = mModel.mutable_graph()->add_node();
    node->set_op_type(op);
    node->set_name(op + "_" + std::to_string(mNodeCount++));
    node->set_domain(domain);
    for (auto const& in : inputs)
    {
        node->add_input(in);
    }
    for (auto const& out : outputs)
    {
        node->add_output(out);
    }
    for (auto const& a : attributes)
    {
        *node->add_attribute() = a;
    }
    return *node;
}

OnnxModelBuilder& OnnxModelBuilder::addOutput(
    std::string const& name, int32_t elemType, std::vector<int64_t> const& dims, bool withShape)
{
    auto* output = mModel.mutable_graph()->add_output();
    output->set_name(name);
    auto* tt = output->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    if (withShape || !dims.empty())
    {
        setShape(*tt, name, dims);
    }
    return *this;
}

std::string OnnxModelBuilder::serialize() const
{
    std::string bytes;
    mModel.SerializeToString(&bytes);
    return bytes;
}

std::string ParseOutcome::allErrors() const
{
    std::ostringstream out;
    for (auto const& e : errors)
    {
        out << e.desc << "\n";
    }
    return out.str();
}

bool ParseOutcome::hasError(std::string const& text) const
{
    for (auto const& e : errors)
    {
        if (e.desc.find(text) != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

void expectParseError(OnnxModelBuilder const& model, std::string const& text)
{
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError(text)) << "expected '" << text << "' in:\n" << outcome.allErrors();
}

void expectSingleParserError(ParseOutcome const& outcome, nvonnxparser::ErrorCode code, std::string const& text)
{
    EXPECT_FALSE(outcome.ok);
    ASSERT_EQ(outcome.errors.size(), 1U) << outcome.allErrors();
    EXPECT_EQ(outcome.errors[0].code, code) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError(text)) << "expected '" << text << "' in:\n" << outcome.allErrors();
}

namespace
{

std::vector<ParserErrorInfo> collectErrors(nvonnxparser::IParser const& parser)
{
    std::vector<ParserErrorInfo> errors;
    for (int i = 0; i < parser.getNbErrors(); ++i)
    {
        auto const* e = parser.getError(i);
        errors.push_back({e->code(), e->desc(), e->node(), e->nodeName(), e->nodeOperator()});
    }
    return errors;
}

//! Keeps errors and warnings apart.
class SplitLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            errors.emplace_back(msg);
        }
        else if (severity == Severity::kWARNING)
        {
            warnings.emplace_back(msg);
        }
    }
    std::vector<std::string> errors;
    std::vector<std::string> warnings;
};

} // namespace

ParseOutcome parseOnly(std::string const& bytes, uint32_t parserFlags)
{
    ParseOutcome outcome;
    SplitLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    if (parser == nullptr)
    {
        ADD_FAILURE() << "createParser returned null";
        return outcome;
    }
    parser->setFlags(parserFlags);
    outcome.ok = parser->parse(bytes.data(), bytes.size());
    outcome.errors = collectErrors(*parser);
    outcome.loggedErrors = logger.errors;
    outcome.loggedWarnings = logger.warnings;
    outcome.nbLayers = network->getNbLayers();
    return outcome;
}

OnnxRunner::OnnxRunner(uint32_t networkFlags)
    : mRunner(std::make_unique<NetworkRunner>(networkFlags))
{
    mParser.reset(nvonnxparser::createParser(mRunner->network(), mRunner->logger()));
}

OnnxRunner::~OnnxRunner()
{
    mParser.reset();
    mRunner.reset();
}

std::string OnnxRunner::parserErrors() const
{
    std::ostringstream out;
    for (int i = 0; i < mParser->getNbErrors(); ++i)
    {
        out << mParser->getError(i)->desc() << "\n";
    }
    return out.str();
}

bool OnnxRunner::parse(std::string const& bytes, bool expectFailure)
{
    if (mParser == nullptr)
    {
        ADD_FAILURE() << "createParser returned null";
        return false;
    }
    bool const ok = mParser->parse(bytes.data(), bytes.size());
    if (!ok && !expectFailure)
    {
        ADD_FAILURE() << "ONNX parse failed:\n" << parserErrors();
    }
    return ok;
}

bool OnnxRunner::build()
{
    bool const ok = mRunner->build();
    if (!ok)
    {
        ADD_FAILURE() << "build failed:\n" << mRunner->logger().allErrors();
    }
    return ok;
}

std::map<std::string, HostTensor> OnnxRunner::run(std::map<std::string, HostTensor> const& inputs, int32_t profile)
{
    return mRunner->run(inputs, profile);
}

std::map<std::string, HostTensor> runOnnxModel(
    OnnxModelBuilder const& model, std::map<std::string, HostTensor> const& inputs)
{
    OnnxRunner runner;
    if (!runner.parse(model) || !runner.build())
    {
        return {};
    }
    return runner.run(inputs);
}

int32_t countLayers(nvinfer1::INetworkDefinition& network, nvinfer1::LayerType type)
{
    int32_t n = 0;
    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        n += network.getLayer(i)->getType() == type ? 1 : 0;
    }
    return n;
}

FoldedMaskModel foldedMaskModel(std::mt19937& rng)
{
    std::uniform_int_distribution<int64_t> small(0, 3);
    FoldedMaskModel m;
    for (int32_t i = 0; i < 64; ++i)
    {
        m.a.push_back(small(rng));
        m.b.push_back(small(rng));
        m.c.push_back(small(rng));
    }
    OnnxModelBuilder model(13);
    model.addInput("x", nvinfer1::DataType::kFLOAT, {64});
    model.addInitializer("a", kiln::OnnxConstant::fromInt64(m.a, {64}));
    model.addInitializer("b", kiln::OnnxConstant::fromInt64(m.b, {64}));
    model.addInitializer("c", kiln::OnnxConstant::fromInt64(m.c, {64}));
    model.addNode("Equal", {"a", "b"}, {"same"});
    model.addNode("Greater", {"a", "c"}, {"above"});
    model.addNode("Not", {"above"}, {"notAbove"});
    model.addNode("And", {"same", "notAbove"}, {"mask"});
    model.addNode("Neg", {"x"}, {"negX"});
    model.addNode("Where", {"mask", "x", "negX"}, {"y"});
    model.addOutput("y", nvinfer1::DataType::kFLOAT);
    m.bytes = model.serialize();
    return m;
}

} // namespace kiln::test
