// Tactic timing (see tacticTiming.h): buffers in the backend's memory at the opt shapes of profile 0, random
// inputs, constants from the weights, the median of the timed runs per tactic.
#include "builder/tacticTiming.h"

#include "builder/dataDependentShapes.h"
#include "builder/timingCache.h"
#include "core/dataType.h"
#include "core/runtimeTypeInfo.h"
#include "runtime/arena.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace kiln
{

namespace
{

constexpr int32_t kTIMED_RUNS = 5;
constexpr int64_t kPATTERN = 4096; //!< random elements drawn per timing input, repeated to fill it
constexpr double kHOPELESS = 8.0; //!< a first run this many times the best median ends the candidate's timing

//! What the timing of `node` depends on: its kind, precision and attributes (the recorded timing and tuning
//! excepted), the candidates, the weights slots' types and counts, and each tensor's type, format, extents at the
//! timing shapes and whether it is a constant of the engine. Nodes with the same signature time alike.
std::string timingSignature(Plan const& plan, PlanNode const& node, KernelSetup const& setup,
    std::vector<std::string> const& tactics, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    Attributes attrs = node.attrs;
    attrs.erase("tactic.timing");
    attrs.erase("autotune");
    std::string key = std::to_string(static_cast<int32_t>(node.kind)) + "|" + std::to_string(static_cast<int32_t>(node.precision))
        + "|" + attrs.toJson() + "|";
    for (std::string const& t : tactics)
    {
        key += t + ",";
    }
    for (WeightsView const& w : setup.weights)
    {
        key += "|w" + std::to_string(static_cast<int32_t>(w.type)) + ":" + std::to_string(w.count);
    }
    auto const addTensors = [&](char tag, std::vector<int32_t> const& indices, std::vector<TensorView> const& views,
                                std::vector<nvinfer1::TensorFormat> const& formats) {
        for (size_t k = 0; k < views.size(); ++k)
        {
            key += "|";
            key += tag;
            if (indices[k] < 0)
            {
                key += "-";
                continue;
            }
            key += std::to_string(static_cast<int32_t>(views[k].type)) + "f"
                + std::to_string(k < formats.size() ? static_cast<int32_t>(formats[k]) : 0)
                + (plan.tensors[static_cast<size_t>(indices[k])].constant >= 0 ? "c" : "") + "[";
            for (int32_t d = 0; d < views[k].dims.nbDims; ++d)
            {
                key += std::to_string(views[k].dims.d[d]) + ",";
            }
            key += "]";
        }
    };
    addTensors('i', node.inputs, inputs, setup.inputFormats);
    addTensors('o', node.outputs, outputs, setup.outputFormats);
    return key;
}

//! 64-bit FNV-1a of `text`, from `basis`.
uint64_t fnv1a(std::string const& text, uint64_t basis = 0xcbf29ce484222325ULL)
{
    uint64_t h = basis;
    for (char c : text)
    {
        h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
    }
    return h;
}

//! The timing-cache key of a signature on `backend`'s device: two 64-bit hashes of different bases.
nvinfer1::TimingCacheKey cacheKey(std::string const& signature, Backend const& backend)
{
    std::string const text = signature + "|" + backend.name() + "|" + backend.deviceName();
    uint64_t const halves[2]{fnv1a(text), fnv1a(text, 0x84222325cbf29ce4ULL)};
    nvinfer1::TimingCacheKey key{};
    std::memcpy(key.data, halves, sizeof(halves));
    return key;
}

//! The config's timing cache when it is Kiln's (the builder adds to it, as TensorRT's builder does to the cache it
//! is given), else nullptr.
TimingCache* configCache(BuildContext const& ctx)
{
    auto const* cache = safeDynamicCast<TimingCache const>(ctx.config.getTimingCache());
    return const_cast<TimingCache*>(cache);
}

//! Takes a recorded choice for `node`: its tactic, its timing report (with `note` appended) and its library choices.
void applyChoice(BuildContext& ctx, PlanNode& node, TimedTactic const& choice, std::string const& note)
{
    node.tactic = choice.tactic;
    node.attrs.setString("tactic.timing", choice.report + note);
    if (!choice.autotune.empty())
    {
        node.attrs.setString("autotune", choice.autotune);
    }
    ctx.logger.verbose("layer '" + node.name + "': " + choice.report + note + "; chose '" + choice.tactic + "'");
}

std::string formatMs(double ms)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.4f ms", ms);
    return text;
}

} // namespace

Status timeTactics(BuildContext& ctx, PlanNode& node, KernelSetup const& setup, std::vector<std::string> const& tactics,
    BackendSession& session)
{
    node.tactic = tactics.front();
    char const* env = std::getenv("KILN_TACTIC_TIMING");
    Backend const& backend = *ctx.backend;
    if (tactics.size() < 2 || (env != nullptr && std::string(env) == "0") || ctx.plan.profiles.empty())
    {
        return Status::ok();
    }
    Plan const& plan = ctx.plan;
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> symbols, profileSymbolValues(plan, plan.profiles[0], 1));
    std::vector<int64_t> values;
    KILN_RETURN_IF_ERROR(plan.shapes.evaluate(symbols, values));
    std::vector<bool> const dataDependent = dataDependentExprs(plan.shapes);
    nvinfer1::IGpuAllocator* allocator = &backend.defaultAllocator();
    // Shapes first: a node whose signature was timed before needs no buffers.
    auto const shapeView = [&](int32_t t, TensorView& view) {
        if (t < 0)
        {
            return true;
        }
        PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
        if (pt.hasValues || dependsOnData(dataDependent, pt.dims))
        {
            return false; // shape values or data-dependent sizes: not timed
        }
        view.type = pt.type;
        view.dims.nbDims = static_cast<int32_t>(pt.dims.size());
        for (size_t i = 0; i < pt.dims.size(); ++i)
        {
            view.dims.d[i] = values[static_cast<size_t>(pt.dims[i])];
        }
        return true;
    };
    std::vector<TensorView> inputs(node.inputs.size());
    std::vector<TensorView> outputs(node.outputs.size());
    for (size_t k = 0; k < node.inputs.size(); ++k)
    {
        if (!shapeView(node.inputs[k], inputs[k]))
        {
            return Status::ok();
        }
    }
    for (size_t k = 0; k < node.outputs.size(); ++k)
    {
        if (!shapeView(node.outputs[k], outputs[k]))
        {
            return Status::ok();
        }
    }
    // kDISABLE_TIMING_CACHE: every node is timed, nothing is read from or written to a cache.
    bool const reuse = !ctx.config.getFlag(nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE);
    std::string const signature = reuse ? timingSignature(plan, node, setup, tactics, inputs, outputs) : std::string();
    TimingCache* const cache = reuse ? configCache(ctx) : nullptr;
    nvinfer1::TimingCacheKey const key = cache != nullptr ? cacheKey(signature, backend) : nvinfer1::TimingCacheKey{};
    // A choice made before: from the config's timing cache (an earlier build), else from a node of this build.
    if (cache != nullptr && ctx.timedTactics.count(signature) == 0)
    {
        nvinfer1::TimingCacheValue const cached = cache->query(key);
        auto const hit = std::find_if(tactics.begin(), tactics.end(),
            [&](std::string const& t) { return cached.timingMSec >= 0.0F && cached.tacticHash == fnv1a(t); });
        if (hit != tactics.end())
        {
            ctx.timedTactics[signature] = TimedTactic{*hit,
                "from the timing cache: " + *hit + " " + formatMs(cached.timingMSec), cache->detail(key), node.name};
            applyChoice(ctx, node, ctx.timedTactics[signature], "");
            return Status::ok();
        }
    }
    if (auto const seen = ctx.timedTactics.find(signature); reuse && seen != ctx.timedTactics.end())
    {
        applyChoice(ctx, node, seen->second, " (timed at layer '" + seen->second.layer + "', the same configuration)");
        return Status::ok();
    }
    // Buffers: constants from the weights; other inputs a random block of kPATTERN elements repeated (the values do
    // not matter to the timing, and drawing every element of a batch-32 activation took seconds per build).
    std::vector<DeviceBuffer> buffers;
    buffers.reserve(node.inputs.size() + node.outputs.size());
    std::mt19937 rng(1234);
    auto const allocate = [&](int32_t t, bool input, TensorView& view) -> Status {
        if (t < 0)
        {
            return Status::ok();
        }
        PlanTensor const& pt = plan.tensors[static_cast<size_t>(t)];
        int64_t const bytes = byteSize(pt.type, view.volume());
        buffers.emplace_back();
        KILN_RETURN_IF_ERROR(buffers.back().allocate(allocator, std::max<int64_t>(bytes, 1), "tactic timing buffers"));
        view.data = buffers.back().data();
        if (!input || bytes == 0)
        {
            return Status::ok();
        }
        std::vector<uint8_t> host(static_cast<size_t>(bytes));
        if (pt.constant >= 0)
        {
            PlanWeights const& w = plan.weights[static_cast<size_t>(pt.constant)];
            std::copy_n(w.data, std::min<int64_t>(w.size, bytes), host.begin());
        }
        else
        {
            int64_t const block = std::min<int64_t>(view.volume(), kPATTERN);
            std::uniform_real_distribution<double> real(-1.0, 1.0);
            for (int64_t i = 0; i < block; ++i)
            {
                storeElement(host.data(), pt.type, i, isFloatType(pt.type) ? real(rng) : static_cast<double>(i % 2));
            }
            int64_t const blockBytes = byteSize(pt.type, block);
            for (int64_t at = blockBytes; at < bytes; at += blockBytes)
            {
                std::copy_n(host.begin(), std::min(blockBytes, bytes - at), host.begin() + at);
            }
        }
        return backend.copy(view.data, host.data(), bytes, CopyKind::kHOST_TO_DEVICE, nullptr);
    };
    for (size_t k = 0; k < node.inputs.size(); ++k)
    {
        KILN_RETURN_IF_ERROR(allocate(node.inputs[k], true, inputs[k]));
    }
    for (size_t k = 0; k < node.outputs.size(); ++k)
    {
        KILN_RETURN_IF_ERROR(allocate(node.outputs[k], false, outputs[k]));
    }
    KILN_RETURN_IF_ERROR(backend.synchronize(nullptr));
    int32_t const runs = std::max(ctx.config.getAvgTimingIterations(), 1) * kTIMED_RUNS;
    std::string best;
    double bestMs = -1.0;
    std::string report;
    // What each tactic's kernel chose inside its library by timing (cuDNN plans, cuBLASLt algorithms), kept for the
    // chosen tactic in the node's "autotune" attribute so that loading the engine does not time again.
    std::vector<std::string> tuning;
    std::vector<std::string> bestTuning;
    struct Recorder
    {
        Backend const& backend;
        std::vector<std::string>* previous;
        ~Recorder() { (void) backend.exchangeTuningRecorder(previous); }
    } const recorder{backend, backend.exchangeTuningRecorder(&tuning)};
    for (std::string const& tactic : tactics)
    {
        tuning.clear();
        node.tactic = tactic;
        StatusOr<std::unique_ptr<Kernel>> kernel = session.createKernel(setup);
        Status st = kernel.status();
        DeviceBuffer workspace;
        std::vector<double> times;
        if (st.isOk())
        {
            st = kernel.value()->reshape(inputs, outputs);
        }
        if (st.isOk())
        {
            int64_t const bytes = kernel.value()->workspaceSize(inputs, outputs);
            st = workspace.allocate(allocator, bytes, "tactic timing workspace");
            RunContext const run{nullptr, workspace.data(), bytes};
            for (int32_t r = 0; st.isOk() && r <= runs; ++r)
            {
                auto const start = std::chrono::steady_clock::now();
                st = kernel.value()->run(inputs, outputs, run);
                if (st.isOk())
                {
                    st = backend.synchronize(nullptr);
                }
                if (r > 0)
                {
                    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
                    // A candidate whose first timed run takes many times the best one's median cannot win: it is not
                    // run again (BERT's direct matrix multiplies took 25 ms a run against cuBLASLt's 0.05 ms, most of
                    // the engine's build time).
                    if (bestMs > 0.0 && times.size() == 1 && times[0] > kHOPELESS * bestMs)
                    {
                        break;
                    }
                }
            }
        }
        if (!st.isOk())
        {
            ctx.logger.verbose("layer '" + node.name + "': tactic '" + tactic + "' is skipped: " + st.message());
            report += (report.empty() ? "" : ", ") + tactic + " failed";
            continue;
        }
        std::sort(times.begin(), times.end());
        double const median = times[times.size() / 2];
        report += (report.empty() ? "" : ", ") + tactic + " " + formatMs(median);
        if (bestMs < 0.0 || median < bestMs)
        {
            bestMs = median;
            best = tactic;
            bestTuning = tuning;
        }
    }
    if (best.empty())
    {
        return unsupported("layer '" + node.name + "': every tactic failed while timing (" + report + ")");
    }
    node.tactic = best;
    node.attrs.setString("tactic.timing", report);
    std::string recorded;
    for (std::string const& entry : bestTuning)
    {
        recorded += (recorded.empty() ? "" : "\n") + entry;
    }
    if (!recorded.empty())
    {
        node.attrs.setString("autotune", recorded);
    }
    if (reuse)
    {
        ctx.timedTactics[signature] = TimedTactic{best, report, recorded, node.name};
    }
    if (cache != nullptr)
    {
        nvinfer1::TimingCacheValue value{};
        value.tacticHash = fnv1a(best);
        value.timingMSec = static_cast<float>(bestMs);
        (void) cache->updateWithDetail(key, value, recorded);
    }
    ctx.logger.verbose("layer '" + node.name + "': timed tactics at the opt shapes of profile 0: " + report + "; chose '"
        + best + "'");
    return Status::ok();
}

} // namespace kiln
