// fuzzCommon.h — pieces shared by the fuzz targets: a logger that drops everything, the checked ONNX parse (a
// failed parse records described errors, a successful one leaves a network with its outputs) and the byte-level
// fallback of the structure-aware custom mutators (libFuzzer's LLVMFuzzerMutate, or a bit flip in replay builds).
#pragma once

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

extern "C" __attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

namespace kiln::fuzz
{

class SilentLogger : public nvinfer1::ILogger
{
public:
    void log(Severity, char const*) noexcept override {}
};

//! Parse `data` into a fresh network; traps when the parser breaks its contract.
inline void parseOnnxChecked(uint8_t const* data, size_t size)
{
    static SilentLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    if (builder == nullptr)
    {
        return;
    }
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    if (network == nullptr || parser == nullptr)
    {
        __builtin_trap();
    }
    if (!parser->parse(data, size))
    {
        if (parser->getNbErrors() == 0)
        {
            __builtin_trap(); // a failed parse must say why
        }
        for (int i = 0; i < parser->getNbErrors(); ++i)
        {
            if (std::string(parser->getError(i)->desc()).empty())
            {
                __builtin_trap();
            }
        }
        return;
    }
    for (int32_t i = 0; i < network->getNbOutputs(); ++i)
    {
        if (network->getOutput(i) == nullptr)
        {
            __builtin_trap();
        }
    }
}

//! The custom mutators' fallback for inputs they cannot decode.
inline size_t byteMutation(uint8_t* data, size_t size, size_t maxSize, std::mt19937_64& rng)
{
    if (LLVMFuzzerMutate != nullptr)
    {
        return LLVMFuzzerMutate(data, size, maxSize);
    }
    if (size > 0)
    {
        data[rng() % size] ^= static_cast<uint8_t>(1U << (rng() % 8)); // replay builds: a bit flip
    }
    return size;
}

} // namespace kiln::fuzz
