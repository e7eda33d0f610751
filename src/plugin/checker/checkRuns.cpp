// Runs of a plugin on guarded, poisoned host buffers and their analysis for the plugin contract checker.
#include "plugin/checker/checkRuns.h"

#include "core/dataType.h"
#include "plugin/checker/checkBuffers.h"
#include "plugin/checker/checkSpec.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace kiln::checker
{
namespace
{

size_t bufferBytes(nvinfer1::PluginTensorDesc const& desc)
{
    return static_cast<size_t>(std::max<int64_t>(byteSize(desc.type, dimsVolume(desc.dims)), 0));
}

std::string valueText(std::vector<uint8_t> const& bytes, nvinfer1::DataType type, int64_t index)
{
    char text[64];
    std::snprintf(text, sizeof(text), "%.9g", loadElement(bytes.data(), type, index));
    return text;
}

bool elementIs(uint8_t const* element, size_t size, uint8_t pattern)
{
    for (size_t i = 0; i < size; ++i)
    {
        if (element[i] != pattern)
        {
            return false;
        }
    }
    return true;
}

std::string plural(int64_t n, char const* word)
{
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

//! Number of declared elements of output `o` that can be compared (bounded by the buffer).
int64_t declaredCount(RunResult const& run, RunSetup const& setup, size_t o)
{
    int64_t declared = o < run.declaredDims.size() ? dimsVolume(run.declaredDims[o]) : 0;
    return std::min(declared, dimsVolume(setup.outDescs[o].dims));
}

} // namespace

RunResult runPlugin(PluginAdapter& plugin, RunSetup const& setup, ShapeModel const& shapes, int32_t poison)
{
    RunResult result;
    result.poison = poison;
    uint8_t const poisonValue = poisonByte(poison);
    uint8_t const guard = guardByte(poison);

    std::vector<std::unique_ptr<GuardedBuffer>> inputs;
    std::vector<void const*> inPtrs;
    for (size_t i = 0; i < setup.inDescs.size(); ++i)
    {
        auto buffer = std::make_unique<GuardedBuffer>(bufferBytes(setup.inDescs[i]));
        buffer->load(setup.inputBytes[i], guard);
        inPtrs.push_back(buffer->data());
        inputs.push_back(std::move(buffer));
    }
    std::vector<std::unique_ptr<GuardedBuffer>> outputs;
    std::vector<void*> outPtrs;
    for (size_t o = 0; o < setup.outDescs.size(); ++o)
    {
        int32_t alias = o < setup.aliases.size() ? setup.aliases[o] : -1;
        if (alias >= 0 && static_cast<size_t>(alias) < inputs.size())
        {
            // In-place I/O: the output is the aliased input's buffer, as the runtime passes it.
            outputs.push_back(nullptr);
            outPtrs.push_back(inputs[static_cast<size_t>(alias)]->data());
            continue;
        }
        auto buffer = std::make_unique<GuardedBuffer>(bufferBytes(setup.outDescs[o]));
        buffer->fill(poisonValue, guard);
        outPtrs.push_back(buffer->data());
        outputs.push_back(std::move(buffer));
    }
    GuardedBuffer workspace(setup.workspaceBytes);
    workspace.fill(poisonValue, guard);

    result.status = plugin.enqueue(setup.inDescs, setup.outDescs, inPtrs.data(), outPtrs.data(), workspace.data(),
        nullptr);

    for (size_t o = 0; o < outputs.size(); ++o)
    {
        if (outputs[o] == nullptr)
        {
            auto alias = static_cast<size_t>(setup.aliases[o]);
            result.outputs.push_back(inputs[alias]->payload());
            result.outputAfter.push_back(0);
            result.outputBefore.push_back(0);
            continue;
        }
        result.outputs.push_back(outputs[o]->payload());
        result.outputAfter.push_back(outputs[o]->overrunAfter(guard));
        result.outputBefore.push_back(outputs[o]->overrunBefore(guard));
    }
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        std::vector<uint8_t> after = inputs[i]->payload();
        int64_t changed = -1;
        auto const es = static_cast<size_t>(std::max<int64_t>(elementSize(setup.inDescs[i].type), 1));
        for (size_t b = 0; b < after.size() && b < setup.inputBytes[i].size(); ++b)
        {
            if (after[b] != setup.inputBytes[i][b])
            {
                changed = static_cast<int64_t>(b / es);
                break;
            }
        }
        result.inputChangedAt.push_back(changed);
        result.inputAfter.push_back(inputs[i]->overrunAfter(guard));
        result.inputBefore.push_back(inputs[i]->overrunBefore(guard));
        result.inputsAfter.push_back(std::move(after));
    }
    result.workspaceAfter = workspace.overrunAfter(guard);
    result.workspaceBefore = workspace.overrunBefore(guard);

    // Size tensors: their values decide the declared dims of data-dependent outputs.
    for (PluginSizeTensor const& st : shapes.sizeTensors())
    {
        auto o = static_cast<size_t>(st.output);
        auto const es = static_cast<size_t>(std::max<int64_t>(elementSize(setup.outDescs[o].type), 1));
        // A size tensor that kept the poison was not written: its output is reported as unwritten by compareRuns,
        // and the data-dependent outputs keep their upper-bound dims.
        if (o < result.outputs.size() && result.outputs[o].size() >= es
            && !elementIs(result.outputs[o].data(), es, poisonValue))
        {
            result.sizes[st.output] = loadInt(result.outputs[o].data(), setup.outDescs[o].type, 0);
        }
    }
    std::map<int32_t, int64_t> bounded;
    for (auto const& [output, value] : result.sizes)
    {
        auto upper = shapes.sizeUpperBound(output, setup.set);
        bounded[output] = upper.isOk() ? std::clamp<int64_t>(value, 0, upper.value()) : std::max<int64_t>(value, 0);
    }
    auto dims = shapes.outputDims(setup.set, bounded);
    if (dims.isOk())
    {
        result.declaredDims = dims.value();
    }
    else
    {
        for (auto const& desc : setup.outDescs)
        {
            result.declaredDims.push_back(desc.dims);
        }
    }
    return result;
}

void checkRun(RunResult const& run, RunSetup const& setup, ShapeModel const& shapes, std::string const& where,
    CheckReport& report, std::string const& label)
{
    for (size_t o = 0; o < run.outputs.size(); ++o)
    {
        std::string const out = "output " + std::to_string(o);
        std::string const declared = descText(setup.outDescs[o]) + " = "
            + plural(static_cast<int64_t>(bufferBytes(setup.outDescs[o])), "byte");
        if (run.outputAfter[o] > 0)
        {
            report.addFinding(PluginCheckRules::kOUTPUT_DIMS_MISMATCH,
                label + ": enqueue wrote " + plural(static_cast<int64_t>(run.outputAfter[o]), "byte") + " past the end of "
                    + out + " (declared " + declared + ") [" + where + "]",
                out + "/after");
        }
        if (run.outputBefore[o] > 0)
        {
            report.addFinding(PluginCheckRules::kOUTPUT_DIMS_MISMATCH,
                label + ": enqueue wrote " + plural(static_cast<int64_t>(run.outputBefore[o]), "byte")
                    + " before the start of " + out + " (declared " + declared + ") [" + where + "]",
                out + "/before");
        }
    }
    for (auto const& [output, value] : run.sizes)
    {
        auto upper = shapes.sizeUpperBound(output, setup.set);
        if (upper.isOk() && (value < 0 || value > upper.value()))
        {
            report.addFinding(PluginCheckRules::kOUTPUT_DIMS_MISMATCH,
                label + ": size tensor output " + std::to_string(output) + " holds " + std::to_string(value)
                    + ", outside [0, " + std::to_string(upper.value())
                    + "] (the upper bound given to declareSizeTensor) [" + where + "]",
                "size" + std::to_string(output));
        }
    }
    for (size_t i = 0; i < run.inputChangedAt.size(); ++i)
    {
        bool aliased = std::find(setup.aliases.begin(), setup.aliases.end(), static_cast<int32_t>(i))
            != setup.aliases.end();
        std::string const in = "input " + std::to_string(i);
        if (run.inputChangedAt[i] >= 0 && !aliased)
        {
            int64_t e = run.inputChangedAt[i];
            report.addFinding(PluginCheckRules::kINPUT_MODIFIED,
                label + ": enqueue changed " + in + " (element " + elementIndexText(setup.inDescs[i].dims, e)
                    + " was " + valueText(setup.inputBytes[i], setup.inDescs[i].type, e) + ", became "
                    + valueText(run.inputsAfter[i], setup.inDescs[i].type, e)
                    + "); inputs are read-only unless an output aliases them (IPluginV3OneBuildV2::getAliasedInput) ["
                    + where + "]",
                in + "/changed");
        }
        if (run.inputAfter[i] > 0 || run.inputBefore[i] > 0)
        {
            report.addFinding(PluginCheckRules::kINPUT_MODIFIED,
                label + ": enqueue wrote outside " + in + " ("
                    + (run.inputAfter[i] > 0
                            ? plural(static_cast<int64_t>(run.inputAfter[i]), "byte") + " past its end"
                            : plural(static_cast<int64_t>(run.inputBefore[i]), "byte") + " before its start")
                    + ", " + descText(setup.inDescs[i]) + ") [" + where + "]",
                in + "/outside");
        }
    }
    if (run.workspaceAfter > 0)
    {
        report.addFinding(PluginCheckRules::kWORKSPACE_OVERRUN,
            setup.workspaceBytes == 0
                ? label + ": enqueue wrote " + plural(static_cast<int64_t>(run.workspaceAfter), "byte")
                    + " at the workspace pointer although getWorkspaceSize returned 0 [" + where + "]"
                : label + ": enqueue wrote " + plural(static_cast<int64_t>(run.workspaceAfter), "byte")
                    + " past the end of its workspace of " + plural(static_cast<int64_t>(setup.workspaceBytes), "byte")
                    + " (getWorkspaceSize) [" + where + "]",
            "workspace/after");
    }
    if (run.workspaceBefore > 0)
    {
        report.addFinding(PluginCheckRules::kWORKSPACE_OVERRUN,
            label + ": enqueue wrote " + plural(static_cast<int64_t>(run.workspaceBefore), "byte")
                + " before the start of its workspace [" + where + "]",
            "workspace/before");
    }
}

bool compareRuns(RunResult const& a, RunResult const& b, RunSetup const& setup, std::string const& where,
    CheckReport& report, std::string const& label, bool reportUnwritten)
{
    bool same = true;
    if (a.sizes != b.sizes)
    {
        std::string values;
        for (auto const& [output, value] : a.sizes)
        {
            auto it = b.sizes.find(output);
            values += (values.empty() ? "" : ", ") + ("output " + std::to_string(output) + ": "
                + std::to_string(value) + " vs " + (it != b.sizes.end() ? std::to_string(it->second) : "?"));
        }
        report.addFinding(PluginCheckRules::kNONDETERMINISTIC,
            label + ": two runs with the same inputs gave different size-tensor values (" + values + ") [" + where + "]",
            "sizes");
        return false;
    }
    uint8_t const pa = poisonByte(a.poison);
    uint8_t const pb = poisonByte(b.poison);
    for (size_t o = 0; o < a.outputs.size() && o < b.outputs.size(); ++o)
    {
        auto const type = setup.outDescs[o].type;
        auto const es = static_cast<size_t>(std::max<int64_t>(elementSize(type), 1));
        int64_t const n = declaredCount(a, setup, o);
        bool const aliased = o < setup.aliases.size() && setup.aliases[o] >= 0;
        std::vector<int64_t> unwritten;
        int64_t differing = 0;
        int64_t firstDiff = -1;
        for (int64_t e = 0; e < n; ++e)
        {
            uint8_t const* x = a.outputs[o].data() + static_cast<size_t>(e) * es;
            uint8_t const* y = b.outputs[o].data() + static_cast<size_t>(e) * es;
            if (std::memcmp(x, y, es) == 0)
            {
                continue;
            }
            if (!aliased && pa != pb && elementIs(x, es, pa) && elementIs(y, es, pb))
            {
                unwritten.push_back(e);
                continue;
            }
            ++differing;
            if (firstDiff < 0)
            {
                firstDiff = e;
            }
        }
        std::string const out = "output " + std::to_string(o);
        nvinfer1::Dims const& dims = a.declaredDims[o];
        if (reportUnwritten && !unwritten.empty())
        {
            auto const count = static_cast<int64_t>(unwritten.size());
            int64_t const first = unwritten.front();
            bool const suffix = unwritten.back() == n - 1 && unwritten.back() - first + 1 == count;
            if (count == n)
            {
                report.addFinding(PluginCheckRules::kOUTPUT_UNWRITTEN,
                    label + ": enqueue wrote none of the " + plural(n, "element") + " of " + out + " ("
                        + dataTypeName(type) + " [" + dimsText(dims) + "]); they kept the poison in two runs ["
                        + where + "]",
                    out + "/unwritten");
            }
            else if (suffix)
            {
                report.addFinding(PluginCheckRules::kOUTPUT_DIMS_MISMATCH,
                    label + ": enqueue wrote only the first " + std::to_string(first) + " of the " + plural(n, "element")
                        + " that the declared dims of " + out + " (" + dataTypeName(type) + " [" + dimsText(dims)
                        + "]) imply; the last " + std::to_string(count)
                        + " kept the poison in two runs (the declared output dims and what enqueue writes disagree) ["
                        + where + "]",
                    out + "/prefix");
            }
            else
            {
                report.addFinding(PluginCheckRules::kOUTPUT_UNWRITTEN,
                    label + ": " + std::to_string(count) + " of the " + plural(n, "element") + " of " + out + " ("
                        + dataTypeName(type) + " [" + dimsText(dims) + "]) were never written (first at "
                        + elementIndexText(dims, first) + "); they kept the poison in two runs [" + where + "]",
                    out + "/unwritten");
            }
        }
        if (differing > 0)
        {
            same = false;
            report.addFinding(PluginCheckRules::kNONDETERMINISTIC,
                label + ": two runs with the same inputs gave different values in " + std::to_string(differing)
                    + " of the " + plural(n, "element") + " of " + out + " (first at " + elementIndexText(dims, firstDiff)
                    + ": " + valueText(a.outputs[o], type, firstDiff) + " vs " + valueText(b.outputs[o], type, firstDiff)
                    + ") [" + where + "]",
                out + "/differs");
        }
    }
    return same;
}

std::string describeDifference(RunResult const& a, RunResult const& b, RunSetup const& setup)
{
    if (a.sizes != b.sizes)
    {
        return "the size tensors hold different values";
    }
    for (size_t o = 0; o < a.outputs.size() && o < b.outputs.size(); ++o)
    {
        auto const type = setup.outDescs[o].type;
        auto const es = static_cast<size_t>(std::max<int64_t>(elementSize(type), 1));
        int64_t const n = declaredCount(a, setup, o);
        int64_t differing = 0;
        int64_t first = -1;
        for (int64_t e = 0; e < n; ++e)
        {
            if (std::memcmp(a.outputs[o].data() + static_cast<size_t>(e) * es,
                    b.outputs[o].data() + static_cast<size_t>(e) * es, es)
                != 0)
            {
                ++differing;
                first = first < 0 ? e : first;
            }
        }
        if (differing > 0)
        {
            return "output " + std::to_string(o) + " element " + elementIndexText(a.declaredDims[o], first) + ": "
                + valueText(a.outputs[o], type, first) + " vs " + valueText(b.outputs[o], type, first) + " ("
                + std::to_string(differing) + " of " + plural(n, "element") + " differ)";
        }
    }
    return "";
}

} // namespace kiln::checker
