// The rest of the IParser API: parseFromFile (with verbosity), loadModelProto + loadInitializer + parseModelProto,
// parseWithWeightDescriptors, supportsModel / supportsModelV2 partitions, error list management, setBuilderConfig,
// entry point version checks, the refitter that always fails, and IOnnxConfig (createONNXConfig).
#include "onnxTestModels.h"

#include "NvOnnxConfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvonnxparser::ErrorCode;

//! Keeps every message with its severity.
class AllLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override { messages.emplace_back(severity, msg); }
    bool has(Severity severity, std::string const& text) const
    {
        for (auto const& [s, m] : messages)
        {
            if (s == severity && m.find(text) != std::string::npos)
            {
                return true;
            }
        }
        return false;
    }
    std::vector<std::pair<Severity, std::string>> messages;
};

OnnxModelBuilder addModel()
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4});
    model.addInitializer("w", OnnxConstant::fromFloat({1, 2, 3, 4}, {4}));
    model.addNode("Add", {"x", "w"}, {"y"}).set_name("add");
    model.addOutput("y", DataType::kFLOAT);
    return model;
}

class ParserApiTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        mPath = std::filesystem::temp_directory_path()
            / ("kilnParserApi-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()) + ".onnx");
    }
    void TearDown() override
    {
        std::error_code ec;
        std::filesystem::remove(mPath, ec);
    }
    void write(std::string const& bytes)
    {
        std::ofstream out(mPath, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }

    std::filesystem::path mPath;
    std::mt19937 mRng{99};
};

TEST_F(ParserApiTest, ParseFromFileHonoursVerbosity)
{
    write(addModel().serialize());
    for (auto verbosity : {nvinfer1::ILogger::Severity::kERROR, nvinfer1::ILogger::Severity::kINFO})
    {
        AllLogger logger;
        std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
        std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
        std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
        ASSERT_TRUE(parser->parseFromFile(mPath.c_str(), static_cast<int>(verbosity)));
        EXPECT_EQ(network->getNbOutputs(), 1);
        bool const infoLogged = logger.has(nvinfer1::ILogger::Severity::kINFO, "ONNX parser: imported 1 nodes");
        EXPECT_EQ(infoLogged, verbosity == nvinfer1::ILogger::Severity::kINFO);
    }
}

TEST_F(ParserApiTest, OnnxConfigCarriesTheSettingsOfTensorRTSamples)
{
    std::unique_ptr<nvonnxparser::IOnnxConfig> config(nvonnxparser::createONNXConfig());
    ASSERT_NE(config, nullptr);
    // Defaults.
    EXPECT_EQ(config->getModelDtype(), DataType::kFLOAT);
    EXPECT_STREQ(config->getModelFileName(), "");
    EXPECT_STREQ(config->getTextFileName(), "");
    EXPECT_STREQ(config->getFullTextFileName(), "");
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kWARNING));
    EXPECT_FALSE(config->getPrintLayerInfo());

    // Setters copy their strings; null reads as "".
    std::string name = mPath.string();
    config->setModelFileName(name.c_str());
    name.assign(name.size(), '#');
    EXPECT_EQ(std::string(config->getModelFileName()), mPath.string());
    config->setTextFileName("net.txt");
    config->setFullTextFileName("net-full.txt");
    EXPECT_STREQ(config->getTextFileName(), "net.txt");
    EXPECT_STREQ(config->getFullTextFileName(), "net-full.txt");
    config->setTextFileName(nullptr);
    EXPECT_STREQ(config->getTextFileName(), "");
    config->setModelDtype(DataType::kHALF);
    EXPECT_EQ(config->getModelDtype(), DataType::kHALF);
    config->setPrintLayerInfo(true);
    EXPECT_TRUE(config->getPrintLayerInfo());

    // Verbosity moves by one and stays a valid ILogger::Severity.
    config->addVerbosity();
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kINFO));
    config->addVerbosity();
    config->addVerbosity();
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kVERBOSE));
    config->setVerbosityLevel(0);
    config->reduceVerbosity();
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kINTERNAL_ERROR));
    config->setVerbosityLevel(static_cast<int32_t>(nvinfer1::ILogger::Severity::kINFO));

    // As TensorRT's samples use it: the file name and verbosity go to parseFromFile.
    write(addModel().serialize());
    AllLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    ASSERT_TRUE(parser->parseFromFile(config->getModelFileName(), config->getVerbosityLevel()));
    EXPECT_EQ(network->getNbOutputs(), 1);
    EXPECT_TRUE(logger.has(nvinfer1::ILogger::Severity::kINFO, "ONNX parser: imported 1 nodes"));

    // Two objects are independent.
    std::unique_ptr<nvonnxparser::IOnnxConfig> other(nvonnxparser::createONNXConfig());
    ASSERT_NE(other, nullptr);
    EXPECT_STREQ(other->getModelFileName(), "");
    EXPECT_EQ(other->getModelDtype(), DataType::kFLOAT);
}

TEST_F(ParserApiTest, ExternalDataIsResolvedNextToTheModel)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4}), mRng);
    std::vector<float> weights(4);
    for (auto& v : weights)
    {
        v = std::uniform_real_distribution<float>(-5.0F, 5.0F)(mRng);
    }
    std::string const dataName = mPath.filename().string() + ".data";
    {
        std::ofstream data(mPath.parent_path() / dataName, std::ios::binary);
        float const pad = 0.0F;
        data.write(reinterpret_cast<char const*>(&pad), sizeof(pad)); // offset 4
        data.write(reinterpret_cast<char const*>(weights.data()), 16);
    }
    OnnxModelBuilder model = addModel();
    auto* w = model.model().mutable_graph()->mutable_initializer(0);
    w->clear_raw_data();
    w->set_data_location(::onnx::TensorProto::EXTERNAL);
    for (auto const& [key, value] : {std::pair<std::string, std::string>{"location", dataName}, {"offset", "4"},
             {"length", "16"}})
    {
        auto* entry = w->add_external_data();
        entry->set_key(key);
        entry->set_value(value);
    }
    std::string const bytes = model.serialize();
    write(bytes);
    auto check = [&](OnnxRunner& runner) {
        ASSERT_TRUE(runner.build());
        auto outputs = runner.run({{"x", x}});
        for (int64_t i = 0; i < 4; ++i)
        {
            EXPECT_EQ(static_cast<float>(outputs["y"].at(i)),
                static_cast<float>(x.at(i)) + weights[static_cast<size_t>(i)]);
        }
    };
    {
        OnnxRunner runner;
        ASSERT_TRUE(runner.parser().parseFromFile(mPath.c_str(), 1)) << runner.parserErrors();
        check(runner);
    }
    {
        OnnxRunner runner;
        ASSERT_TRUE(runner.parser().parse(bytes.data(), bytes.size(), mPath.c_str())) << runner.parserErrors();
        check(runner);
    }
    {
        // Without a model path the external file cannot be found.
        OnnxRunner runner;
        EXPECT_FALSE(runner.parser().parse(bytes.data(), bytes.size()));
        EXPECT_EQ(runner.parser().getNbErrors(), 1);
    }
    std::filesystem::remove(mPath.parent_path() / dataName);
}

TEST_F(ParserApiTest, ParseFromFileMissingFile)
{
    OnnxRunner runner;
    EXPECT_FALSE(runner.parser().parseFromFile("/nonexistent/kiln/model.onnx", 2));
    ASSERT_EQ(runner.parser().getNbErrors(), 1);
    EXPECT_EQ(runner.parser().getError(0)->code(), ErrorCode::kMODEL_DESERIALIZE_FAILED);
    EXPECT_NE(std::string(runner.parser().getError(0)->desc()).find("cannot open"), std::string::npos)
        << runner.parserErrors();
    EXPECT_FALSE(runner.parser().parseFromFile(nullptr, 2));
}

TEST_F(ParserApiTest, LoadInitializerReplacesTheWeights)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({4}), mRng);
    std::vector<float> user(4);
    for (auto& v : user)
    {
        v = std::uniform_real_distribution<float>(10.0F, 20.0F)(mRng);
    }
    std::string const bytes = addModel().serialize();
    OnnxRunner runner;
    auto& parser = runner.parser();
    ASSERT_TRUE(parser.loadModelProto(bytes.data(), bytes.size()));
    EXPECT_FALSE(parser.loadInitializer("nope", user.data(), user.size() * sizeof(float)));
    ASSERT_EQ(parser.getNbErrors(), 1);
    EXPECT_EQ(parser.getError(0)->code(), ErrorCode::kINVALID_VALUE);
    EXPECT_NE(std::string(parser.getError(0)->desc()).find("no initializer named 'nope'"), std::string::npos);
    parser.clearErrors();
    EXPECT_EQ(parser.getNbErrors(), 0);
    EXPECT_EQ(parser.getError(0), nullptr);
    ASSERT_TRUE(parser.loadInitializer("w", user.data(), user.size() * sizeof(float)));
    ASSERT_TRUE(parser.parseModelProto()) << runner.parserErrors();
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}});
    for (int64_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), static_cast<float>(x.at(i)) + user[static_cast<size_t>(i)]);
    }
}

TEST_F(ParserApiTest, LoadInitializerWithTheWrongSizeFailsAtParse)
{
    std::string const bytes = addModel().serialize();
    std::vector<float> user(3, 1.0F);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parser().loadModelProto(bytes.data(), bytes.size()));
    ASSERT_TRUE(runner.parser().loadInitializer("w", user.data(), user.size() * sizeof(float)));
    EXPECT_FALSE(runner.parser().parseModelProto());
    EXPECT_NE(runner.parserErrors().find("initializer 'w' holds 12 bytes"), std::string::npos) << runner.parserErrors();
}

TEST_F(ParserApiTest, ParseModelProtoWithoutAModel)
{
    OnnxRunner runner;
    EXPECT_FALSE(runner.parser().parseModelProto());
    EXPECT_FALSE(runner.parser().loadInitializer("w", nullptr, 0));
    EXPECT_NE(runner.parserErrors().find("no model is loaded"), std::string::npos) << runner.parserErrors();
}

TEST_F(ParserApiTest, ParseWithWeightDescriptors)
{
    std::string const bytes = addModel().serialize();
    OnnxRunner runner;
    KILN_IGNORE_DEPRECATED_BEGIN
    EXPECT_TRUE(runner.parser().parseWithWeightDescriptors(bytes.data(), bytes.size()));
    KILN_IGNORE_DEPRECATED_END
    EXPECT_EQ(runner.network().getNbOutputs(), 1);
}

//! x -> Add(a) -> KilnUnknown(b) -> Add(c) -> y, optionally with value_info for b's output.
OnnxModelBuilder partitionModel(bool withValueInfo)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4});
    model.addNode("Add", {"x", "x"}, {"a"});
    model.addNode("KilnUnknown", {"a"}, {"b"});
    model.addNode("Add", {"b", "b"}, {"c"});
    model.addNode("Add", {"x", "x"}, {"d"});
    model.addOutput("c", DataType::kFLOAT);
    model.addOutput("d", DataType::kFLOAT);
    if (withValueInfo)
    {
        auto* info = model.model().mutable_graph()->add_value_info();
        info->set_name("b");
        auto* tt = info->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(::onnx::TensorProto::FLOAT);
        tt->mutable_shape()->add_dim()->set_dim_value(4);
    }
    return model;
}

std::vector<std::pair<std::vector<int64_t>, bool>> partitions(nvonnxparser::IParser& parser)
{
    std::vector<std::pair<std::vector<int64_t>, bool>> out;
    for (int64_t i = 0; i < parser.getNbSubgraphs(); ++i)
    {
        int64_t length = 0;
        int64_t* nodes = parser.getSubgraphNodes(i, length);
        out.emplace_back(std::vector<int64_t>(nodes, nodes + length), parser.isSubgraphSupported(i));
    }
    return out;
}

TEST_F(ParserApiTest, SupportsModelV2PartitionsAroundAnUnsupportedNode)
{
    using P = std::vector<std::pair<std::vector<int64_t>, bool>>;
    {
        std::string const bytes = partitionModel(true).serialize();
        OnnxRunner runner;
        EXPECT_FALSE(runner.parser().supportsModelV2(bytes.data(), bytes.size()));
        EXPECT_EQ(partitions(runner.parser()), (P{{{0}, true}, {{1}, false}, {{2, 3}, true}}));
        EXPECT_EQ(runner.network().getNbLayers(), 0); // the user's network is untouched
        EXPECT_NE(runner.parserErrors().find("KilnUnknown"), std::string::npos);
    }
    {
        // Without value_info the unknown node's output has no type: its consumer cannot be checked.
        std::string const bytes = partitionModel(false).serialize();
        OnnxRunner runner;
        EXPECT_FALSE(runner.parser().supportsModelV2(bytes.data(), bytes.size()));
        EXPECT_EQ(partitions(runner.parser()), (P{{{0}, true}, {{1, 2}, false}, {{3}, true}}));
        EXPECT_FALSE(runner.parser().isSubgraphSupported(7));
        int64_t length = -1;
        EXPECT_EQ(runner.parser().getSubgraphNodes(7, length), nullptr);
        EXPECT_EQ(length, 0);
    }
    {
        std::string const bytes = addModel().serialize();
        OnnxRunner runner;
        EXPECT_TRUE(runner.parser().supportsModelV2(bytes.data(), bytes.size()));
        EXPECT_EQ(partitions(runner.parser()), (P{{{0}, true}}));
    }
}

TEST_F(ParserApiTest, DeprecatedSupportsModelFillsTheCollection)
{
    std::string const bytes = partitionModel(true).serialize();
    OnnxRunner runner;
    SubGraphCollection_t collection;
    KILN_IGNORE_DEPRECATED_BEGIN
    EXPECT_FALSE(runner.parser().supportsModel(bytes.data(), bytes.size(), collection));
    KILN_IGNORE_DEPRECATED_END
    ASSERT_EQ(collection.size(), 3U);
    EXPECT_EQ(collection[1].first, (std::vector<size_t>{1}));
    EXPECT_FALSE(collection[1].second);
}

TEST_F(ParserApiTest, SetBuilderConfigIsAccepted)
{
    OnnxRunner runner;
    EXPECT_TRUE(runner.parser().setBuilderConfig(&runner.runner().config()));
    EXPECT_TRUE(runner.parser().setBuilderConfig(nullptr));
}

TEST_F(ParserApiTest, CreateParserChecksTheVersionAndTheNetwork)
{
    AllLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    EXPECT_EQ(createNvOnnxParser_INTERNAL(network.get(), &logger, 990000), nullptr);
    EXPECT_TRUE(logger.has(nvinfer1::ILogger::Severity::kERROR, "compiled against ONNX parser API 990000"));
    EXPECT_EQ(createNvOnnxParser_INTERNAL(nullptr, &logger, NV_ONNX_PARSER_VERSION), nullptr);
}

TEST_F(ParserApiTest, RefitterAlwaysFails)
{
    AllLogger logger;
    std::unique_ptr<nvonnxparser::IParserRefitter> refitter(static_cast<nvonnxparser::IParserRefitter*>(
        createNvOnnxParserRefitter_INTERNAL(nullptr, &logger, NV_ONNX_PARSER_VERSION)));
    ASSERT_NE(refitter, nullptr);
    std::string const bytes = addModel().serialize();
    EXPECT_FALSE(refitter->refitFromBytes(bytes.data(), bytes.size()));
    EXPECT_FALSE(refitter->refitFromFile("model.onnx"));
    EXPECT_FALSE(refitter->loadModelProto(bytes.data(), bytes.size()));
    EXPECT_FALSE(refitter->loadInitializer("w", bytes.data(), 4));
    EXPECT_FALSE(refitter->refitModelProto());
    ASSERT_EQ(refitter->getNbErrors(), 5);
    EXPECT_EQ(refitter->getError(0)->code(), ErrorCode::kREFIT_FAILED);
    EXPECT_NE(std::string(refitter->getError(0)->desc()).find("refit is not supported by Kiln yet"), std::string::npos);
    EXPECT_TRUE(logger.has(nvinfer1::ILogger::Severity::kERROR, "refit is not supported by Kiln yet"));
    refitter->clearErrors();
    EXPECT_EQ(refitter->getNbErrors(), 0);
}

TEST_F(ParserApiTest, ErrorRecordsLocation)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2});
    model.addNode("KilnUnknown", {"x"}, {"y"}).set_name("u");
    model.addOutput("y", DataType::kFLOAT);
    std::string const bytes = model.serialize();
    OnnxRunner runner;
    EXPECT_FALSE(runner.parse(bytes, true));
    ASSERT_EQ(runner.parser().getNbErrors(), 1);
    auto const* e = runner.parser().getError(0);
    EXPECT_GT(e->line(), 0);
    EXPECT_NE(std::string(e->file()).find("onnx"), std::string::npos);
    EXPECT_STRNE(e->func(), "");
    EXPECT_EQ(e->localFunctionStackSize(), 0);
    EXPECT_EQ(e->localFunctionStack(), nullptr);
}

} // namespace
} // namespace kiln::test
