// The unrolled recurrence of the RNN/GRU/LSTM importers (see recurrentUtils.h). Equations follow the ONNX spec:
//   RNN:  H = f(Xt W^T + H R^T + Wb + Rb)
//   GRU:  z = f(Xt Wz^T + H Rz^T + Wbz + Rbz), r likewise,
//         n = g(Xt Wh^T + (r . H) Rh^T + Rbh + Wbh)        (linear_before_reset = 0)
//         n = g(Xt Wh^T + r . (H Rh^T + Rbh) + Wbh)        (linear_before_reset = 1)
//         H = (1 - z) . n + z . H
//   LSTM: i = f(Xt Wi^T + H Ri^T + Pi . C + Wbi + Rbi), f likewise with Pf, c~ = g(Xt Wc^T + H Rc^T + Wbc + Rbc),
//         C = f . C + i . c~,  o = f(Xt Wo^T + H Ro^T + Po . C + Wbo + Rbo),  H = o . h(C)
// A missing initial state is zero, so the terms that multiply it are left out.
#include "onnx/importers/recurrentUtils.h"

#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/onnxAttributes.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace kiln::recurrent
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

int32_t gateCount(Cell cell)
{
    return cell == Cell::kRNN ? 1 : (cell == Cell::kGRU ? 3 : 4);
}

namespace
{

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

//! Default alpha/beta and whether the function consumes them, by lower-case name; false for an unknown name.
bool activationInfo(std::string const& name, float& alpha, float& beta, bool& takesAlpha, bool& takesBeta)
{
    struct Info
    {
        char const* name;
        float alpha;
        float beta;
        bool takesAlpha;
        bool takesBeta;
    };
    static Info const kInfos[] = {
        {"relu", 0.F, 0.F, false, false},
        {"tanh", 0.F, 0.F, false, false},
        {"sigmoid", 0.F, 0.F, false, false},
        {"affine", 1.F, 0.F, true, true},
        {"leakyrelu", 0.01F, 0.F, true, false},
        {"thresholdedrelu", 1.F, 0.F, true, false},
        {"scaledtanh", 1.F, 1.F, true, true},
        {"hardsigmoid", 0.2F, 0.5F, true, true},
        {"elu", 1.F, 0.F, true, false},
        {"softsign", 0.F, 0.F, false, false},
        {"softplus", 0.F, 0.F, false, false},
    };
    for (Info const& info : kInfos)
    {
        if (name == info.name)
        {
            alpha = info.alpha;
            beta = info.beta;
            takesAlpha = info.takesAlpha;
            takesBeta = info.takesBeta;
            return true;
        }
    }
    return false;
}

} // namespace

StatusOr<std::vector<Activation>> parseActivations(::onnx::NodeProto const& node, Cell cell, int32_t numDirections)
{
    std::vector<std::string> names = attrStrings(node, "activations");
    size_t const perDir = cell == Cell::kRNN ? 1 : (cell == Cell::kGRU ? 2 : 3);
    if (names.empty())
    {
        std::vector<std::string> const defaults = cell == Cell::kRNN
            ? std::vector<std::string>{"Tanh"}
            : (cell == Cell::kGRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                  : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"});
        for (int32_t d = 0; d < numDirections; ++d)
        {
            names.insert(names.end(), defaults.begin(), defaults.end());
        }
    }
    else if (names.size() == perDir && numDirections == 2)
    {
        names.insert(names.end(), names.begin(), names.end());
    }
    if (names.size() != perDir * static_cast<size_t>(numDirections))
    {
        return invalidArgument(describeNode(node) + ": attribute 'activations' must list "
            + std::to_string(perDir * static_cast<size_t>(numDirections)) + " functions, got "
            + std::to_string(names.size()));
    }
    std::vector<float> const alphas = attrFloats(node, "activation_alpha");
    std::vector<float> const betas = attrFloats(node, "activation_beta");
    size_t nextAlpha = 0;
    size_t nextBeta = 0;
    std::vector<Activation> acts;
    for (std::string const& name : names)
    {
        Activation act;
        act.name = lower(name);
        bool takesAlpha = false;
        bool takesBeta = false;
        if (!activationInfo(act.name, act.alpha, act.beta, takesAlpha, takesBeta))
        {
            return unsupported(describeNode(node) + ": activation function '" + name + "' is not supported");
        }
        if (takesAlpha && nextAlpha < alphas.size())
        {
            act.alpha = alphas[nextAlpha++];
        }
        if (takesBeta && nextBeta < betas.size())
        {
            act.beta = betas[nextBeta++];
        }
        acts.push_back(act);
    }
    return acts;
}

namespace
{

class Unroller
{
public:
    Unroller(ImporterContext& ctx, ::onnx::NodeProto const& node, Config const& cfg, std::string suffix)
        : mCtx(ctx)
        , mNode(node)
        , mCfg(cfg)
        , mSuffix(std::move(suffix))
    {
    }

    StatusOr<ITensor*> apply(ITensor* t, Activation const& act, std::string const& name)
    {
        if (mCfg.hasClip)
        {
            KILN_ASSIGN_OR_RETURN(t, composite::activation(mCtx, mNode, t, ActivationType::kCLIP, -mCfg.clip,
                mCfg.clip, name + "_clip"));
        }
        std::string const& n = act.name;
        if (n == "affine")
        {
            KILN_ASSIGN_OR_RETURN(t, composite::binaryScalar(mCtx, mNode, t, act.alpha, ElementWiseOperation::kPROD,
                name + "_scale"));
            return composite::binaryScalar(mCtx, mNode, t, act.beta, ElementWiseOperation::kSUM, name);
        }
        ActivationType type = ActivationType::kTANH;
        float alpha = act.alpha;
        float beta = act.beta;
        if (n == "relu")
        {
            type = ActivationType::kRELU;
        }
        else if (n == "sigmoid")
        {
            type = ActivationType::kSIGMOID;
        }
        else if (n == "leakyrelu")
        {
            type = ActivationType::kLEAKY_RELU;
        }
        else if (n == "thresholdedrelu")
        {
            type = ActivationType::kTHRESHOLDED_RELU;
        }
        else if (n == "scaledtanh")
        {
            type = ActivationType::kSCALED_TANH;
        }
        else if (n == "hardsigmoid")
        {
            type = ActivationType::kHARD_SIGMOID;
        }
        else if (n == "elu")
        {
            type = ActivationType::kELU;
        }
        else if (n == "softsign")
        {
            type = ActivationType::kSOFTSIGN;
        }
        else if (n == "softplus")
        {
            type = ActivationType::kSOFTPLUS;
            alpha = 1.F;
            beta = 1.F;
        }
        return composite::activation(mCtx, mNode, t, type, alpha, beta, name);
    }

    StatusOr<ITensor*> op(ITensor* a, ITensor* b, ElementWiseOperation o, std::string const& name)
    {
        return composite::binary(mCtx, mNode, a, b, o, name);
    }

    //! a + b, or whichever is not null.
    StatusOr<ITensor*> add(ITensor* a, ITensor* b, std::string const& name)
    {
        if (a == nullptr)
        {
            return b;
        }
        if (b == nullptr)
        {
            return a;
        }
        return op(a, b, ElementWiseOperation::kSUM, name);
    }

    StatusOr<ITensor*> matmulT(ITensor* a, ITensor* b, std::string const& name)
    {
        nvinfer1::IMatrixMultiplyLayer* layer = mCtx.network().addMatrixMultiply(
            *a, nvinfer1::MatrixOperation::kNONE, *b, nvinfer1::MatrixOperation::kTRANSPOSE);
        KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addMatrixMultiply", name));
        return layer->getOutput(0);
    }

    //! [1, B, G*H] → [1, B, G, H] (null stays null).
    StatusOr<ITensor*> splitGates(ITensor* t, std::string const& name)
    {
        if (t == nullptr)
        {
            return t;
        }
        int64_t const g = gateCount(mCfg.cell);
        return reshape(mCtx, mNode, t, nvinfer1::Dims{4, {0, 0, g, mCfg.hidden}}, name);
    }

    //! Gate k of a [1, B, G, H] tensor as [1, B, H] (null stays null).
    StatusOr<ITensor*> gate(ITensor* t4, int32_t k, std::string const& name)
    {
        if (t4 == nullptr)
        {
            return t4;
        }
        KILN_ASSIGN_OR_RETURN(ITensor * index, scalarIndex(k));
        nvinfer1::IGatherLayer* layer = mCtx.network().addGather(*t4, *index, 2);
        KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addGather", name));
        return layer->getOutput(0);
    }

    //! Elements [k*H, (k+1)*H) of a [1, n*H] vector, as [1, 1, H].
    StatusOr<ITensor*> vectorPart(ITensor* v, int64_t k, std::string const& name)
    {
        std::vector<int64_t> idx(static_cast<size_t>(mCfg.hidden));
        std::iota(idx.begin(), idx.end(), k * mCfg.hidden);
        KILN_ASSIGN_OR_RETURN(ITensor * part, composite::gatherConst(mCtx, mNode, v, 1, idx, name + "_part"));
        return reshape(mCtx, mNode, part, nvinfer1::Dims{3, {1, 1, mCfg.hidden}}, name);
    }

    StatusOr<ITensor*> scalarIndex(int32_t k)
    {
        if (mIndex.size() <= static_cast<size_t>(k))
        {
            mIndex.resize(static_cast<size_t>(k) + 1, nullptr);
        }
        if (mIndex[static_cast<size_t>(k)] == nullptr)
        {
            std::string const hint = (mNode.output_size() > 0 ? mNode.output(0) : mNode.op_type()) + mSuffix
                + "_gate_index_" + std::to_string(k);
            KILN_ASSIGN_OR_RETURN(mIndex[static_cast<size_t>(k)], mCtx.constantTensor(OnnxConstant::fromInt64({k}, {}),
                hint));
        }
        return mIndex[static_cast<size_t>(k)];
    }

    ImporterContext& mCtx;
    ::onnx::NodeProto const& mNode;
    Config const& mCfg;
    std::string mSuffix;
    std::vector<ITensor*> mIndex;
};

} // namespace

StatusOr<DirectionOutputs> runDirection(ImporterContext& ctx, ::onnx::NodeProto const& node, Config const& cfg,
    ITensor* x, DirectionInputs const& in, std::string const& suffix)
{
    Unroller u(ctx, node, cfg, suffix);
    int64_t const g = gateCount(cfg.cell);
    int64_t const hidden = cfg.hidden;
    // Input projection of every step at once: [S, B, I] x [1, G*H, I]^T = [S, B, G*H].
    KILN_ASSIGN_OR_RETURN(ITensor * xw, u.matmulT(x, in.w, suffix + "_xw"));
    ITensor* rb = nullptr; // recurrent bias kept apart (GRU), [1, 1, G*H]
    if (in.bias != nullptr)
    {
        std::vector<int64_t> wIdx(static_cast<size_t>(g * hidden));
        std::iota(wIdx.begin(), wIdx.end(), 0);
        std::vector<int64_t> rIdx(wIdx.size());
        std::iota(rIdx.begin(), rIdx.end(), g * hidden);
        KILN_ASSIGN_OR_RETURN(ITensor * wb, composite::gatherConst(ctx, node, in.bias, 1, wIdx, suffix + "_wb"));
        KILN_ASSIGN_OR_RETURN(ITensor * rbv, composite::gatherConst(ctx, node, in.bias, 1, rIdx, suffix + "_rb"));
        if (cfg.cell != Cell::kGRU)
        {
            KILN_ASSIGN_OR_RETURN(wb, u.op(wb, rbv, ElementWiseOperation::kSUM, suffix + "_bias_sum"));
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(rb, reshape(ctx, node, rbv, nvinfer1::Dims{3, {1, 1, g * hidden}}, suffix + "_rb3"));
        }
        KILN_ASSIGN_OR_RETURN(xw, u.op(xw, wb, ElementWiseOperation::kSUM, suffix + "_xw_bias"));
    }
    ITensor* pi = nullptr;
    ITensor* po = nullptr;
    ITensor* pf = nullptr;
    if (in.peep != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(pi, u.vectorPart(in.peep, 0, suffix + "_pi"));
        KILN_ASSIGN_OR_RETURN(po, u.vectorPart(in.peep, 1, suffix + "_po"));
        KILN_ASSIGN_OR_RETURN(pf, u.vectorPart(in.peep, 2, suffix + "_pf"));
    }
    ITensor* rh = nullptr; // GRU hidden-gate recurrence weights [1, H, H]
    ITensor* rbh = nullptr;
    if (cfg.cell == Cell::kGRU && !cfg.linearBeforeReset)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * r4, reshape(ctx, node, in.r, nvinfer1::Dims{4, {1, g, hidden, hidden}},
            suffix + "_r4"));
        KILN_ASSIGN_OR_RETURN(ITensor * index, u.scalarIndex(2));
        nvinfer1::IGatherLayer* layer = ctx.network().addGather(*r4, *index, 1);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addGather", suffix + "_rh"));
        rh = layer->getOutput(0);
        KILN_ASSIGN_OR_RETURN(ITensor * rb4, u.splitGates(rb, suffix + "_rb4"));
        KILN_ASSIGN_OR_RETURN(rbh, u.gate(rb4, 2, suffix + "_rbh"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, DataType::kFLOAT, 3));
    KILN_ASSIGN_OR_RETURN(ITensor * one, scalarLike(ctx, node, 1.0, DataType::kFLOAT, 3));

    std::vector<Activation> const& act = in.acts;
    ITensor* h = in.h0;
    ITensor* c = in.c0;
    std::vector<ITensor*> ys(static_cast<size_t>(cfg.seqLen), nullptr);
    for (int64_t step = 0; step < cfg.seqLen; ++step)
    {
        int64_t const t = in.reverse ? cfg.seqLen - 1 - step : step;
        std::string const s = suffix + "_t" + std::to_string(t);
        KILN_ASSIGN_OR_RETURN(ITensor * xt, composite::gatherConst(ctx, node, xw, 0, {t}, s + "_x"));
        ITensor* hr = rb;
        if (h != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * prod, u.matmulT(h, in.r, s + "_hr"));
            KILN_ASSIGN_OR_RETURN(hr, u.add(prod, rb, s + "_hr_bias"));
        }
        ITensor* hNew = nullptr;
        ITensor* cNew = nullptr;
        if (cfg.cell == Cell::kRNN)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * a, u.add(xt, hr, s + "_pre"));
            KILN_ASSIGN_OR_RETURN(hNew, u.apply(a, act[0], s + "_h"));
        }
        else if (cfg.cell == Cell::kLSTM)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * a, u.add(xt, hr, s + "_pre"));
            KILN_ASSIGN_OR_RETURN(ITensor * a4, u.splitGates(a, s + "_gates"));
            KILN_ASSIGN_OR_RETURN(ITensor * ig, u.gate(a4, 0, s + "_i_pre"));
            KILN_ASSIGN_OR_RETURN(ITensor * og, u.gate(a4, 1, s + "_o_pre"));
            KILN_ASSIGN_OR_RETURN(ITensor * fg, u.gate(a4, 2, s + "_f_pre"));
            KILN_ASSIGN_OR_RETURN(ITensor * cg, u.gate(a4, 3, s + "_c_pre"));
            if (pi != nullptr && c != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(ITensor * pic, u.op(pi, c, ElementWiseOperation::kPROD, s + "_pi_c"));
                KILN_ASSIGN_OR_RETURN(ig, u.add(ig, pic, s + "_i_peep"));
                KILN_ASSIGN_OR_RETURN(ITensor * pfc, u.op(pf, c, ElementWiseOperation::kPROD, s + "_pf_c"));
                KILN_ASSIGN_OR_RETURN(fg, u.add(fg, pfc, s + "_f_peep"));
            }
            KILN_ASSIGN_OR_RETURN(ig, u.apply(ig, act[0], s + "_i"));
            KILN_ASSIGN_OR_RETURN(fg, u.apply(fg, act[0], s + "_f"));
            KILN_ASSIGN_OR_RETURN(cg, u.apply(cg, act[1], s + "_c_cand"));
            KILN_ASSIGN_OR_RETURN(cNew, u.op(ig, cg, ElementWiseOperation::kPROD, s + "_ic"));
            if (c != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(ITensor * fc, u.op(fg, c, ElementWiseOperation::kPROD, s + "_fc"));
                KILN_ASSIGN_OR_RETURN(cNew, u.add(fc, cNew, s + "_c"));
            }
            if (po != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(ITensor * poc, u.op(po, cNew, ElementWiseOperation::kPROD, s + "_po_c"));
                KILN_ASSIGN_OR_RETURN(og, u.add(og, poc, s + "_o_peep"));
            }
            KILN_ASSIGN_OR_RETURN(og, u.apply(og, act[0], s + "_o"));
            KILN_ASSIGN_OR_RETURN(ITensor * hc, u.apply(cNew, act[2], s + "_c_act"));
            KILN_ASSIGN_OR_RETURN(hNew, u.op(og, hc, ElementWiseOperation::kPROD, s + "_h"));
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(ITensor * x4, u.splitGates(xt, s + "_x_gates"));
            KILN_ASSIGN_OR_RETURN(ITensor * h4, u.splitGates(hr, s + "_h_gates"));
            KILN_ASSIGN_OR_RETURN(ITensor * xz, u.gate(x4, 0, s + "_xz"));
            KILN_ASSIGN_OR_RETURN(ITensor * xr, u.gate(x4, 1, s + "_xr"));
            KILN_ASSIGN_OR_RETURN(ITensor * xh, u.gate(x4, 2, s + "_xh"));
            KILN_ASSIGN_OR_RETURN(ITensor * hz, u.gate(h4, 0, s + "_hz"));
            KILN_ASSIGN_OR_RETURN(ITensor * hrr, u.gate(h4, 1, s + "_hr"));
            KILN_ASSIGN_OR_RETURN(ITensor * z, u.add(xz, hz, s + "_z_pre"));
            KILN_ASSIGN_OR_RETURN(ITensor * rr, u.add(xr, hrr, s + "_r_pre"));
            KILN_ASSIGN_OR_RETURN(z, u.apply(z, act[0], s + "_z"));
            KILN_ASSIGN_OR_RETURN(rr, u.apply(rr, act[0], s + "_r"));
            ITensor* n = xh;
            if (cfg.linearBeforeReset)
            {
                KILN_ASSIGN_OR_RETURN(ITensor * hh, u.gate(h4, 2, s + "_hh"));
                if (hh != nullptr)
                {
                    KILN_ASSIGN_OR_RETURN(ITensor * rhh, u.op(rr, hh, ElementWiseOperation::kPROD, s + "_r_hh"));
                    KILN_ASSIGN_OR_RETURN(n, u.add(n, rhh, s + "_n_sum"));
                }
            }
            else
            {
                if (h != nullptr)
                {
                    KILN_ASSIGN_OR_RETURN(ITensor * rh0, u.op(rr, h, ElementWiseOperation::kPROD, s + "_r_h"));
                    KILN_ASSIGN_OR_RETURN(ITensor * prod, u.matmulT(rh0, rh, s + "_r_h_rh"));
                    KILN_ASSIGN_OR_RETURN(n, u.add(n, prod, s + "_n_sum"));
                }
                KILN_ASSIGN_OR_RETURN(n, u.add(n, rbh, s + "_n_bias"));
            }
            KILN_ASSIGN_OR_RETURN(n, u.apply(n, act[1], s + "_n"));
            KILN_ASSIGN_OR_RETURN(ITensor * oneMinusZ, u.op(one, z, ElementWiseOperation::kSUB, s + "_1mz"));
            KILN_ASSIGN_OR_RETURN(hNew, u.op(oneMinusZ, n, ElementWiseOperation::kPROD, s + "_zn"));
            if (h != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(ITensor * zh, u.op(z, h, ElementWiseOperation::kPROD, s + "_zh"));
                KILN_ASSIGN_OR_RETURN(hNew, u.add(hNew, zh, s + "_h"));
            }
        }
        ITensor* y = hNew;
        if (cfg.seqLens != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * tc, scalarLike(ctx, node, static_cast<double>(t), DataType::kINT32, 3));
            KILN_ASSIGN_OR_RETURN(ITensor * valid, u.op(tc, cfg.seqLens, ElementWiseOperation::kLESS, s + "_valid"));
            KILN_ASSIGN_OR_RETURN(
                hNew, composite::select(ctx, node, valid, hNew, h != nullptr ? h : zero, s + "_h_mask"));
            if (cNew != nullptr)
            {
                KILN_ASSIGN_OR_RETURN(cNew, composite::select(ctx, node, valid, cNew, c != nullptr ? c : zero,
                    s + "_c_mask"));
            }
            KILN_ASSIGN_OR_RETURN(y, composite::select(ctx, node, valid, hNew, zero, s + "_y_mask"));
        }
        ys[static_cast<size_t>(t)] = y;
        h = hNew;
        c = cNew;
    }
    DirectionOutputs out;
    ITensor* y = ys[0];
    if (ys.size() > 1)
    {
        nvinfer1::IConcatenationLayer* layer
            = ctx.network().addConcatenation(ys.data(), static_cast<int32_t>(ys.size()));
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addConcatenation", suffix + "_y_seq"));
        layer->setAxis(0);
        y = layer->getOutput(0);
    }
    KILN_ASSIGN_OR_RETURN(out.y, unsqueeze(ctx, node, y, {1}, suffix + "_y_dir"));
    out.h = h;
    out.c = c;
    return out;
}

} // namespace kiln::recurrent
