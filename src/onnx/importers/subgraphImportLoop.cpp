// ONNX Loop through ILoop, for loops the unrolling expansion (controlFlowImporters.cpp) cannot express: a trip count
// M known only at run time, or a loop ended by its condition only. The body is imported once, between the loop's
// boundary layers:
// - a recurrence counts the iterations (the body's iteration_num input);
// - the condition (when it is computed at run time) is a recurrence whose next value is the body's cond output;
// - the trip limit is kWHILE over (iteration < M) and the condition, so M may be a data value;
// - each loop-carried value is a recurrence (its shape must stay the same, as TensorRT requires);
// - carried outputs are kLAST_VALUE loop outputs; scan outputs are kCONCATENATE loop outputs of length M (then M
//   must be a shape tensor, and the condition constant true, so that the loop runs exactly M times).
#include "onnx/importerHelpers.h"
#include "onnx/importers/subgraphImport.h"
#include "onnx/onnxAttributes.h"

namespace kiln
{

Status importLoopWithILoop(ImporterContextImpl& impl, ::onnx::NodeProto const& node, ::onnx::GraphProto const& body,
    OnnxValue const& tripCount, OnnxValue const& cond, bool condAlwaysTrue, std::vector<OnnxValue> const& carried,
    std::vector<OnnxValue>& outputs)
{
    ImporterContext& ctx = impl;
    std::string const where = describeNode(node);
    std::string const prefix = namePrefix(node);
    auto const nbCarried = static_cast<int32_t>(carried.size());
    bool const usesScan = node.output_size() > nbCarried;
    if (usesScan && (!tripCount.defined() || !condAlwaysTrue))
    {
        return unsupported(where + ": scan outputs of a Loop that its run-time condition may stop early are not "
                                   "supported (their length would depend on data)");
    }
    nvinfer1::ILoop* loop = ctx.network().addLoop();
    if (loop == nullptr)
    {
        return internalError(where + ": INetworkDefinition::addLoop failed");
    }
    loop->setName((prefix + "loop").c_str());
    nvinfer1::Dims scalar{};
    scalar.nbDims = 0;
    // Iteration counter.
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * zero, ctx.constantTensor(OnnxConstant::fromInt64({0}, {}), prefix + "iter_init"));
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * one, ctx.constantTensor(OnnxConstant::fromInt64({1}, {}), prefix + "iter_step"));
    nvinfer1::IRecurrenceLayer* counter = loop->addRecurrence(*zero);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, counter, "ILoop::addRecurrence", "iteration"));
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * nextCount,
        addElementWise(ctx, node, counter->getOutput(0), one, nvinfer1::ElementWiseOperation::kSUM, "iteration_next"));
    counter->setInput(1, *nextCount);
    // Trip limit: (iteration < M) and cond.
    nvinfer1::ITensor* flag = nullptr;
    nvinfer1::ITensor* m = nullptr;
    if (tripCount.defined())
    {
        KILN_ASSIGN_OR_RETURN(m, valueTensor(impl, tripCount, prefix + "M"));
        KILN_ASSIGN_OR_RETURN(m, castTo(ctx, node, m, nvinfer1::DataType::kINT64, "M_int64"));
        KILN_ASSIGN_OR_RETURN(m, reshape(ctx, node, m, scalar, "M_scalar"));
        KILN_ASSIGN_OR_RETURN(flag, addElementWise(ctx, node, counter->getOutput(0), m,
            nvinfer1::ElementWiseOperation::kLESS, "below_M"));
    }
    nvinfer1::IRecurrenceLayer* condition = nullptr;
    OnnxValue condIn = cond;
    if (!condAlwaysTrue)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * c, valueTensor(impl, cond, prefix + "cond"));
        KILN_ASSIGN_OR_RETURN(c, scalarFlag(ctx, node, c, "cond_init"));
        condition = loop->addRecurrence(*c);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, condition, "ILoop::addRecurrence", "cond"));
        condIn = OnnxValue(condition->getOutput(0));
        if (flag == nullptr)
        {
            flag = condition->getOutput(0);
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(flag, addElementWise(ctx, node, flag, condition->getOutput(0),
                nvinfer1::ElementWiseOperation::kAND, "running"));
        }
    }
    else if (!cond.defined())
    {
        KILN_ASSIGN_OR_RETURN(OnnxConstant t, OnnxConstant::fromDouble(nvinfer1::DataType::kBOOL, {1.0}, {}));
        condIn = OnnxValue(std::move(t));
    }
    if (flag == nullptr)
    {
        return unsupported(where + ": a Loop without a trip count M and without a condition never ends");
    }
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, loop->addTripLimit(*flag, nvinfer1::TripLimit::kWHILE),
        "ILoop::addTripLimit", "trip_limit"));
    // Loop-carried values.
    std::vector<nvinfer1::IRecurrenceLayer*> states;
    std::vector<OnnxValue> bodyInputs{OnnxValue(counter->getOutput(0)), condIn};
    for (int32_t k = 0; k < nbCarried; ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * init,
            valueTensor(impl, carried[static_cast<size_t>(k)], prefix + "carried_init" + std::to_string(k)));
        nvinfer1::IRecurrenceLayer* rec = loop->addRecurrence(*init);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, rec, "ILoop::addRecurrence", "carried" + std::to_string(k)));
        states.push_back(rec);
        bodyInputs.emplace_back(rec->getOutput(0));
    }
    KILN_ASSIGN_OR_RETURN(std::vector<OnnxValue> bodyOut,
        importSubgraph(impl, body, bodyInputs, where + ": body", prefix + "body/"));
    if (condition != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * c, valueTensor(impl, bodyOut[0], prefix + "cond_out"));
        KILN_ASSIGN_OR_RETURN(c, scalarFlag(ctx, node, c, "cond_next"));
        condition->setInput(1, *c);
    }
    for (int32_t k = 0; k < nbCarried; ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * next,
            valueTensor(impl, bodyOut[static_cast<size_t>(1 + k)], prefix + "carried_next" + std::to_string(k)));
        if (next->getType() != states[static_cast<size_t>(k)]->getOutput(0)->getType())
        {
            return invalidArgument(where + ": loop-carried value " + std::to_string(k) + " changes its element type in the body");
        }
        states[static_cast<size_t>(k)]->setInput(1, *next);
        nvinfer1::ILoopOutputLayer* out
            = loop->addLoopOutput(*states[static_cast<size_t>(k)]->getOutput(0), nvinfer1::LoopOutput::kLAST_VALUE);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, out, "ILoop::addLoopOutput", "carried_out" + std::to_string(k)));
        outputs.emplace_back(out->getOutput(0));
    }
    for (int32_t k = 0; nbCarried + k < node.output_size(); ++k)
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * value, valueTensor(impl,
            bodyOut[static_cast<size_t>(1 + nbCarried + k)], prefix + "scan_value" + std::to_string(k)));
        nvinfer1::ILoopOutputLayer* out = loop->addLoopOutput(*value, nvinfer1::LoopOutput::kCONCATENATE, 0);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, out, "ILoop::addLoopOutput", "scan_out" + std::to_string(k)));
        out->setInput(1, *m);
        outputs.emplace_back(out->getOutput(0));
    }
    return Status::ok();
}

} // namespace kiln
