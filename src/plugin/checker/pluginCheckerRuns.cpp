// PluginChecker, execution stage: reference runs of the created plugin, the builder's copy, its configured clone
// and the engine's object; the execution context's runs (outputs, workspace, inputs, determinism); repeated
// configure at the same and at the alternative shapes. Only for plugins that opted into the CPU backend.
#include "plugin/checker/pluginChecker.h"

#include "plugin/checker/checkBuffers.h"

#include <random>

namespace kiln::checker
{

using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginTensorDesc;

namespace
{

//! Most tactics whose execution is checked.
constexpr size_t kMAX_CHECKED_TACTICS = 8;

char const* const kEXECUTION_RULES[] = {PluginCheckRules::kOUTPUT_DIMS_MISMATCH, PluginCheckRules::kOUTPUT_UNWRITTEN,
    PluginCheckRules::kWORKSPACE_OVERRUN, PluginCheckRules::kINPUT_MODIFIED, PluginCheckRules::kNONDETERMINISTIC,
    PluginCheckRules::kREPEATED_CONFIGURE};

} // namespace

void PluginChecker::skipExecutionRules(std::string const& reason)
{
    for (char const* rule : kEXECUTION_RULES)
    {
        mReport.markSkipped(rule, reason);
    }
}

bool PluginChecker::makeSetup(ShapeSet set, RunSetup& setup)
{
    setup.set = set;
    auto const nbIn = mSpec.nbInputs();
    auto outDims = mBuilderShapes->outputUpperDims(set);
    if (!ok(outDims.status(), "evaluating the output shapes"))
    {
        return false;
    }
    // The same seed for every object and run, so that outputs can be compared across them.
    std::mt19937_64 rng(mSpec.seed + (set == ShapeSet::kMAIN ? 0 : 0x9E3779B97F4A7C15ULL));
    for (int32_t i = 0; i < nbIn; ++i)
    {
        PluginTensorDesc d = mNegotiation.io[static_cast<size_t>(i)];
        d.dims = mBuilderShapes->inputDims(i, set);
        setup.inDescs.push_back(d);
        setup.inputBytes.push_back(
            randomTensorBytes(d.type, dimsVolume(d.dims), rng, mSpec.rangeGiven, mSpec.inputMin, mSpec.inputMax));
    }
    for (int32_t o = 0; o < mNbOutputs; ++o)
    {
        PluginTensorDesc d = mNegotiation.io[static_cast<size_t>(nbIn + o)];
        d.dims = outDims.value()[static_cast<size_t>(o)];
        if (dimsVolume(d.dims) > kMAX_CHECK_ELEMENTS)
        {
            mReport.addFinding(PluginCheckRules::kBAD_REQUEST, "output " + std::to_string(o) + " would have ["
                + dimsText(d.dims) + "] elements; use smaller input shapes for the check");
            return false;
        }
        setup.outDescs.push_back(d);
    }
    setup.aliases = mAliases;
    setup.workspaceBytes = mWorkspace;
    return true;
}

Status PluginChecker::reconfigure(PluginAdapter& plugin, RunSetup const& setup)
{
    if (plugin.generation() == PluginGeneration::kV3_ONE)
    {
        return plugin.onShapeChange(setup.inDescs, setup.outDescs);
    }
    auto toDynamic = [](std::vector<PluginTensorDesc> const& descs) {
        std::vector<DynamicPluginTensorDesc> result;
        for (PluginTensorDesc const& d : descs)
        {
            DynamicPluginTensorDesc dyn{};
            dyn.desc = d;
            dyn.min = d.dims;
            dyn.opt = d.dims;
            dyn.max = d.dims;
            result.push_back(dyn);
        }
        return result;
    };
    return plugin.configure(toDynamic(setup.inDescs), toDynamic(setup.outDescs));
}

bool PluginChecker::referenceRun(PluginAdapter& plugin, std::string const& which, RunResult& out)
{
    if (!ok(reconfigure(plugin, mMain), std::string(mV3 ? "onShapeChange" : "configurePlugin")
                + " at the real shapes of " + which))
    {
        return false;
    }
    out = runPlugin(plugin, mMain, *mBuilderShapes, 0);
    if (!ok(out.status, "enqueue of " + which))
    {
        return false;
    }
    checkRun(out, mMain, *mBuilderShapes, which, mReport, plugin.label());
    return true;
}

bool PluginChecker::contextRuns(PluginAdapter& context, std::string const& tactic, RunResult& first,
    bool& deterministic)
{
    std::string const who = "execution context's plugin" + tactic;
    step(std::to_string(mSpec.nbRuns) + " runs of the " + who + " with different output poisons");
    if (!ok(reconfigure(context, mMain), std::string(mV3 ? "onShapeChange" : "configurePlugin")
                + " at the real shapes (" + who + ")"))
    {
        return false;
    }
    std::vector<RunResult> runs;
    for (int32_t r = 0; r < mSpec.nbRuns; ++r)
    {
        std::string const where = who + ", run " + std::to_string(r + 1);
        RunResult result = runPlugin(context, mMain, *mBuilderShapes, r);
        if (!ok(result.status, "enqueue (" + where + ")"))
        {
            return false;
        }
        checkRun(result, mMain, *mBuilderShapes, where, mReport, context.label());
        runs.push_back(std::move(result));
    }
    mReport.markChecked(PluginCheckRules::kOUTPUT_DIMS_MISMATCH);
    mReport.markChecked(PluginCheckRules::kINPUT_MODIFIED);
    mReport.markChecked(PluginCheckRules::kWORKSPACE_OVERRUN);
    deterministic = true;
    for (size_t r = 1; r < runs.size(); ++r)
    {
        std::string const where = who + ", runs 1 and " + std::to_string(r + 1);
        deterministic = compareRuns(runs[0], runs[r], mMain, where, mReport, context.label(), r == 1) && deterministic;
    }
    mReport.markChecked(PluginCheckRules::kOUTPUT_UNWRITTEN);
    mReport.markChecked(PluginCheckRules::kNONDETERMINISTIC);
    first = std::move(runs[0]);
    return true;
}

void PluginChecker::repeatedConfigure(
    PluginAdapter& context, std::string const& tactic, RunResult const& first, bool deterministic)
{
    char const* const rule = PluginCheckRules::kREPEATED_CONFIGURE;
    char const* const call = mV3 ? "onShapeChange" : "configurePlugin";
    std::string const who = "execution context's plugin" + tactic;
    auto fail = [&](std::string const& what, Status const& status) {
        mReport.addFinding(rule, context.label() + ": " + what + ": " + status.message() + " [" + who + "]");
    };

    step("repeated configure of the " + who);
    // Configure twice more at the same shapes, then run: nothing may change.
    Status st = reconfigure(context, mMain);
    if (st.isOk())
    {
        st = reconfigure(context, mMain);
    }
    if (!st.isOk())
    {
        fail(std::string(call) + " failed when called again with the same shapes", st);
        return;
    }
    RunResult same = runPlugin(context, mMain, *mBuilderShapes, 0);
    if (!same.status.isOk())
    {
        fail(std::string("enqueue failed after ") + call + " was called again with the same shapes", same.status);
        return;
    }
    checkRun(same, mMain, *mBuilderShapes, who + ", after configuring again", mReport, context.label());
    std::string diff = deterministic ? describeDifference(first, same, mMain) : "";
    if (!diff.empty())
    {
        mReport.addFinding(rule, context.label() + ": after " + call
            + " was called again with the same shapes, enqueue gave different outputs: " + diff
            + "; configure must set the state from its arguments, not accumulate it [" + who + "]");
        return;
    }

    if (mAlt.inDescs.empty() && mAlt.outDescs.empty())
    {
        mReport.markChecked(rule);
        return;
    }
    // Other shapes in between, then back.
    st = reconfigure(context, mAlt);
    if (!st.isOk())
    {
        fail(std::string(call) + " failed at the alternative input shapes", st);
        return;
    }
    std::vector<RunResult> altRuns;
    for (int32_t r = 0; r < 2; ++r)
    {
        RunResult result = runPlugin(context, mAlt, *mBuilderShapes, r);
        if (!result.status.isOk())
        {
            fail("enqueue failed at the alternative input shapes", result.status);
            return;
        }
        checkRun(result, mAlt, *mBuilderShapes, who + ", alternative shapes, run " + std::to_string(r + 1), mReport,
            context.label());
        altRuns.push_back(std::move(result));
    }
    compareRuns(altRuns[0], altRuns[1], mAlt, who + ", alternative shapes", mReport, context.label(), true);
    st = reconfigure(context, mMain);
    if (!st.isOk())
    {
        fail(std::string(call) + " failed when going back to the first shapes", st);
        return;
    }
    RunResult back = runPlugin(context, mMain, *mBuilderShapes, 0);
    if (!back.status.isOk())
    {
        fail("enqueue failed after going back to the first shapes", back.status);
        return;
    }
    checkRun(back, mMain, *mBuilderShapes, who + ", back at the first shapes", mReport, context.label());
    diff = deterministic ? describeDifference(first, back, mMain) : "";
    if (!diff.empty())
    {
        mReport.addFinding(rule, context.label() + ": after " + call
            + " at the alternative shapes and back at the first shapes, enqueue gave different outputs than before: "
            + diff + "; state from an earlier configuration leaked into the new one [" + who + "]");
        return;
    }
    mReport.markChecked(rule);
}

void PluginChecker::executionStage()
{
    if (!mBuilder->supportsCpu())
    {
        std::string const reason = mBuilder->label()
            + " does not opt into the CPU backend (kiln/KilnPluginCpu.h), so its enqueue "
              "cannot run on host memory; Kiln has no CUDA backend yet";
        mReport.addNote("execution rules skipped: " + reason);
        skipExecutionRules("plugin does not opt into the CPU backend");
        return;
    }
    if (!mNegotiation.linear)
    {
        mReport.addNote("execution rules skipped: the plugin accepts no combination of kLINEAR formats, and the "
                        "checker runs plugins on linear host buffers only");
        skipExecutionRules("no kLINEAR format combination");
        return;
    }
    if (!makeSetup(ShapeSet::kMAIN, mMain))
    {
        return;
    }
    if (!mSpec.altShapes.empty() && !makeSetup(ShapeSet::kALTERNATIVE, mAlt))
    {
        return;
    }
    mReport.setExecutionChecked(true);
    bool const dynamic = mV3 || mBuilder->generation() == PluginGeneration::kV2_DYNAMIC_EXT;
    mReport.addNote("execution rules ran on host memory: " + std::to_string(mSpec.nbRuns)
        + " runs of the execution context's plugin with the same seeded inputs (seed " + std::to_string(mSpec.seed)
        + ") and different output poisons"
        + (mSpec.altShapes.empty() ? (dynamic ? "; no alternative input shapes were given, so repeated-configure "
                                                "re-configured at the same shapes only"
                                              : "")
                                   : "; repeated-configure also ran at the alternative input shapes"));

    std::vector<int32_t> tactics = mTactics;
    if (tactics.empty())
    {
        tactics.push_back(0);
    }
    if (tactics.size() > kMAX_CHECKED_TACTICS)
    {
        mReport.addNote("only the first " + std::to_string(kMAX_CHECKED_TACTICS) + " of "
            + std::to_string(tactics.size()) + " tactics were run");
        tactics.resize(kMAX_CHECKED_TACTICS);
    }

    for (size_t i = 0; i < tactics.size(); ++i)
    {
        int32_t const t = tactics[i];
        std::string const tactic = mTactics.empty() ? "" : " with tactic " + std::to_string(t);
        if (mV3 && !ok(mEngine->setTactic(t), "setTactic(" + std::to_string(t) + ") on the engine plugin"))
        {
            continue;
        }
        step("attachToContext: the execution context's plugin" + tactic);
        // The context's plugin comes from the engine's object before anything runs on that object.
        auto context = mEngine->attachToContext(mResources);
        if (!ok(context.status(), "attachToContext (the execution context's plugin" + tactic + ")"))
        {
            continue;
        }
        std::unique_ptr<PluginAdapter> plugin = std::move(context.value());
        plugin->setLayerName(mSpec.layerName);
        References refs;
        if (i == 0)
        {
            refs = referenceRuns(t);
        }
        RunResult first;
        bool deterministic = false;
        if (!contextRuns(*plugin, tactic, first, deterministic))
        {
            continue;
        }
        if (i == 0 && deterministic)
        {
            compareReferences(refs, *plugin, first);
        }
        repeatedConfigure(*plugin, tactic, first, deterministic);
    }
}

PluginChecker::References PluginChecker::referenceRuns(int32_t tactic)
{
    // The plugin from createPlugin, the builder's copy, the clone of the configured builder's copy and the engine's
    // object all run once at the main shapes with the first tactic, so that their outputs can be compared.
    step("reference runs of the created plugin, the builder's copy, its configured clone and the engine's plugin");
    References refs;
    struct Ref
    {
        PluginAdapter* plugin;
        char const* which;
        bool initialized;
        bool* have;
        RunResult* run;
    };
    Ref const list[] = {{mOriginal.get(), "the plugin returned by createPlugin", false, &refs.haveOriginal, &refs.original},
        {mBuilder.get(), "the builder's copy", mBuilderInitialized, &refs.haveBuilder, &refs.builder},
        {mCopy.get(), "the clone of the configured builder's copy", false, &refs.haveCopy, &refs.copy},
        {mEngine.get(), "the recreated (engine) plugin", mEngineInitialized, &refs.haveEngine, &refs.engine}};
    for (Ref const& ref : list)
    {
        std::string const which = ref.which;
        bool ready = true;
        bool initializedHere = false;
        if (mV3)
        {
            ready = ok(ref.plugin->setTactic(tactic), "setTactic(" + std::to_string(tactic) + ") on " + which);
        }
        else if (!ref.initialized)
        {
            ready = ok(ref.plugin->initialize(), "initialize of " + which);
            initializedHere = ready;
        }
        *ref.have = ready && referenceRun(*ref.plugin, which, *ref.run);
        if (initializedHere)
        {
            ref.plugin->terminate();
        }
    }
    return refs;
}

void PluginChecker::compareReferences(References const& refs, PluginAdapter const& context, RunResult const& first)
{
    std::string diff;
    if (refs.haveOriginal && refs.haveBuilder
        && !(diff = describeDifference(refs.original, refs.builder, mMain)).empty())
    {
        mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, mBuilder->label()
            + ": the clone of a clone of the created plugin (the builder's copy) computes other outputs than the "
              "created plugin, configured alike: " + diff + "; clone() must copy every member");
    }
    if (refs.haveBuilder && refs.haveCopy && !(diff = describeDifference(refs.builder, refs.copy, mMain)).empty())
    {
        mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, mCopy->label()
            + ": the clone of the configured plugin computes other outputs than the plugin it was cloned from: " + diff
            + "; clone() must copy every member");
    }
    if (refs.haveBuilder && refs.haveEngine && !(diff = describeDifference(refs.builder, refs.engine, mMain)).empty())
    {
        mReport.addFinding(PluginCheckRules::kSERIALIZE_ROUNDTRIP, mEngine->label() + ": the plugin recreated from the "
            + (mV3 ? "serialized fields" : "serialized bytes") + " computes other outputs than the plugin that was "
            "serialized: " + diff + "; something the plugin needs is not serialized or not restored");
    }
    if (refs.haveEngine && context.object() != mEngine->object()
        && !(diff = describeDifference(refs.engine, first, mMain)).empty())
    {
        mReport.addFinding(PluginCheckRules::kCLONE_DIFFERS, context.label()
            + ": the execution context's plugin (attachToContext) computes other outputs than the engine's plugin it "
              "was cloned from: " + diff);
    }
}

} // namespace kiln::checker
