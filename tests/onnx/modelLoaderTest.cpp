// modelLoader: round trips of small ModelProtos through files and memory, external data (read, path
// traversal, out-of-range offsets), malformed inputs (corrupt, truncated, missing, no ir_version/opset), and
// one real model from Debian's libonnx-testdata when it is installed.
#include "onnx/modelLoader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

namespace kiln
{
namespace
{

namespace fs = std::filesystem;

class ModelLoaderTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::random_device device;
        mDir = fs::temp_directory_path()
            / ("kilnModelLoader-" + std::to_string(::getpid()) + "-" + std::to_string(device()));
        fs::create_directories(mDir / "model");
    }
    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(mDir, ec);
    }

    //! The model directory (a subdirectory, so that "../" escapes it into a real directory).
    fs::path modelDir() const { return mDir / "model"; }

    static void writeFile(fs::path const& path, std::string const& bytes)
    {
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        ASSERT_TRUE(out.good()) << path;
    }

    //! An Add model with opset 13 and one float initializer `w` (4 values, raw data).
    static ::onnx::ModelProto makeModel()
    {
        ::onnx::ModelProto model;
        model.set_ir_version(8);
        model.set_producer_name("kilnTest");
        auto* opset = model.add_opset_import();
        opset->set_domain("");
        opset->set_version(13);
        auto* graph = model.mutable_graph();
        graph->set_name("add");
        auto* node = graph->add_node();
        node->set_op_type("Add");
        node->add_input("x");
        node->add_input("w");
        node->add_output("y");
        for (char const* name : {"x", "y"})
        {
            auto* value = (name[0] == 'x') ? graph->add_input() : graph->add_output();
            value->set_name(name);
            auto* tensorType = value->mutable_type()->mutable_tensor_type();
            tensorType->set_elem_type(::onnx::TensorProto::FLOAT);
            tensorType->mutable_shape()->add_dim()->set_dim_value(4);
        }
        auto* w = graph->add_initializer();
        w->set_name("w");
        w->set_data_type(::onnx::TensorProto::FLOAT);
        w->add_dims(4);
        float const values[4] = {1.5F, -2.0F, 3.25F, 0.125F};
        w->set_raw_data(std::string(reinterpret_cast<char const*>(values), sizeof(values)));
        return model;
    }

    //! Turn initializer `w` into external data at `location` with the given offset/length entries.
    static void makeExternal(::onnx::ModelProto& model, std::string const& location, std::string const& offset,
        std::string const& length)
    {
        auto* w = model.mutable_graph()->mutable_initializer(0);
        w->clear_raw_data();
        w->set_data_location(::onnx::TensorProto::EXTERNAL);
        auto addEntry = [w](std::string const& key, std::string const& value) {
            auto* entry = w->add_external_data();
            entry->set_key(key);
            entry->set_value(value);
        };
        addEntry("location", location);
        if (!offset.empty())
        {
            addEntry("offset", offset);
        }
        if (!length.empty())
        {
            addEntry("length", length);
        }
    }

    fs::path saveModel(::onnx::ModelProto const& model, std::string const& name = "model.onnx")
    {
        fs::path const path = modelDir() / name;
        writeFile(path, model.SerializeAsString());
        return path;
    }

    static void expectError(StatusOr<OnnxModel> const& result, std::string const& cause)
    {
        ASSERT_FALSE(result.isOk()) << "expected an error mentioning '" << cause << "'";
        EXPECT_NE(result.status().message().find(cause), std::string::npos) << result.status().message();
    }

    //! Save a model whose initializer is external data (location, offset, length) and expect `cause`.
    void expectExternalError(std::string const& location, std::string const& offset, std::string const& length,
        std::string const& cause)
    {
        SCOPED_TRACE("location '" + location + "', offset '" + offset + "', length '" + length + "'");
        ::onnx::ModelProto model = makeModel();
        makeExternal(model, location, offset, length);
        expectError(loadOnnxModelFromFile(saveModel(model).string()), cause);
    }

    fs::path mDir;
};

TEST_F(ModelLoaderTest, FileRoundTrip)
{
    ::onnx::ModelProto const original = makeModel();
    fs::path const path = saveModel(original);
    auto loaded = loadOnnxModelFromFile(path.string());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    EXPECT_EQ(loaded->model().SerializeAsString(), original.SerializeAsString());
    EXPECT_EQ(loaded->model().graph().node(0).op_type(), "Add");
    EXPECT_EQ(loaded->nbExternalTensors(), 0U);
    EXPECT_EQ(loaded->externalData("w"), nullptr);
    EXPECT_EQ(fs::path(loaded->modelDirectory()), modelDir());
    auto opset = onnxDefaultOpsetVersion(loaded->model());
    ASSERT_TRUE(opset.isOk());
    EXPECT_EQ(*opset, 13);
}

TEST_F(ModelLoaderTest, MemoryRoundTrip)
{
    ::onnx::ModelProto const original = makeModel();
    std::string const bytes = original.SerializeAsString();
    auto loaded = loadOnnxModelFromMemory(bytes.data(), bytes.size());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    EXPECT_EQ(loaded->model().SerializeAsString(), bytes);
    EXPECT_EQ(loaded->model().graph().initializer(0).raw_data().size(), 16U);
}

TEST_F(ModelLoaderTest, DefaultOpsetVersion)
{
    ::onnx::ModelProto model = makeModel();
    model.mutable_opset_import(0)->set_domain("ai.onnx");
    auto* custom = model.add_opset_import();
    custom->set_domain("com.example");
    custom->set_version(2);
    auto opset = onnxDefaultOpsetVersion(model);
    ASSERT_TRUE(opset.isOk());
    EXPECT_EQ(*opset, 13);

    model.mutable_opset_import()->DeleteSubrange(0, 1);
    auto missing = onnxDefaultOpsetVersion(model);
    ASSERT_FALSE(missing.isOk());
    EXPECT_NE(missing.status().message().find("default domain"), std::string::npos);
}

TEST_F(ModelLoaderTest, ExternalDataIsRead)
{
    // The 4 floats sit at offset 8 of a 32-byte file, between two padding regions.
    std::string blob(32, '\x7f');
    float const values[4] = {9.0F, -1.0F, 0.5F, 42.0F};
    blob.replace(8, sizeof(values), reinterpret_cast<char const*>(values), sizeof(values));
    fs::create_directories(modelDir() / "weights");
    writeFile(modelDir() / "weights" / "w.bin", blob);

    ::onnx::ModelProto model = makeModel();
    makeExternal(model, "weights/w.bin", "8", "16");
    auto loaded = loadOnnxModelFromFile(saveModel(model).string());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    ASSERT_EQ(loaded->nbExternalTensors(), 1U);
    std::vector<uint8_t> const* bytes = loaded->externalData("w");
    ASSERT_NE(bytes, nullptr);
    ASSERT_EQ(bytes->size(), sizeof(values));
    EXPECT_EQ(std::memcmp(bytes->data(), values, sizeof(values)), 0);

    // Without offset/length the whole file is the tensor; from memory, the directory must be given.
    ::onnx::ModelProto whole = makeModel();
    makeExternal(whole, "weights/w.bin", "", "");
    std::string const serialized = whole.SerializeAsString();
    auto fromMemory = loadOnnxModelFromMemory(serialized.data(), serialized.size(), modelDir().string());
    ASSERT_TRUE(fromMemory.isOk()) << fromMemory.status().message();
    ASSERT_NE(fromMemory->externalData("w"), nullptr);
    EXPECT_EQ(std::string(fromMemory->externalData("w")->begin(), fromMemory->externalData("w")->end()), blob);

    expectError(loadOnnxModelFromMemory(serialized.data(), serialized.size()), "no model directory");
}

TEST_F(ModelLoaderTest, ExternalDataBeyondTwoGiBIsRead)
{
    // Models over 2 GB keep their weights in external files; offsets past 2^31 must work. The weight file is
    // sparse (3 GiB long, 16 bytes written), so the test needs no real disk space.
    fs::create_directories(modelDir() / "weights");
    fs::path const blob = modelDir() / "weights" / "big.bin";
    { std::ofstream create(blob, std::ios::binary); }
    std::error_code ec;
    fs::resize_file(blob, 3ULL << 30, ec);
    if (ec)
    {
        GTEST_SKIP() << "cannot create a 3 GiB sparse file here: " << ec.message();
    }
    uint64_t const offset = (1ULL << 31) + 4096;
    float const values[4] = {-7.5F, 0.25F, 1e3F, -0.0625F};
    {
        std::fstream out(blob, std::ios::binary | std::ios::in | std::ios::out);
        out.seekp(static_cast<std::streamoff>(offset));
        out.write(reinterpret_cast<char const*>(values), sizeof(values));
        ASSERT_TRUE(out.good());
    }
    ::onnx::ModelProto model = makeModel();
    makeExternal(model, "weights/big.bin", std::to_string(offset), "16");
    auto loaded = loadOnnxModelFromFile(saveModel(model).string());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    std::vector<uint8_t> const* bytes = loaded->externalData("w");
    ASSERT_NE(bytes, nullptr);
    ASSERT_EQ(bytes->size(), sizeof(values));
    EXPECT_EQ(std::memcmp(bytes->data(), values, sizeof(values)), 0);

    // A range that runs past the end of the 3 GiB file is refused.
    expectExternalError("weights/big.bin", std::to_string((3ULL << 30) - 8), "16", "weights/big.bin");
}

TEST_F(ModelLoaderTest, ExternalDataPathTraversalIsRefused)
{
    writeFile(mDir / "secret.bin", std::string(16, 's'));
    expectExternalError("../secret.bin", "0", "16", "outside the model's directory");
    expectExternalError((mDir / "secret.bin").string(), "0", "16", "absolute path");
    expectExternalError("sub/../../secret.bin", "", "", "outside the model's directory");
}

TEST_F(ModelLoaderTest, ExternalDataOutOfRangeIsRefused)
{
    writeFile(modelDir() / "w.bin", std::string(16, 'w'));
    struct Case
    {
        char const* location;
        char const* offset;
        char const* length;
        char const* cause;
    };
    Case const cases[] = {
        {"w.bin", "17", "", "past the end"},
        {"w.bin", "4", "16", "is outside 'w.bin'"},
        {"w.bin", "0", "18446744073709551615", "is outside 'w.bin'"},
        {"w.bin", "-4", "", "not a non-negative integer"},
        {"absent.bin", "", "", "cannot open external data file"},
        {"", "", "", "no 'location'"},
    };
    for (Case const& c : cases)
    {
        expectExternalError(c.location, c.offset, c.length, c.cause);
    }
}

TEST_F(ModelLoaderTest, MissingFileIsReported)
{
    expectError(loadOnnxModelFromFile((modelDir() / "absent.onnx").string()), "cannot open the file");
    expectError(loadOnnxModelFromFile(modelDir().string()), "is a directory");
}

TEST_F(ModelLoaderTest, CorruptBytesAreReported)
{
    // 0xff bytes never end a varint tag: protobuf must refuse them.
    writeFile(modelDir() / "garbage.onnx", std::string(64, '\xff'));
    expectError(loadOnnxModelFromFile((modelDir() / "garbage.onnx").string()), "protobuf parsing failed");

    std::string const garbage(64, '\xff');
    expectError(loadOnnxModelFromMemory(garbage.data(), garbage.size()), "protobuf parsing failed");

    // An empty file parses as an empty ModelProto, which has no ir_version.
    writeFile(modelDir() / "empty.onnx", "");
    expectError(loadOnnxModelFromFile((modelDir() / "empty.onnx").string()), "no ir_version");
}

TEST_F(ModelLoaderTest, TruncatedFileIsReported)
{
    // Cut inside the initializer's raw data (the last field): its declared length runs past the end.
    std::string const bytes = makeModel().SerializeAsString();
    writeFile(modelDir() / "truncated.onnx", bytes.substr(0, bytes.size() - 6));
    expectError(loadOnnxModelFromFile((modelDir() / "truncated.onnx").string()), "truncated");
}

TEST_F(ModelLoaderTest, MissingIrVersionOrOpsetIsReported)
{
    ::onnx::ModelProto noIr = makeModel();
    noIr.clear_ir_version();
    expectError(loadOnnxModelFromFile(saveModel(noIr).string()), "no ir_version");

    ::onnx::ModelProto noOpset = makeModel();
    noOpset.clear_opset_import();
    expectError(loadOnnxModelFromFile(saveModel(noOpset).string()), "no opset_import");

    ::onnx::ModelProto noVersion = makeModel();
    noVersion.mutable_opset_import(0)->clear_version();
    expectError(loadOnnxModelFromFile(saveModel(noVersion).string()), "has no version");

    ::onnx::ModelProto noGraph = makeModel();
    noGraph.clear_graph();
    expectError(loadOnnxModelFromFile(saveModel(noGraph).string()), "no graph");
}

TEST_F(ModelLoaderTest, LoadsOnnxBackendTestModel)
{
    fs::path const path = "/usr/share/libonnx-testdata/data/node/test_abs/model.onnx";
    if (!fs::exists(path))
    {
        GTEST_SKIP() << path << " is absent: install Debian's libonnx-testdata (scripts/install-deps.sh)";
    }
    auto loaded = loadOnnxModelFromFile(path.string());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    ASSERT_EQ(loaded->model().graph().node_size(), 1);
    EXPECT_EQ(loaded->model().graph().node(0).op_type(), "Abs");
    auto opset = onnxDefaultOpsetVersion(loaded->model());
    ASSERT_TRUE(opset.isOk()) << opset.status().message();
    EXPECT_GE(*opset, 1);
}

} // namespace
} // namespace kiln
