// Importer of Scan (opset 8 with a batch axis and sequence_lens, opset 9+ with axes and directions): an ILoop whose
// trip count is the sequence length (static, or the scan axis' run-time extent), with the state variables as
// recurrences, the scan inputs as iterators (scan_input_axes / directions) and the scan outputs as kCONCATENATE /
// kREVERSE loop outputs along scan_output_axes. Opset 8 runs one loop per batch element (a static batch) and stacks
// the results. Registered by controlFlowImporters().
#include "onnx/importerHelpers.h"
#include "onnx/importers/subgraphImport.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{

//! One Scan expansion over per-step inputs: `states` initial values, `scanInputs` read along `inAxes` (reversed
//! where `inReverse`), scan outputs stacked along `outAxes` (reversed where `outReverse`). Appends the final states
//! and then the scan outputs to `results`.
struct ScanSpec
{
    std::vector<OnnxValue> states;
    std::vector<nvinfer1::ITensor*> scanInputs;
    std::vector<int32_t> inAxes;
    std::vector<bool> inReverse;
    std::vector<int64_t> outAxes; //!< not yet normalised (ONNX allows negative axes of the output rank)
    std::vector<bool> outReverse;
    int64_t length{0};
    std::string prefix;
};

Status expandScan(ImporterContextImpl& ctx, ::onnx::NodeProto const& node, ::onnx::GraphProto const& body,
    ScanSpec const& spec, std::vector<OnnxValue>& results)
{
    std::string const where = describeNode(node);
    size_t const nbStates = spec.states.size();
    if (static_cast<size_t>(body.output_size()) < nbStates)
    {
        return invalidArgument(where + ": the body has fewer outputs than state variables");
    }
    size_t const nbScanOut = static_cast<size_t>(body.output_size()) - nbStates;
    nvinfer1::ILoop* loop = ctx.network().addLoop();
    if (loop == nullptr)
    {
        return internalError(where + ": INetworkDefinition::addLoop failed");
    }
    loop->setName((spec.prefix + "scan").c_str());
    // The sequence length: a constant, or the scan axis' extent of the first scan input (a shape value).
    nvinfer1::ITensor* length = nullptr;
    if (spec.length >= 0)
    {
        KILN_ASSIGN_OR_RETURN(length, ctx.constantTensor(OnnxConstant::fromInt64({spec.length}, {}), spec.prefix + "length"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * shape, shapeOf(ctx, node, spec.scanInputs[0]));
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * extent, shapeSlice(ctx, node, shape, spec.inAxes[0], spec.inAxes[0] + 1));
        nvinfer1::Dims scalar{};
        scalar.nbDims = 0;
        KILN_ASSIGN_OR_RETURN(length, reshape(ctx, node, extent, scalar, "length"));
    }
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, loop->addTripLimit(*length, nvinfer1::TripLimit::kCOUNT),
        "ILoop::addTripLimit", spec.prefix + "trip_limit"));
    std::vector<nvinfer1::IRecurrenceLayer*> states;
    std::vector<OnnxValue> inputs;
    for (size_t k = 0; k < nbStates; ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * init, valueTensor(ctx, spec.states[k], spec.prefix + "state_init" + std::to_string(k)));
        nvinfer1::IRecurrenceLayer* rec = loop->addRecurrence(*init);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, rec, "ILoop::addRecurrence", spec.prefix + "state" + std::to_string(k)));
        states.push_back(rec);
        inputs.emplace_back(rec->getOutput(0));
    }
    for (size_t j = 0; j < spec.scanInputs.size(); ++j)
    {
        nvinfer1::IIteratorLayer* it = loop->addIterator(*spec.scanInputs[j], spec.inAxes[j], spec.inReverse[j]);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, it, "ILoop::addIterator", spec.prefix + "in" + std::to_string(j)));
        inputs.emplace_back(it->getOutput(0));
    }
    KILN_ASSIGN_OR_RETURN(std::vector<OnnxValue> out, importSubgraph(ctx, body, inputs, where + ": body", spec.prefix + "body/"));
    for (size_t k = 0; k < nbStates; ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * next, valueTensor(ctx, out[k], spec.prefix + "state_next" + std::to_string(k)));
        states[k]->setInput(1, *next);
        nvinfer1::ILoopOutputLayer* last = loop->addLoopOutput(*states[k]->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, last, "ILoop::addLoopOutput", spec.prefix + "state_out" + std::to_string(k)));
        results.emplace_back(last->getOutput(0));
    }
    for (size_t k = 0; k < nbScanOut; ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * v, valueTensor(ctx, out[nbStates + k], spec.prefix + "scan_value" + std::to_string(k)));
        int64_t const axis = k < spec.outAxes.size() ? spec.outAxes[k] : 0;
        KILN_ASSIGN_OR_RETURN(int32_t a, normalizeAxis(node, axis, v->getDimensions().nbDims + 1));
        bool const reverse = k < spec.outReverse.size() && spec.outReverse[k];
        nvinfer1::ILoopOutputLayer* cat = loop->addLoopOutput(
            *v, reverse ? nvinfer1::LoopOutput::kREVERSE : nvinfer1::LoopOutput::kCONCATENATE, a);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, cat, "ILoop::addLoopOutput", spec.prefix + "scan_out" + std::to_string(k)));
        cat->setInput(1, *length);
        results.emplace_back(cat->getOutput(0));
    }
    return Status::ok();
}

//! Attribute `name` as flags of length `count` (default all 0); an error when its length differs.
StatusOr<std::vector<int64_t>> perInputAttr(::onnx::NodeProto const& node, char const* name, size_t count)
{
    std::vector<int64_t> values = attrInts(node, name, std::vector<int64_t>(count, 0));
    if (values.size() != count)
    {
        return invalidArgument(describeNode(node) + ": attribute '" + name + "' has " + std::to_string(values.size())
            + " entries but there are " + std::to_string(count));
    }
    return values;
}

} // namespace

Status importScan(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ImporterContextImpl * impl, implOf(ctx, node));
    KILN_ASSIGN_OR_RETURN(::onnx::GraphProto const* body, graphAttr(node, "body"));
    std::string const where = describeNode(node);
    KILN_ASSIGN_OR_RETURN(int64_t nbScanIn, requireAttrInt(node, "num_scan_inputs"));
    bool const batched = ctx.opsetVersion() < 9; // opset 8: input 0 is sequence_lens, every input has a batch axis
    int32_t const first = batched ? 1 : 0;
    int64_t const nbStates = node.input_size() - first - nbScanIn;
    if (nbScanIn < 1 || nbStates < 0)
    {
        return invalidArgument(where + ": num_scan_inputs " + std::to_string(nbScanIn) + " does not fit the "
            + std::to_string(node.input_size()) + " inputs");
    }
    int64_t const nbScanOut = body->output_size() - nbStates;
    if (body->input_size() != nbStates + nbScanIn || nbScanOut < 0)
    {
        return invalidArgument(where + ": the body's inputs and outputs do not match the node's state variables and "
            "scan inputs");
    }
    std::string const prefix = namePrefix(node);
    std::vector<OnnxValue> states;
    std::vector<nvinfer1::ITensor*> scanInputs;
    for (int64_t i = 0; i < nbStates + nbScanIn; ++i)
    {
        int32_t const index = first + static_cast<int32_t>(i);
        if (i < nbStates && !batched)
        {
            KILN_ASSIGN_OR_RETURN(OnnxValue v, inputValue(*impl, node, index));
            states.push_back(v);
            continue;
        }
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * t, ctx.tensor(node, index));
        if (i < nbStates)
        {
            states.emplace_back(t);
        }
        else
        {
            scanInputs.push_back(t);
        }
    }
    char const* const dirName = batched ? "directions" : "scan_input_directions";
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> inDirs, perInputAttr(node, dirName, scanInputs.size()));
    std::vector<int64_t> inAxes(scanInputs.size(), 0);
    if (!batched)
    {
        KILN_ASSIGN_OR_RETURN(inAxes, perInputAttr(node, "scan_input_axes", scanInputs.size()));
    }
    ScanSpec spec;
    spec.prefix = prefix;
    spec.length = -1;
    for (size_t j = 0; j < scanInputs.size(); ++j)
    {
        nvinfer1::Dims const d = scanInputs[j]->getDimensions();
        int32_t axis = 0;
        if (batched)
        {
            if (d.nbDims < 2)
            {
                return invalidArgument(
                    where + ": scan input " + std::to_string(j) + " needs a batch and a sequence axis");
            }
            axis = 1;
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(axis, normalizeAxis(node, inAxes[j], d.nbDims));
        }
        if (d.d[axis] < 0 && batched)
        {
            return unsupported(where + ": scan input " + std::to_string(j) + " has a run-time sequence length; Kiln "
                "expands opset-8 Scan per batch element and needs it static");
        }
        if (spec.length >= 0 && d.d[axis] >= 0 && spec.length != d.d[axis])
        {
            return invalidArgument(where + ": the scan inputs have different sequence lengths");
        }
        spec.length = j == 0 || spec.length < 0 ? d.d[axis] : spec.length;
        spec.inAxes.push_back(batched ? 0 : axis);
        spec.inReverse.push_back(inDirs[j] != 0);
    }
    if (!batched)
    {
        spec.outAxes = attrInts(node, "scan_output_axes", std::vector<int64_t>(static_cast<size_t>(nbScanOut), 0));
        std::vector<int64_t> const outDirs
            = attrInts(node, "scan_output_directions", std::vector<int64_t>(static_cast<size_t>(nbScanOut), 0));
        if (spec.outAxes.size() != static_cast<size_t>(nbScanOut) || outDirs.size() != static_cast<size_t>(nbScanOut))
        {
            return invalidArgument(
                where + ": scan_output_axes and scan_output_directions need one entry per scan output");
        }
        for (int64_t v : outDirs)
        {
            spec.outReverse.push_back(v != 0);
        }
        spec.states = states;
        spec.scanInputs = scanInputs;
        return expandScan(*impl, node, *body, spec, outputs);
    }
    // Opset 8: expand each batch element separately and stack the results along the batch axis.
    if (ctx.hasInput(node, 0))
    {
        OnnxConstant const* lens = ctx.constant(node, 0);
        auto values = lens != nullptr ? lens->toInt64() : StatusOr<std::vector<int64_t>>(unsupported(""));
        bool const full = values.isOk()
            && std::all_of(values->begin(), values->end(), [&](int64_t v) { return v == spec.length; });
        if (!full)
        {
            return unsupported(where + ": sequence_lens other than the full length (known at parse time) are not "
                "supported");
        }
    }
    spec.outAxes.assign(static_cast<size_t>(nbScanOut), 0);
    spec.outReverse.assign(static_cast<size_t>(nbScanOut), false);
    int64_t const batch = scanInputs[0]->getDimensions().d[0];
    if (batch < 0)
    {
        return unsupported(where + ": the batch axis has a run-time extent; Kiln unrolls Scan and needs it static");
    }
    if (batch > kMaxUnrolledIterations)
    {
        return unsupported(where + ": " + std::to_string(batch) + " batch elements (one loop each) exceed Kiln's limit "
            "of " + std::to_string(kMaxUnrolledIterations));
    }
    std::vector<std::vector<nvinfer1::ITensor*>> perBatch(static_cast<size_t>(nbStates + nbScanOut));
    for (int64_t b = 0; b < batch; ++b)
    {
        ScanSpec one = spec;
        one.prefix = prefix + "batch" + std::to_string(b) + "/";
        one.states.clear();
        one.scanInputs.clear();
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * idx,
            ctx.constantTensor(OnnxConstant::fromInt32({static_cast<int32_t>(b)}, {}), one.prefix + "index"));
        for (size_t i = 0; i < states.size() + scanInputs.size(); ++i)
        {
            nvinfer1::ITensor* t = i < states.size() ? states[i].tensor : scanInputs[i - states.size()];
            auto* gather = ctx.network().addGather(*t, *idx, 0);
            KILN_RETURN_IF_ERROR(checkLayer(ctx, node, gather, "addGather", one.prefix + "in" + std::to_string(i)));
            if (i < states.size())
            {
                one.states.emplace_back(gather->getOutput(0));
            }
            else
            {
                one.scanInputs.push_back(gather->getOutput(0));
            }
        }
        std::vector<OnnxValue> results;
        KILN_RETURN_IF_ERROR(expandScan(*impl, node, *body, one, results));
        for (size_t k = 0; k < results.size(); ++k)
        {
            KILN_ASSIGN_OR_RETURN(
                nvinfer1::ITensor * v, valueTensor(*impl, results[k], one.prefix + "out" + std::to_string(k)));
            perBatch[k].push_back(v);
        }
    }
    for (size_t k = 0; k < perBatch.size(); ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * stacked,
            stackTensors(ctx, node, perBatch[k], 0, prefix + "batch_out" + std::to_string(k)));
        outputs.emplace_back(stacked);
    }
    return Status::ok();
}

} // namespace kiln
