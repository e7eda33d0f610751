// Importers of the recurrent op family: RNN, GRU and LSTM (opsets 7 and 14), unrolled over the sequence, which must
// have a static length (Kiln has no ILoop yet). Input projections of all time steps are one matrix multiply per
// direction; each step adds the recurrent product H * R^T (IMatrixMultiplyLayer) and applies the gate equations of
// the ONNX spec with the node's activations (alpha/beta), clip, linear_before_reset (GRU) and peepholes (LSTM).
// sequence_lens (constant or run-time) masks the steps past each batch entry's length: the state is carried
// unchanged and Y is 0 there, which also gives the reverse direction its per-entry start.
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/importers/recurrentUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using recurrent::Cell;

StatusOr<ITensor*> optionalInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index)
{
    if (!ctx.hasInput(node, index))
    {
        return static_cast<ITensor*>(nullptr);
    }
    return ctx.tensor(node, index);
}

//! Direction `d` of a [D, B, H] state input (layout 0) or [B, D, H] (layout 1), as [1, B, H].
StatusOr<ITensor*> initialState(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* state, int32_t d,
    int64_t layout, std::string const& suffix)
{
    if (state == nullptr)
    {
        return static_cast<ITensor*>(nullptr);
    }
    if (rankOf(state) != 3)
    {
        return invalidArgument(describeNode(node) + ": initial states must have rank 3, got "
            + std::to_string(rankOf(state)));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * s, composite::gatherConst(ctx, node, state, layout == 1 ? 1 : 0, {d}, suffix));
    if (layout == 1)
    {
        KILN_ASSIGN_OR_RETURN(s, transpose(ctx, node, s, {1, 0, 2}, suffix + "_t"));
    }
    return castTo(ctx, node, s, DataType::kFLOAT, suffix + "_f");
}

Status importRecurrent(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, Cell cell)
{
    KILN_RETURN_IF_ERROR(composite::checkOutputCount(node, cell == Cell::kLSTM ? 3 : 2));
    recurrent::Config cfg;
    cfg.cell = cell;
    KILN_ASSIGN_OR_RETURN(cfg.hidden, requireAttrInt(node, "hidden_size"));
    if (cfg.hidden <= 0)
    {
        return invalidArgument(describeNode(node) + ": attribute 'hidden_size' must be positive");
    }
    std::string const direction = attrString(node, "direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    {
        return invalidArgument(describeNode(node) + ": attribute 'direction' must be forward, reverse or "
            + "bidirectional, got '" + direction + "'");
    }
    int32_t const numDir = direction == "bidirectional" ? 2 : 1;
    int64_t const layout = attrInt(node, "layout", 0);
    if (layout != 0 && layout != 1)
    {
        return invalidArgument(describeNode(node) + ": attribute 'layout' must be 0 or 1");
    }
    cfg.hasClip = hasAttribute(node, "clip");
    cfg.clip = attrFloat(node, "clip", 0.F);
    cfg.linearBeforeReset = attrInt(node, "linear_before_reset", 0) != 0;
    if (cell == Cell::kLSTM && attrInt(node, "input_forget", 0) != 0)
    {
        return unsupported(describeNode(node) + ": attribute 'input_forget' = 1 (coupled input and forget gates) "
            + "is not supported");
    }
    KILN_ASSIGN_OR_RETURN(
        std::vector<recurrent::Activation> const acts, recurrent::parseActivations(node, cell, numDir));
    int32_t const nbActs = cell == Cell::kRNN ? 1 : (cell == Cell::kGRU ? 2 : 3);

    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * w, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * r, ctx.tensor(node, 2));
    if (rankOf(x) != 3 || rankOf(w) != 3 || rankOf(r) != 3)
    {
        return invalidArgument(describeNode(node) + ": inputs X, W and R must have rank 3");
    }
    KILN_ASSIGN_OR_RETURN(x, castTo(ctx, node, x, DataType::kFLOAT, "_x"));
    KILN_ASSIGN_OR_RETURN(w, castTo(ctx, node, w, DataType::kFLOAT, "_w"));
    KILN_ASSIGN_OR_RETURN(r, castTo(ctx, node, r, DataType::kFLOAT, "_r"));
    if (layout == 1)
    {
        KILN_ASSIGN_OR_RETURN(x, transpose(ctx, node, x, {1, 0, 2}, "_x_seq_major"));
    }
    int64_t const seqLen = x->getDimensions().d[0];
    if (seqLen < 0)
    {
        return unsupported(describeNode(node) + ": the sequence length of input X must be known at build time "
            + "(Kiln unrolls recurrent ops and has no ILoop yet); got a dynamic dimension");
    }
    if (seqLen == 0)
    {
        return unsupported(describeNode(node) + ": an empty sequence (length 0) is not supported");
    }
    int64_t const gates = static_cast<int64_t>(recurrent::gateCount(cell));
    nvinfer1::Dims const wd = w->getDimensions();
    nvinfer1::Dims const rd = r->getDimensions();
    if ((wd.d[0] >= 0 && wd.d[0] != numDir) || (wd.d[1] >= 0 && wd.d[1] != gates * cfg.hidden)
        || (rd.d[1] >= 0 && rd.d[1] != gates * cfg.hidden) || (rd.d[2] >= 0 && rd.d[2] != cfg.hidden))
    {
        return invalidArgument(describeNode(node) + ": W must be [" + std::to_string(numDir) + ", "
            + std::to_string(gates * cfg.hidden) + ", input_size] and R [" + std::to_string(numDir) + ", "
            + std::to_string(gates * cfg.hidden) + ", " + std::to_string(cfg.hidden) + "] for hidden_size "
            + std::to_string(cfg.hidden) + " and direction '" + direction + "'");
    }

    KILN_ASSIGN_OR_RETURN(ITensor * bias, optionalInput(ctx, node, 3));
    KILN_ASSIGN_OR_RETURN(ITensor * seqLens, optionalInput(ctx, node, 4));
    KILN_ASSIGN_OR_RETURN(ITensor * initH, optionalInput(ctx, node, 5));
    ITensor* initC = nullptr;
    ITensor* peep = nullptr;
    if (cell == Cell::kLSTM)
    {
        KILN_ASSIGN_OR_RETURN(initC, optionalInput(ctx, node, 6));
        KILN_ASSIGN_OR_RETURN(peep, optionalInput(ctx, node, 7));
    }
    if (seqLens != nullptr)
    {
        // A constant sequence_lens that covers every step needs no mask.
        OnnxConstant const* lens = ctx.constant(node, 4);
        bool allFull = false;
        if (lens != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const values, lens->toInt64());
            allFull = std::all_of(values.begin(), values.end(), [&](int64_t v) { return v == seqLen; });
        }
        if (allFull)
        {
            seqLens = nullptr;
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(seqLens, castTo(ctx, node, seqLens, DataType::kINT32, "_seq_lens"));
            KILN_ASSIGN_OR_RETURN(seqLens, reshape(ctx, node, seqLens, nvinfer1::Dims{3, {1, -1, 1}}, "_seq_mask"));
        }
    }
    cfg.seqLens = seqLens;
    cfg.seqLen = seqLen;

    std::vector<ITensor*> ys;
    std::vector<ITensor*> hs;
    std::vector<ITensor*> cs;
    for (int32_t d = 0; d < numDir; ++d)
    {
        bool const reverse = direction == "reverse" || d == 1;
        std::string const dir = "_d" + std::to_string(d);
        recurrent::DirectionInputs in;
        in.reverse = reverse;
        in.acts.assign(acts.begin() + d * nbActs, acts.begin() + (d + 1) * nbActs);
        KILN_ASSIGN_OR_RETURN(in.w, composite::gatherConst(ctx, node, w, 0, {d}, dir + "_w"));
        KILN_ASSIGN_OR_RETURN(in.r, composite::gatherConst(ctx, node, r, 0, {d}, dir + "_r"));
        if (bias != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * b, castTo(ctx, node, bias, DataType::kFLOAT, dir + "_bias_f"));
            KILN_ASSIGN_OR_RETURN(in.bias, composite::gatherConst(ctx, node, b, 0, {d}, dir + "_bias"));
        }
        if (peep != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * p, castTo(ctx, node, peep, DataType::kFLOAT, dir + "_peep_f"));
            KILN_ASSIGN_OR_RETURN(in.peep, composite::gatherConst(ctx, node, p, 0, {d}, dir + "_peep"));
        }
        KILN_ASSIGN_OR_RETURN(in.h0, initialState(ctx, node, initH, d, layout, dir + "_h0"));
        KILN_ASSIGN_OR_RETURN(in.c0, initialState(ctx, node, initC, d, layout, dir + "_c0"));
        KILN_ASSIGN_OR_RETURN(recurrent::DirectionOutputs out, recurrent::runDirection(ctx, node, cfg, x, in, dir));
        ys.push_back(out.y);
        hs.push_back(out.h);
        cs.push_back(out.c);
    }

    auto concat = [&](std::vector<ITensor*> const& parts, int32_t axis, std::string const& suffix) -> StatusOr<ITensor*>
    {
        if (parts.size() == 1)
        {
            return parts[0];
        }
        nvinfer1::IConcatenationLayer* layer
            = ctx.network().addConcatenation(parts.data(), static_cast<int32_t>(parts.size()));
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addConcatenation", suffix));
        layer->setAxis(axis);
        return layer->getOutput(0);
    };
    outputs.assign(static_cast<size_t>(node.output_size()), OnnxValue());
    auto wanted = [&](int32_t i) { return node.output_size() > i && !node.output(i).empty(); };
    if (wanted(0))
    {
        KILN_ASSIGN_OR_RETURN(ITensor * y, concat(ys, 1, "_y")); // [S, D, B, H]
        if (layout == 1)
        {
            KILN_ASSIGN_OR_RETURN(y, transpose(ctx, node, y, {2, 0, 1, 3}, "_y_batch_major"));
        }
        outputs[0] = OnnxValue(y);
    }
    for (int32_t i = 1; i <= 2; ++i)
    {
        if (!wanted(i))
        {
            continue;
        }
        KILN_ASSIGN_OR_RETURN(ITensor * s, concat(i == 1 ? hs : cs, 0, i == 1 ? "_y_h" : "_y_c")); // [D, B, H]
        if (layout == 1)
        {
            KILN_ASSIGN_OR_RETURN(s, transpose(ctx, node, s, {1, 0, 2}, i == 1 ? "_y_h_batch_major" : "_y_c_bm"));
        }
        outputs[static_cast<size_t>(i)] = OnnxValue(s);
    }
    return Status::ok();
}

Status importRNN(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRecurrent(ctx, node, outputs, Cell::kRNN);
}

Status importGRU(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRecurrent(ctx, node, outputs, Cell::kGRU);
}

Status importLSTM(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importRecurrent(ctx, node, outputs, Cell::kLSTM);
}

} // namespace

std::vector<OpImporterEntry> recurrentImporters()
{
    return {
        {"RNN", importRNN},
        {"GRU", importGRU},
        {"LSTM", importLSTM},
    };
}

} // namespace kiln
