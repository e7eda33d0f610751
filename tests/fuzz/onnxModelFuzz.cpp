// onnxModelFuzz.cpp — libFuzzer target for the ONNX parser. Normal (replay) builds feed each input to
// nvonnxparser::createParser + parse on a fresh network: a failed parse must record at least one error with a
// description, and a successful one must leave a network with outputs. The KILN_FUZZ build (sanitizers, see
// tests/fuzz/CMakeLists.txt) compiles only the model loader and the tensor conversion, so there the input goes
// through loadOnnxModelFromMemory and every initializer / Constant tensor is converted.
#include "onnx/modelLoader.h"
#include "onnx/tensorConversion.h"

#if !defined(KILN_FUZZ_LOADER_ONLY)
#include "fuzz/fuzzCommon.h"
#endif

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace
{

void convertTensors(uint8_t const* data, size_t size)
{
    auto model = kiln::loadOnnxModelFromMemory(data, size);
    if (!model.isOk())
    {
        if (model.status().message().empty())
        {
            __builtin_trap(); // every failure must say what is wrong
        }
        return;
    }
    auto const& graph = model.value().model().graph();
    for (auto const& init : graph.initializer())
    {
        auto c = kiln::convertTensorProto(init, model.value().externalData(init.name()), "initializer");
        if (c.isOk() && static_cast<int64_t>(c.value().bytes.size()) < c.value().count())
        {
            __builtin_trap(); // a converted constant must hold all its elements
        }
    }
    for (auto const& node : graph.node())
    {
        for (auto const& attr : node.attribute())
        {
            if (attr.has_t())
            {
                (void) kiln::convertTensorProto(attr.t(), nullptr, "attribute");
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    convertTensors(data, size);
#if !defined(KILN_FUZZ_LOADER_ONLY)
    kiln::fuzz::parseOnnxChecked(data, size);
#endif
    return 0;
}
