// Helpers for the kilnexec tests: run the kilnexec executable and capture its exit code and output, a scratch
// directory, raw binary files, a small JSON reader for the exported files, ONNX models built with the shared
// OnnxModelBuilder, and an engine built through the network API (for --loadEngine without the parser).
#pragma once

#include "NvInfer.h"
#include "onnx/onnxTestModels.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kilnexectest
{

namespace fs = std::filesystem;

inline std::string kilnexecPath()
{
    return std::string(KILN_BINARY_DIR) + "/bin/kilnexec";
}

inline std::string toyPluginLibrary()
{
    return std::string(KILN_LIBRARY_DIR) + "/libkilnCheckerToyPlugins.so";
}

struct RunOutput
{
    int exitCode{-1};
    std::string output; //!< stdout and stderr together
};

inline std::string shellQuote(std::string const& text)
{
    std::string out = "'";
    for (char c : text)
    {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

//! Run kilnexec with `args` (each passed verbatim) and capture everything it prints.
inline RunOutput runKilnexec(std::vector<std::string> const& args)
{
    std::string command = shellQuote(kilnexecPath());
    for (std::string const& arg : args)
    {
        command += " " + shellQuote(arg);
    }
    command += " 2>&1 < /dev/null";
    RunOutput result;
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr)
    {
        return result;
    }
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    {
        result.output.append(buffer, n);
    }
    int const status = ::pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return result;
}

//! A scratch directory removed at the end of the test.
class ScratchDir
{
public:
    ScratchDir()
    {
        std::random_device device;
        mPath = fs::temp_directory_path()
            / ("kilnexecTest-" + std::to_string(::getpid()) + "-" + std::to_string(device()));
        fs::create_directories(mPath);
    }
    ~ScratchDir()
    {
        std::error_code ec;
        fs::remove_all(mPath, ec);
    }
    std::string file(std::string const& name) const { return (mPath / name).string(); }

private:
    fs::path mPath;
};

inline void writeBytes(std::string const& path, void const* data, size_t size)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
    ASSERT_TRUE(out.good()) << path;
}

inline std::string readText(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

//! Random floats in [lo, hi] (never all zero).
inline std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -2.0F, float hi = 2.0F)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> values(n);
    for (float& v : values)
    {
        v = dist(rng);
    }
    return values;
}

//! A parsed JSON value (numbers as double; the strings "NaN"/"Infinity" stay strings).
struct Json
{
    enum class Kind
    {
        kNULL,
        kBOOL,
        kNUMBER,
        kSTRING,
        kARRAY,
        kOBJECT
    };
    Kind kind{Kind::kNULL};
    bool boolean{false};
    double number{0.0};
    std::string text;
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> members;

    bool has(std::string const& key) const
    {
        for (auto const& [name, value] : members)
        {
            if (name == key)
            {
                return true;
            }
        }
        return false;
    }
    Json const& operator[](std::string const& key) const
    {
        for (auto const& [name, value] : members)
        {
            if (name == key)
            {
                return value;
            }
        }
        static Json const missing;
        return missing;
    }
};

//! Parses JSON text; `ok` false on a syntax error (with the offset in `error`).
class JsonReader
{
public:
    explicit JsonReader(std::string text)
        : mText(std::move(text))
    {
    }
    bool parse(Json& value, std::string& error)
    {
        bool const ok = parseValue(value) && (skipSpace(), mPos == mText.size());
        if (!ok)
        {
            error = "JSON syntax error at offset " + std::to_string(mPos);
        }
        return ok;
    }

private:
    void skipSpace()
    {
        while (mPos < mText.size() && std::strchr(" \t\r\n", mText[mPos]) != nullptr)
        {
            ++mPos;
        }
    }
    bool literal(char const* word)
    {
        size_t const n = std::strlen(word);
        if (mText.compare(mPos, n, word) != 0)
        {
            return false;
        }
        mPos += n;
        return true;
    }
    bool parseString(std::string& out)
    {
        if (mText[mPos] != '"')
        {
            return false;
        }
        ++mPos;
        while (mPos < mText.size() && mText[mPos] != '"')
        {
            char c = mText[mPos++];
            if (c == '\\' && mPos < mText.size())
            {
                char const e = mText[mPos++];
                if (e == 'u')
                {
                    if (mPos + 4 > mText.size())
                    {
                        return false;
                    }
                    c = static_cast<char>(std::stoi(mText.substr(mPos, 4), nullptr, 16));
                    mPos += 4;
                }
                else
                {
                    c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
                }
            }
            out += c;
        }
        if (mPos >= mText.size())
        {
            return false;
        }
        ++mPos;
        return true;
    }
    bool parseValue(Json& value)
    {
        skipSpace();
        if (mPos >= mText.size())
        {
            return false;
        }
        char const c = mText[mPos];
        if (c == '{')
        {
            value.kind = Json::Kind::kOBJECT;
            ++mPos;
            skipSpace();
            if (mPos < mText.size() && mText[mPos] == '}')
            {
                ++mPos;
                return true;
            }
            while (true)
            {
                skipSpace();
                std::string key;
                Json member;
                if (mPos >= mText.size() || !parseString(key))
                {
                    return false;
                }
                skipSpace();
                if (mPos >= mText.size() || mText[mPos++] != ':' || !parseValue(member))
                {
                    return false;
                }
                value.members.emplace_back(key, member);
                skipSpace();
                if (mPos < mText.size() && mText[mPos] == ',')
                {
                    ++mPos;
                    continue;
                }
                return mPos < mText.size() && mText[mPos++] == '}';
            }
        }
        if (c == '[')
        {
            value.kind = Json::Kind::kARRAY;
            ++mPos;
            skipSpace();
            if (mPos < mText.size() && mText[mPos] == ']')
            {
                ++mPos;
                return true;
            }
            while (true)
            {
                Json item;
                if (!parseValue(item))
                {
                    return false;
                }
                value.items.push_back(item);
                skipSpace();
                if (mPos < mText.size() && mText[mPos] == ',')
                {
                    ++mPos;
                    continue;
                }
                return mPos < mText.size() && mText[mPos++] == ']';
            }
        }
        if (c == '"')
        {
            value.kind = Json::Kind::kSTRING;
            return parseString(value.text);
        }
        if (literal("true") || literal("false"))
        {
            value.kind = Json::Kind::kBOOL;
            value.boolean = mText[mPos - 1] == 'e' && mText[mPos - 2] == 'u';
            return true;
        }
        if (literal("null"))
        {
            return true;
        }
        char* end = nullptr;
        value.number = std::strtod(mText.c_str() + mPos, &end);
        if (end == mText.c_str() + mPos)
        {
            return false;
        }
        value.kind = Json::Kind::kNUMBER;
        mPos = static_cast<size_t>(end - mText.c_str());
        return true;
    }

    std::string mText;
    size_t mPos{0};
};

//! Parse a JSON file; adds a test failure on a syntax error.
inline Json readJson(std::string const& path)
{
    Json value;
    std::string error;
    JsonReader reader(readText(path));
    EXPECT_TRUE(reader.parse(value, error)) << path << ": " << error;
    return value;
}

//! y = Relu(x + w) with x [batch, 4] (batch dynamic when `dynamicBatch`), w a random [1, 4] initializer.
inline kiln::test::OnnxModelBuilder addReluModel(std::vector<float> const& w, bool dynamicBatch = true)
{
    kiln::test::OnnxModelBuilder model(13, "addRelu");
    model.addInput("x", nvinfer1::DataType::kFLOAT, {dynamicBatch ? -1 : 2, 4});
    model.addInitializer("w", kiln::OnnxConstant::fromFloat(w, {1, 4}));
    model.addNode("Add", {"x", "w"}, {"sum"}).set_name("add0");
    model.addNode("Relu", {"sum"}, {"y"}).set_name("relu0");
    model.addOutput("y", nvinfer1::DataType::kFLOAT);
    return model;
}

inline void saveModel(kiln::test::OnnxModelBuilder const& model, std::string const& path)
{
    std::string const bytes = model.serialize();
    writeBytes(path, bytes.data(), bytes.size());
}

//! Silent logger for engines built inside the test.
class QuietLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            std::fprintf(stderr, "[test E] %s\n", message);
        }
    }
};

//! An engine built with the network API (no parser): y = relu(x * 1.5) over x [-1, 3] (profile batch 1..8, opt 2),
//! with layers named "scale0" and "relu0". Written to `path`.
inline void writeScaleReluEngine(std::string const& path)
{
    QuietLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    ASSERT_NE(builder, nullptr);
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, nvinfer1::Dims{2, {-1, 3}});
    static float const kScale = 1.5F;
    nvinfer1::IConstantLayer* c
        = network->addConstant(nvinfer1::Dims{2, {1, 1}}, nvinfer1::Weights{nvinfer1::DataType::kFLOAT, &kScale, 1});
    nvinfer1::IElementWiseLayer* mul
        = network->addElementWise(*x, *c->getOutput(0), nvinfer1::ElementWiseOperation::kPROD);
    mul->setName("scale0");
    nvinfer1::IActivationLayer* relu = network->addActivation(*mul->getOutput(0), nvinfer1::ActivationType::kRELU);
    relu->setName("relu0");
    relu->getOutput(0)->setName("y");
    network->markOutput(*relu->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    config->setProfilingVerbosity(nvinfer1::ProfilingVerbosity::kDETAILED);
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, nvinfer1::Dims{2, {1, 3}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, nvinfer1::Dims{2, {2, 3}});
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, nvinfer1::Dims{2, {8, 3}});
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr);
    writeBytes(path, plan->data(), plan->size());
}

//! The values of output `name` in an --exportOutput file.
inline std::vector<double> exportedValues(Json const& outputs, std::string const& name, std::string* dims = nullptr)
{
    std::vector<double> values;
    for (Json const& entry : outputs.items)
    {
        if (entry["name"].text == name)
        {
            for (Json const& v : entry["values"].items)
            {
                values.push_back(v.number);
            }
            if (dims != nullptr)
            {
                *dims = entry["dimensions"].text;
            }
        }
    }
    return values;
}

} // namespace kilnexectest
