// Importers of the control-flow op family: If, Loop and Scan. Loops with a run-time trip count use ILoop
// (subgraphImportLoop.cpp); the others are expanded, which is exact because ONNX subgraphs are pure:
// - If: a parse-time condition imports the chosen branch only; a run-time condition imports both branches inline and
//   joins them with an IIfConditional (only the taken branch runs) when each output has one static shape in both
//   branches, else picks each output with an ISelectLayer (both branches run).
// - Loop: the body is unrolled for a trip count known at parse time (or bounded by the declared static length of the
//   scan outputs), with a "still running" flag and ISelectLayers freezing the carried values once the loop stops.
// - Scan: the body is unrolled over the static sequence length; scan outputs are stacked.
#include "onnx/importerHelpers.h"
#include "onnx/importers/subgraphImport.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{

Status importIf(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ImporterContextImpl * impl, implOf(ctx, node));
    KILN_ASSIGN_OR_RETURN(::onnx::GraphProto const* thenGraph, graphAttr(node, "then_branch"));
    KILN_ASSIGN_OR_RETURN(::onnx::GraphProto const* elseGraph, graphAttr(node, "else_branch"));
    std::string const where = describeNode(node);
    for (auto const* g : {thenGraph, elseGraph})
    {
        if (g->output_size() != node.output_size())
        {
            return invalidArgument(where + ": " + (g == thenGraph ? "then_branch" : "else_branch") + " has "
                + std::to_string(g->output_size()) + " outputs but the node has " + std::to_string(node.output_size()));
        }
    }
    std::string const prefix = namePrefix(node);
    OnnxConstant const* cond = ctx.constant(node, 0);
    if (cond != nullptr)
    {
        if (cond->count() != 1)
        {
            return invalidArgument(where + ": the condition must hold one element, it holds "
                + std::to_string(cond->count()));
        }
        KILN_ASSIGN_OR_RETURN(std::vector<double> value, cond->toDouble());
        bool const taken = value[0] != 0.0;
        char const* const branch = taken ? "then_branch" : "else_branch";
        KILN_ASSIGN_OR_RETURN(outputs,
            importSubgraph(*impl, taken ? *thenGraph : *elseGraph, {}, where + ": " + branch, prefix + branch + "/"));
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * condTensor, ctx.tensor(node, 0));
    nvinfer1::Dims const condDims = condTensor->getDimensions();
    int64_t condCount = 1;
    for (int32_t i = 0; i < condDims.nbDims; ++i)
    {
        condCount = condDims.d[i] < 0 ? -1 : condCount * condDims.d[i];
        if (condCount < 0)
        {
            break;
        }
    }
    if (condCount != 1)
    {
        return invalidArgument(where + ": the condition must hold exactly one element (its shape must be static)");
    }
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * flag, scalarFlag(ctx, node, condTensor, "cond"));
    KILN_ASSIGN_OR_RETURN(std::vector<OnnxValue> thenOut,
        importSubgraph(*impl, *thenGraph, {}, where + ": then_branch", prefix + "then_branch/"));
    KILN_ASSIGN_OR_RETURN(std::vector<OnnxValue> elseOut,
        importSubgraph(*impl, *elseGraph, {}, where + ": else_branch", prefix + "else_branch/"));
    std::vector<std::pair<nvinfer1::ITensor*, nvinfer1::ITensor*>> pairs;
    bool sameShapes = true;
    for (int32_t i = 0; i < node.output_size(); ++i)
    {
        OnnxValue const& a = thenOut[static_cast<size_t>(i)];
        OnnxValue const& b = elseOut[static_cast<size_t>(i)];
        std::string const what = where + ": output " + std::to_string(i) + " ('" + node.output(i) + "')";
        if (valueType(a) != valueType(b))
        {
            return invalidArgument(what + ": then_branch and else_branch produce different element types");
        }
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * ta, valueTensor(*impl, a, prefix + "then_out" + std::to_string(i)));
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * tb, valueTensor(*impl, b, prefix + "else_out" + std::to_string(i)));
        pairs.emplace_back(ta, tb);
        nvinfer1::Dims const da = ta->getDimensions();
        nvinfer1::Dims const db = tb->getDimensions();
        sameShapes = sameShapes && da.nbDims == db.nbDims;
        for (int32_t k = 0; sameShapes && k < da.nbDims; ++k)
        {
            sameShapes = da.d[k] == db.d[k] && da.d[k] >= 0;
        }
    }
    if (sameShapes)
    {
        // Branch outputs of one static shape: an IIfConditional runs only the taken branch's layers.
        nvinfer1::IIfConditional* conditional = ctx.network().addIfConditional();
        if (conditional == nullptr)
        {
            return internalError(where + ": INetworkDefinition::addIfConditional failed");
        }
        conditional->setName((prefix + "if").c_str());
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, conditional->setCondition(*flag), "IIfConditional::setCondition",
            "condition"));
        for (size_t i = 0; i < pairs.size(); ++i)
        {
            nvinfer1::IIfConditionalOutputLayer* out = conditional->addOutput(*pairs[i].first, *pairs[i].second);
            KILN_RETURN_IF_ERROR(checkLayer(ctx, node, out, "IIfConditional::addOutput", "output" + std::to_string(i)));
            outputs.emplace_back(out->getOutput(0));
        }
        return Status::ok();
    }
    for (int32_t i = 0; i < node.output_size(); ++i)
    {
        std::string const what = where + ": output " + std::to_string(i) + " ('" + node.output(i) + "')";
        nvinfer1::ITensor* ta = pairs[static_cast<size_t>(i)].first;
        nvinfer1::ITensor* tb = pairs[static_cast<size_t>(i)].second;
        nvinfer1::Dims const da = ta->getDimensions();
        nvinfer1::Dims const db = tb->getDimensions();
        int32_t const rank = std::max(da.nbDims, db.nbDims);
        for (int32_t k = 1; k <= rank; ++k)
        {
            int64_t const x = k <= da.nbDims ? da.d[da.nbDims - k] : 1;
            int64_t const y = k <= db.nbDims ? db.d[db.nbDims - k] : 1;
            if (x > 1 && y > 1 && x != y)
            {
                return unsupported(what + ": the branches produce shapes that do not broadcast (Kiln selects between "
                    "both branches' outputs, so they must have one broadcast shape)");
            }
        }
        KILN_ASSIGN_OR_RETURN(
            nvinfer1::ITensor * out, selectValue(ctx, node, flag, ta, tb, "select" + std::to_string(i)));
        outputs.emplace_back(out);
    }
    return Status::ok();
}

//! Whether `value` is a parse-time constant whose single element is non-zero.
bool isConstantTrue(OnnxValue const& value)
{
    if (value.constant == nullptr || value.constant->count() != 1)
    {
        return false;
    }
    auto v = value.constant->toDouble();
    return v.isOk() && (*v)[0] != 0.0;
}

StatusOr<nvinfer1::ITensor*> andFlags(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ITensor* a,
    nvinfer1::ITensor* b, std::string const& suffix)
{
    if (a == nullptr)
    {
        return b;
    }
    if (b == nullptr)
    {
        return a;
    }
    return addElementWise(ctx, node, a, b, nvinfer1::ElementWiseOperation::kAND, suffix);
}

Status importLoop(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ImporterContextImpl * impl, implOf(ctx, node));
    KILN_ASSIGN_OR_RETURN(::onnx::GraphProto const* body, graphAttr(node, "body"));
    std::string const where = describeNode(node);
    int32_t const nbCarried = node.input_size() - 2;
    if (nbCarried < 0)
    {
        return invalidArgument(where + ": Loop needs the inputs M and cond (either may be the empty name)");
    }
    if (body->input_size() != nbCarried + 2 || body->output_size() < nbCarried + 1)
    {
        return invalidArgument(where + ": the body has " + std::to_string(body->input_size()) + " inputs and "
            + std::to_string(body->output_size()) + " outputs; with " + std::to_string(nbCarried)
            + " loop-carried values it needs " + std::to_string(nbCarried + 2) + " inputs and at least "
            + std::to_string(nbCarried + 1) + " outputs");
    }
    int32_t const nbScan = body->output_size() - 1 - nbCarried;
    if (node.output_size() > nbCarried + nbScan)
    {
        return invalidArgument(where + ": the node has " + std::to_string(node.output_size())
            + " outputs but the body yields only " + std::to_string(nbCarried + nbScan));
    }
    KILN_ASSIGN_OR_RETURN(OnnxValue tripCount, inputValue(*impl, node, 0));
    KILN_ASSIGN_OR_RETURN(OnnxValue cond, inputValue(*impl, node, 1));
    if (!tripCount.defined() && !cond.defined())
    {
        return unsupported(where + ": a Loop without a trip count M and without a condition never ends");
    }
    bool const scanOutputs = nbScan > 0 && node.output_size() > nbCarried;
    bool const alwaysTrue = !cond.defined() || isConstantTrue(cond);
    bool longLoop = false; // a parse-time M beyond the unrolling limit
    if (tripCount.constant != nullptr && tripCount.constant->count() == 1)
    {
        auto m = tripCount.constant->toInt64();
        longLoop = m.isOk() && (*m)[0] > kMaxUnrolledIterations;
    }
    bool const runTimeTrip = tripCount.constant == nullptr || longLoop;
    if (runTimeTrip && (!scanOutputs || (tripCount.defined() && alwaysTrue)))
    {
        // A trip count known only at run time (or none, or too long to unroll): an ILoop, whose body is imported once.
        std::vector<OnnxValue> initial;
        for (int32_t i = 0; i < nbCarried; ++i)
        {
            KILN_ASSIGN_OR_RETURN(OnnxValue v, inputValue(*impl, node, 2 + i));
            if (!v.defined())
            {
                return invalidArgument(where + ": loop-carried input " + std::to_string(2 + i) + " is missing");
            }
            initial.push_back(v);
        }
        return importLoopWithILoop(*impl, node, *body, tripCount, cond, alwaysTrue, initial, outputs);
    }
    if (!tripCount.defined())
    {
        return unsupported(where + ": a Loop without a trip count M (ended by its condition only) with scan outputs "
            "is not supported (their length would depend on data)");
    }
    // How many body copies to unroll, and whether the loop may stop before them (needs a run-time flag).
    int64_t iterations = -1;
    int64_t tripCountValue = -1;
    bool const constantTrip = tripCount.constant != nullptr;
    if (constantTrip)
    {
        if (tripCount.constant->count() != 1)
        {
            return invalidArgument(where + ": M must hold one element");
        }
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> m, tripCount.constant->toInt64());
        iterations = std::max<int64_t>(m[0], 0);
        tripCountValue = iterations;
    }
    bool const condAlwaysTrue = !cond.defined() || isConstantTrue(cond);
    bool const mayStopEarly = !constantTrip || !condAlwaysTrue;
    // Scan outputs of a loop that may stop early are only exact with a declared static length (checked at run time).
    int64_t declaredLength = -1;
    for (int32_t k = 0; k < nbScan && nbCarried + k < node.output_size(); ++k)
    {
        nvinfer1::Dims const d = declaredDims(*impl, node.output(nbCarried + k));
        if (d.nbDims >= 1 && d.d[0] >= 0)
        {
            declaredLength = d.d[0];
            break;
        }
    }
    bool const usesScan = nbScan > 0 && node.output_size() > nbCarried;
    if (!constantTrip)
    {
        if (!usesScan || declaredLength < 0)
        {
            return unsupported(where + ": the trip count M is known only at run time; Kiln unrolls loops, so M must "
                "be a parse-time constant (possibly after constant folding) or bounded by a static declared length "
                "of a scan output");
        }
        iterations = declaredLength;
    }
    else if (mayStopEarly && usesScan)
    {
        if (declaredLength < 0)
        {
            return unsupported(where + ": a Loop whose condition is computed at run time has scan outputs of a "
                "run-time length; Kiln needs their length declared statically in the graph");
        }
        iterations = std::min(iterations, declaredLength);
    }
    if (iterations > kMaxUnrolledIterations)
    {
        return unsupported(where + ": " + std::to_string(iterations) + " iterations exceed Kiln's unrolling limit of "
            + std::to_string(kMaxUnrolledIterations));
    }
    if (iterations == 0 && usesScan)
    {
        return unsupported(where + ": a Loop that runs zero times has scan outputs of unknown shape");
    }
    std::string const prefix = namePrefix(node);
    std::vector<OnnxValue> carried;
    for (int32_t i = 0; i < nbCarried; ++i)
    {
        KILN_ASSIGN_OR_RETURN(OnnxValue v, inputValue(*impl, node, 2 + i));
        if (!v.defined())
        {
            return invalidArgument(where + ": loop-carried input " + std::to_string(2 + i) + " is missing");
        }
        carried.push_back(v);
    }
    nvinfer1::ITensor* tripTensor = nullptr;
    if (!constantTrip)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * t, ctx.tensor(node, 0));
        KILN_ASSIGN_OR_RETURN(t, castTo(ctx, node, t, nvinfer1::DataType::kINT64, "trip_int64"));
        nvinfer1::Dims scalar{};
        scalar.nbDims = 0;
        KILN_ASSIGN_OR_RETURN(tripTensor, reshape(ctx, node, t, scalar, "trip_scalar"));
    }
    KILN_ASSIGN_OR_RETURN(OnnxConstant trueValue, OnnxConstant::fromDouble(nvinfer1::DataType::kBOOL, {1.0}, {}));
    OnnxValue condCur = cond.defined() ? cond : OnnxValue(trueValue); // cond_in of the first iteration
    nvinfer1::ITensor* running = nullptr; // nullptr: known to be running
    std::vector<std::vector<nvinfer1::ITensor*>> scans(static_cast<size_t>(nbScan));
    auto const runningFlag = [&](int64_t i) -> StatusOr<nvinfer1::ITensor*> {
        std::string const s = "iter" + std::to_string(i);
        nvinfer1::ITensor* active = running;
        if (!isConstantTrue(condCur))
        {
            KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * c, valueTensor(*impl, condCur, prefix + s + "_cond"));
            KILN_ASSIGN_OR_RETURN(c, scalarFlag(ctx, node, c, s + "_cond"));
            KILN_ASSIGN_OR_RETURN(active, andFlags(ctx, node, active, c, s + "_and_cond"));
        }
        if (tripTensor != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * index, ctx.constantTensor(OnnxConstant::fromInt64({i}, {}),
                prefix + s + "_index"));
            KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * below,
                addElementWise(ctx, node, index, tripTensor, nvinfer1::ElementWiseOperation::kLESS, s + "_below_m"));
            KILN_ASSIGN_OR_RETURN(active, andFlags(ctx, node, active, below, s + "_and_m"));
        }
        return active;
    };
    for (int64_t i = 0; i < iterations; ++i)
    {
        std::string const s = "iter" + std::to_string(i);
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * active, runningFlag(i));
        std::vector<OnnxValue> bodyInputs{OnnxValue(OnnxConstant::fromInt64({i}, {})), condCur};
        if (active != nullptr)
        {
            bodyInputs[1] = OnnxValue(active); // the body runs only while the flag holds
        }
        bodyInputs.insert(bodyInputs.end(), carried.begin(), carried.end());
        KILN_ASSIGN_OR_RETURN(std::vector<OnnxValue> bodyOut,
            importSubgraph(
                *impl, *body, bodyInputs, where + ": body iteration " + std::to_string(i), prefix + s + "/"));
        for (int32_t k = 0; k < nbCarried; ++k)
        {
            OnnxValue next = bodyOut[static_cast<size_t>(1 + k)];
            if (active != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * n, valueTensor(*impl, next, prefix + s + "_next"));
                KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * o, valueTensor(*impl, carried[static_cast<size_t>(k)],
                    prefix + s + "_prev"));
                if (n->getType() != o->getType())
                {
                    return invalidArgument(where + ": loop-carried value " + std::to_string(k)
                        + " changes its element type in the body");
                }
                KILN_ASSIGN_OR_RETURN(next, selectValue(ctx, node, active, n, o, s + "_carry" + std::to_string(k)));
            }
            carried[static_cast<size_t>(k)] = next;
        }
        for (int32_t k = 0; k < nbScan; ++k)
        {
            OnnxValue const& scanValue = bodyOut[static_cast<size_t>(1 + nbCarried + k)];
            KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * t, valueTensor(*impl, scanValue,
                prefix + s + "_scan" + std::to_string(k)));
            scans[static_cast<size_t>(k)].push_back(t);
        }
        condCur = bodyOut[0];
        running = active;
    }
    // Run-time check (an IAssertionLayer) that the unrolled copies match the real iteration count.
    nvinfer1::ITensor* stopped = nullptr;
    if (mayStopEarly && usesScan)
    {
        // The unrolled scan outputs are exact only if the loop ran exactly `iterations` times.
        // It ran them all (`running` holds after the last copy) and would not start another one.
        nvinfer1::ITensor* wouldContinue = nullptr;
        bool const tripEnds = constantTrip && iterations >= tripCountValue;
        if (!tripEnds)
        {
            KILN_ASSIGN_OR_RETURN(wouldContinue, runningFlag(iterations));
            if (wouldContinue == nullptr)
            {
                return unsupported(where + ": the loop never stops within the declared scan output length");
            }
        }
        if (wouldContinue != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(stopped, addUnary(ctx, node, wouldContinue, nvinfer1::UnaryOperation::kNOT, "stops"));
        }
        KILN_ASSIGN_OR_RETURN(stopped, andFlags(ctx, node, stopped, running, "ran_exactly"));
    }
    if (stopped != nullptr)
    {
        std::string const message = where + ": the loop did not run exactly " + std::to_string(iterations)
            + " iterations, the length of its scan outputs that Kiln unrolled (from the trip count M or the declared "
            "scan output shape); its outputs would be wrong";
        nvinfer1::IAssertionLayer* assertion = ctx.network().addAssertion(*stopped, message.c_str());
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, assertion, "addAssertion", "iteration_check"));
    }
    for (int32_t k = 0; k < nbCarried && k < node.output_size(); ++k)
    {
        outputs.push_back(carried[static_cast<size_t>(k)]);
    }
    for (int32_t k = 0; nbCarried + k < node.output_size(); ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * stacked,
            stackTensors(ctx, node, scans[static_cast<size_t>(k)], 0, "scan_out" + std::to_string(k)));
        outputs.emplace_back(stacked);
    }
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> controlFlowImporters()
{
    return {{"If", importIf}, {"Loop", importLoop}, {"Scan", importScan}};
}

} // namespace kiln
