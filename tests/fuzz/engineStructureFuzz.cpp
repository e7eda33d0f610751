// engineStructureFuzz.cpp — structure-aware libFuzzer target for crafted engines (issue 17). Its custom mutator
// decodes the engine, edits the decoded Plan the way an attacker would (tensor indices, arena offsets and
// capacities, workspaces, profile dims, node order, integer attributes such as plugin.nbShapeInputs, enum fields)
// and encodes it again with valid checksums (writeEngineUnchecked), so that every mutation reaches the plan
// validation instead of stopping at a checksum. Each input must then be refused with a message, or be canonical
// and load, create an execution context and run on the CPU backend with zero inputs of its opt shapes without a
// crash (with the sanitizers: without an out-of-bounds access). Inputs that do not decode fall back to libFuzzer's
// byte mutations.
#include "NvInfer.h"
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "fuzz/engineFuzzCommon.h"
#include "fuzz/fuzzCommon.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace
{

using kiln::Plan;

//! The engine's inputs at their profile-0 opt shape (all zeros), outputs of the resolved shapes; enqueue on the CPU.
void runEngine(nvinfer1::ICudaEngine& engine)
{
    // An engine may legitimately need more activation memory than a fuzzing worker has (a capacity edited upwards
    // still describes a valid, larger engine); a context would allocate it, and under AddressSanitizer a huge
    // allocation alone exhausts the host (its shadow memory). Contexts of engines above 1 GiB are not created.
    constexpr int64_t kMAX_ARENA = int64_t{1} << 30;
    if (engine.getDeviceMemorySizeV2() > kMAX_ARENA)
    {
        return;
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context(engine.createExecutionContext());
    if (context == nullptr)
    {
        return;
    }
    std::vector<std::vector<uint8_t>> buffers;
    int32_t const nbIo = engine.getNbIOTensors();
    for (int32_t pass = 0; pass < 2; ++pass) // inputs first: output shapes depend on them
    {
        for (int32_t i = 0; i < nbIo; ++i)
        {
            char const* name = engine.getIOTensorName(i);
            bool const input = engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT;
            if (input != (pass == 0))
            {
                continue;
            }
            if (engine.isShapeInferenceIO(name))
            {
                return; // shape-tensor inputs need values this harness does not invent
            }
            nvinfer1::Dims dims = input ? engine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kOPT)
                                        : context->getTensorShape(name);
            if (input && dims.nbDims < 0)
            {
                dims = engine.getTensorShape(name);
            }
            int64_t volume = 1;
            for (int32_t d = 0; d < dims.nbDims; ++d)
            {
                if (dims.d[d] < 0 || dims.d[d] > (int64_t{1} << 16) || volume > (int64_t{1} << 16) / (dims.d[d] + 1))
                {
                    return; // unknown until run time (an output allocator would be needed) or too large to try
                }
                volume *= dims.d[d];
            }
            if (input && !context->setInputShape(name, dims))
            {
                return;
            }
            // 8 bytes an element, times 64 for any vectorized format's padding.
            buffers.emplace_back(static_cast<size_t>(volume) * 8 * 64 + 64, uint8_t{0});
            if (!context->setTensorAddress(name, buffers.back().data()))
            {
                return;
            }
        }
    }
    (void) context->enqueueV3(nullptr);
}

void loadAndRun(uint8_t const* data, size_t size)
{
    static kiln::fuzz::SilentLogger logger;
    static std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    if (runtime == nullptr)
    {
        __builtin_trap();
    }
    std::unique_ptr<nvinfer1::ICudaEngine> engine(runtime->deserializeCudaEngine(data, size));
    if (engine != nullptr)
    {
        runEngine(*engine);
    }
}

//! A value near `v` or an extreme, for integer fields. The arithmetic wraps (in uint64_t): an extreme field that was
//! mutated before must not make the mutator itself overflow (UBSan stopped a run on v * 2).
int64_t nearOrExtreme(int64_t v, std::mt19937_64& rng)
{
    uint64_t const u = static_cast<uint64_t>(v);
    int64_t const picks[] = {static_cast<int64_t>(u + 1), static_cast<int64_t>(u - 1), 0, -1,
        static_cast<int64_t>(u * 2), v / 2, 255, 256, int64_t{1} << 31, -(int64_t{1} << 40)};
    return picks[rng() % (sizeof(picks) / sizeof(picks[0]))];
}

//! One structural edit of `plan`; false when the plan has nothing of the chosen kind.
bool mutatePlan(Plan& plan, std::mt19937_64& rng)
{
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    int32_t const nbTensors = static_cast<int32_t>(plan.tensors.size());
    switch (rng() % 9)
    {
    case 0: // a node's input or output tensor index
    {
        if (plan.nodes.empty())
        {
            return false;
        }
        auto& n = plan.nodes[pick(plan.nodes.size())];
        std::vector<int32_t>& slots = (rng() % 2 == 0 || n.outputs.empty()) ? n.inputs : n.outputs;
        if (slots.empty())
        {
            return false;
        }
        slots[pick(slots.size())] = static_cast<int32_t>(rng() % static_cast<uint64_t>(nbTensors + 2)) - 1;
        return true;
    }
    case 1: // an arena offset onto another tensor's, or a nearby/extreme value
    case 2:
    {
        if (plan.profiles.empty() || plan.profiles[0].tensorOffsets.empty())
        {
            return false;
        }
        auto& p = plan.profiles[pick(plan.profiles.size())];
        size_t const t = pick(p.tensorOffsets.size());
        size_t const other = pick(p.tensorOffsets.size());
        switch (rng() % 3)
        {
        case 0: p.tensorOffsets[t] = p.tensorOffsets[other]; break;
        case 1: p.tensorOffsets[t] = nearOrExtreme(p.tensorOffsets[t], rng); break;
        default: p.tensorCapacity[t] = nearOrExtreme(p.tensorCapacity[t], rng); break;
        }
        return true;
    }
    case 3: // a workspace
    {
        if (plan.profiles.empty() || plan.profiles[0].workspaceOffsets.empty())
        {
            return false;
        }
        auto& p = plan.profiles[0];
        size_t const n = pick(p.workspaceOffsets.size());
        (rng() % 2 == 0 ? p.workspaceOffsets[n] : p.workspaceSizes[n]) = nearOrExtreme(p.workspaceSizes[n], rng);
        return true;
    }
    case 4: // profile dims
    {
        if (plan.profiles.empty() || plan.profiles[0].inputs.empty())
        {
            return false;
        }
        auto& in = plan.profiles[0].inputs[pick(plan.profiles[0].inputs.size())];
        nvinfer1::Dims& d = rng() % 3 == 0 ? in.min : (rng() % 2 == 0 ? in.opt : in.max);
        if (d.nbDims > 0)
        {
            d.d[pick(static_cast<size_t>(d.nbDims))] = nearOrExtreme(d.d[0], rng);
        }
        return true;
    }
    case 5: // swap two nodes (breaks the topological order)
    {
        if (plan.nodes.size() < 2)
        {
            return false;
        }
        std::swap(plan.nodes[pick(plan.nodes.size())], plan.nodes[pick(plan.nodes.size())]);
        return true;
    }
    case 6: // an integer attribute (plugin.nbShapeInputs, axes, strides, cf.loop, ...)
    {
        if (plan.nodes.empty())
        {
            return false;
        }
        auto& n = plan.nodes[pick(plan.nodes.size())];
        std::vector<std::string> keys;
        for (auto const& [key, value] : n.attrs.values())
        {
            if (std::holds_alternative<int64_t>(value))
            {
                keys.push_back(key);
            }
        }
        if (keys.empty())
        {
            return false;
        }
        std::string const& key = keys[pick(keys.size())];
        n.attrs.setInt(key, nearOrExtreme(n.attrs.getInt(key), rng));
        return true;
    }
    case 7: // a tensor's type, format or I/O mode (small enum edits)
    {
        if (plan.tensors.empty())
        {
            return false;
        }
        auto& t = plan.tensors[pick(plan.tensors.size())];
        switch (rng() % 3)
        {
        case 0: t.type = static_cast<nvinfer1::DataType>(static_cast<int32_t>(rng() % 14)); break;
        case 1: t.format = static_cast<nvinfer1::TensorFormat>(static_cast<int32_t>(rng() % 14)); break;
        default: t.ioMode = static_cast<nvinfer1::TensorIOMode>(static_cast<int32_t>(rng() % 3)); break;
        }
        return true;
    }
    default: // drop or duplicate a node
    {
        if (plan.nodes.empty())
        {
            return false;
        }
        size_t const n = pick(plan.nodes.size());
        if (rng() % 2 == 0)
        {
            plan.nodes.erase(plan.nodes.begin() + static_cast<std::ptrdiff_t>(n));
        }
        else
        {
            plan.nodes.insert(plan.nodes.begin() + static_cast<std::ptrdiff_t>(pick(plan.nodes.size())), plan.nodes[n]);
        }
        for (auto& p : plan.profiles)
        {
            p.workspaceOffsets.clear();
            p.workspaceSizes.clear();
        }
        return true;
    }
    }
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed)
{
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> fixed(data, data + size);
    kiln::engine::recomputeChecksums(fixed);
    auto plan = kiln::readEngine(fixed.data(), fixed.size());
    if (!plan.isOk() || rng() % 8 == 0)
    {
        return kiln::fuzz::byteMutation(data, size, maxSize, rng);
    }
    int const edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e)
    {
        (void) mutatePlan(plan.value(), rng);
    }
    auto bytes = kiln::writeEngineUnchecked(plan.value());
    if (!bytes.isOk() || bytes.value().size() > maxSize)
    {
        return kiln::fuzz::byteMutation(data, size, maxSize, rng);
    }
    std::memcpy(data, bytes.value().data(), bytes.value().size());
    return bytes.value().size();
}

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    std::vector<uint8_t> fixed(data, data + size);
    kiln::engine::recomputeChecksums(fixed);
    if (kiln::fuzz::readAndCheck(fixed.data(), fixed.size()))
    {
        loadAndRun(fixed.data(), fixed.size());
    }
    return 0;
}
