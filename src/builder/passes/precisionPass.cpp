// precisionPass: reduced precision for weakly typed networks built with BuilderFlag::kFP16 or kBF16, as TensorRT's
// builder may run layers in FP16/BF16. It runs for CUDA builds, or on any backend with KILN_PRECISION=1 (so the CPU
// tests exercise it); KILN_PRECISION=0 disables it everywhere.
//
// A node is "reduced" when the backend can run it (tactics non-empty and the kernel can be created) with every FP32
// data input and output in the reduced type. Nodes in order:
//   - not eligible: plugins (their formats were negotiated), casts, constants, quantization, fills, NMS, assertions,
//     shape layers, nodes in loops or conditionals ("cf.*" attributes), type conversions made by lowerPass, and
//     layers whose precision was set to kFLOAT with ILayer::setPrecision;
//   - FP32 tensors whose producer is reduced change type in place, unless they are pinned: network I/O, shape or
//     size tensors, tensors a plugin or a control-flow node touches, and tensors whose type the user set
//     (ILayer::setOutputType, ITensor::setType). A pinned output of a reduced node is written in the reduced type
//     into a new tensor and converted back by a kCAST node;
//   - an FP32 input of a reduced node gets a kCAST to the reduced type before the node (one per tensor); a constant
//     gets a converted copy of its weights instead; a reduced tensor read by a node that is not reduced gets a kCAST
//     back to FP32 right after its producer.
// Softmax, normalization and reduction stay eligible: their CPU and CUDA kernels compute in float/double internally
// (FP16/BF16 is their storage type only). With kOBEY_PRECISION_CONSTRAINTS a layer set to the reduced precision that
// the backend cannot run in it fails the build; with kPREFER_PRECISION_CONSTRAINTS it is a warning.
#include "builder/buildContext.h"

#include "core/dataType.h"
#include "network/inferContext.h"
#include "network/layer.h"
#include "network/tensor.h"

#include <cstdlib>
#include <cstring>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

namespace
{

//! Whether the pass runs for this build: CUDA backend or KILN_PRECISION=1; never with KILN_PRECISION=0.
bool precisionPassEnabled(BuildContext const& ctx)
{
    char const* env = std::getenv("KILN_PRECISION");
    if (env != nullptr && std::strcmp(env, "0") == 0)
    {
        return false;
    }
    if (env != nullptr && std::strcmp(env, "1") == 0)
    {
        return true;
    }
    return ctx.backend != nullptr && ctx.backend->capabilities().reducedPrecisions != 0;
}

bool inControlFlow(PlanNode const& node)
{
    for (auto const& [key, value] : node.attrs.values())
    {
        if (key.rfind("cf.", 0) == 0)
        {
            return true;
        }
    }
    return false;
}

bool isPluginKind(LayerType kind)
{
    return kind == LayerType::kPLUGIN || kind == LayerType::kPLUGIN_V2 || kind == LayerType::kPLUGIN_V3;
}

//! Whether a layer kind may run in the reduced precision. Every kind is named (no default): a new kind decides.
//! Never reduced: plugins (their types are negotiated), explicit type changes, quantization, value generators,
//! assertions and control flow, and shape queries.
bool kindEligible(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kCONVOLUTION:
    case LayerType::kACTIVATION:
    case LayerType::kPOOLING:
    case LayerType::kLRN:
    case LayerType::kSCALE:
    case LayerType::kSOFTMAX:
    case LayerType::kDECONVOLUTION:
    case LayerType::kCONCATENATION:
    case LayerType::kELEMENTWISE:
    case LayerType::kUNARY:
    case LayerType::kPADDING:
    case LayerType::kSHUFFLE:
    case LayerType::kREDUCE:
    case LayerType::kTOPK:
    case LayerType::kGATHER:
    case LayerType::kMATRIX_MULTIPLY:
    case LayerType::kRAGGED_SOFTMAX:
    case LayerType::kIDENTITY:
    case LayerType::kSLICE:
    case LayerType::kPARAMETRIC_RELU:
    case LayerType::kRESIZE:
    case LayerType::kSELECT:
    case LayerType::kSCATTER:
    case LayerType::kEINSUM:
    case LayerType::kONE_HOT:
    case LayerType::kNON_ZERO:
    case LayerType::kGRID_SAMPLE:
    case LayerType::kREVERSE_SEQUENCE:
    case LayerType::kNORMALIZATION:
    case LayerType::kSQUEEZE:
    case LayerType::kUNSQUEEZE:
    case LayerType::kCUMULATIVE:
    case LayerType::kATTENTION_INPUT:
    case LayerType::kATTENTION_OUTPUT:
    case LayerType::kROTARY_EMBEDDING:
    case LayerType::kKVCACHE_UPDATE:
    case LayerType::kMOE:
    case LayerType::kDIST_COLLECTIVE: return true;
    case LayerType::kPLUGIN:
    case LayerType::kPLUGIN_V2:
    case LayerType::kPLUGIN_V3:
    case LayerType::kCAST:
    case LayerType::kCONSTANT:
    case LayerType::kQUANTIZE:
    case LayerType::kDEQUANTIZE:
    case LayerType::kDYNAMIC_QUANTIZE:
    case LayerType::kFILL:
    case LayerType::kNMS:
    case LayerType::kASSERTION:
    case LayerType::kTRIP_LIMIT:
    case LayerType::kRECURRENCE:
    case LayerType::kITERATOR:
    case LayerType::kLOOP_OUTPUT:
    case LayerType::kCONDITION:
    case LayerType::kCONDITIONAL_INPUT:
    case LayerType::kCONDITIONAL_OUTPUT:
    case LayerType::kSHAPE: return false;
    }
    return false; // a value outside the enum
}

//! Layers that read only their input's dimensions: they take a reduced-type input as it is (no cast back).
bool readsShapeOnly(LayerType kind)
{
    return kind == LayerType::kSHAPE;
}

//! Whether input slot `slot` carries data (as opposed to indices, scales, bounds...) for a layer kind.
bool isDataInput(LayerType kind, size_t slot)
{
    switch (kind)
    {
    case LayerType::kRESIZE:
    case LayerType::kSLICE:
    case LayerType::kGATHER:
    case LayerType::kTOPK:
    case LayerType::kSHUFFLE:
    case LayerType::kONE_HOT: return slot == 0;
    case LayerType::kSCATTER: return slot == 0 || slot == 2;
    case LayerType::kSELECT: return slot == 1 || slot == 2;
    default: return true;
    }
}

class PrecisionRewriter
{
public:
    PrecisionRewriter(BuildContext& ctx, DataType target)
        : mCtx(ctx)
        , mPlan(ctx.plan)
        , mTarget(target)
    {
    }

    Status run()
    {
        collectConstraints();
        pinTensors();
        KILN_RETURN_IF_ERROR(chooseNodes());
        rewrite();
        return Status::ok();
    }

private:
    //! Layer precision constraints and user-set tensor types, from the network (plan nodes carry layer names).
    void collectConstraints()
    {
        for (auto const& layer : mCtx.network.layers())
        {
            if (layer->precisionSet())
            {
                mLayerPrecision[layer->name()] = layer->precision();
            }
            for (size_t i = 0; i < layer->outputs().size(); ++i)
            {
                Tensor const* out = layer->outputs()[i];
                if (layer->outputTypeSet(static_cast<int32_t>(i)) || out->typeSetByUser())
                {
                    auto it = mCtx.tensorIndex.find(out);
                    if (it != mCtx.tensorIndex.end())
                    {
                        mPinned.insert(it->second);
                    }
                }
            }
        }
    }

    void pinTensors()
    {
        for (size_t t = 0; t < mPlan.tensors.size(); ++t)
        {
            PlanTensor const& pt = mPlan.tensors[t];
            if (pt.ioMode != nvinfer1::TensorIOMode::kNONE || pt.hostShapeTensor || pt.hasValues
                || pt.sizeTensorSymbol >= 0)
            {
                mPinned.insert(static_cast<int32_t>(t));
            }
        }
        for (PlanNode const& node : mPlan.nodes)
        {
            if (isPluginKind(node.kind) || inControlFlow(node))
            {
                for (int32_t t : node.inputs)
                {
                    mPinned.insert(t);
                }
                for (int32_t t : node.outputs)
                {
                    mPinned.insert(t);
                }
            }
        }
        mPinned.erase(-1);
    }

    bool isFp32(int32_t t) const { return t >= 0 && mPlan.tensors[static_cast<size_t>(t)].type == DataType::kFLOAT; }

    //! The FP32 input slots that carry data, and the FP32 output slots, of `node`.
    void floatSlots(PlanNode const& node, std::vector<size_t>& ins, std::vector<size_t>& outs) const
    {
        for (size_t s = 0; s < node.inputs.size(); ++s)
        {
            int32_t const t = node.inputs[s];
            if (isFp32(t) && isDataInput(node.kind, s) && !mPlan.tensors[static_cast<size_t>(t)].hostShapeTensor)
            {
                ins.push_back(s);
            }
        }
        for (size_t s = 0; s < node.outputs.size(); ++s)
        {
            if (isFp32(node.outputs[s]))
            {
                outs.push_back(s);
            }
        }
    }

    bool eligible(PlanNode const& node) const
    {
        if (!kindEligible(node.kind) || inControlFlow(node))
        {
            return false;
        }
        auto const it = mLayerPrecision.find(node.name);
        if (it != mLayerPrecision.end() && it->second == DataType::kFLOAT)
        {
            return false; // ILayer::setPrecision(kFLOAT)
        }
        if (node.kind == LayerType::kIDENTITY && node.inputs.size() == 1 && node.outputs.size() == 1 && node.inputs[0] >= 0
            && mPlan.tensors[static_cast<size_t>(node.inputs[0])].type
                != mPlan.tensors[static_cast<size_t>(node.outputs[0])].type)
        {
            return false; // a type conversion (lowerPass, plugin reformats)
        }
        return true;
    }

    //! Whether the backend runs `node` with the given slots in the reduced type.
    bool backendAccepts(PlanNode const& node, std::vector<size_t> const& ins, std::vector<size_t> const& outs)
    {
        KernelSetup setup = makeKernelSetup(mPlan, node);
        for (size_t s : ins)
        {
            setup.inputTypes[s] = mTarget;
        }
        for (size_t s : outs)
        {
            setup.outputTypes[s] = mTarget;
        }
        Backend const& backend = mCtx.backend != nullptr ? *mCtx.backend : cpuBackend();
        if (backend.tactics(setup).empty())
        {
            return false;
        }
        if (mSession == nullptr)
        {
            auto session = backend.createSession();
            if (!session.isOk())
            {
                return false;
            }
            mSession = std::move(session).value();
        }
        return mSession->createKernel(setup).isOk();
    }

    Status chooseNodes()
    {
        bool const obey = mCtx.config.getFlag(nvinfer1::BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
        bool const prefer = mCtx.config.getFlag(nvinfer1::BuilderFlag::kPREFER_PRECISION_CONSTRAINTS);
        mReduced.assign(mPlan.nodes.size(), false);
        for (size_t n = 0; n < mPlan.nodes.size(); ++n)
        {
            PlanNode const& node = mPlan.nodes[n];
            std::vector<size_t> ins;
            std::vector<size_t> outs;
            floatSlots(node, ins, outs);
            if (ins.empty() && outs.empty())
            {
                continue;
            }
            bool const isEligible = eligible(node);
            mReduced[n] = isEligible && backendAccepts(node, ins, outs);
            auto const it = mLayerPrecision.find(node.name);
            if (!mReduced[n] && it != mLayerPrecision.end() && it->second == mTarget && (obey || prefer))
            {
                std::string const message = "layer '" + node.name + "' (" + layerKindName(node.kind)
                    + "): ILayer::setPrecision asks for " + dataTypeName(mTarget) + ", but "
                    + (isEligible ? "the " + backendName() + " backend cannot run it in " + dataTypeName(mTarget)
                                  : std::string("Kiln keeps this layer in its own types (plugins, casts, quantization, "
                                                "fills, NMS, control flow)"));
                if (obey)
                {
                    return unsupported(message + " (kOBEY_PRECISION_CONSTRAINTS)");
                }
                mCtx.logger.warning(message + "; it runs in FP32 (kPREFER_PRECISION_CONSTRAINTS)");
            }
        }
        return Status::ok();
    }

    std::string backendName() const { return mCtx.backend != nullptr ? mCtx.backend->name() : "cpu"; }

    int32_t addTensorLike(int32_t source, DataType type, std::string const& suffix)
    {
        PlanTensor const& src = mPlan.tensors[static_cast<size_t>(source)];
        PlanTensor t;
        t.name = src.name + " (" + suffix + ")";
        t.type = type;
        t.format = src.format;
        t.dims = src.dims;
        mPlan.tensors.push_back(std::move(t));
        return static_cast<int32_t>(mPlan.tensors.size() - 1);
    }

    PlanNode makeCast(int32_t from, int32_t to, DataType type)
    {
        PlanNode cast;
        cast.kind = LayerType::kCAST;
        cast.name = mPlan.tensors[static_cast<size_t>(from)].name + " [to " + dataTypeName(type) + "]";
        cast.attrs.setInt("toType", static_cast<int64_t>(type));
        cast.inputs = {from};
        cast.outputs = {to};
        cast.precision = type;
        ++mCasts;
        return cast;
    }

    //! A constant FP32 tensor's weights converted to the reduced type, as a new constant tensor; -1 when the
    //! memory for the copy cannot be allocated (the caller then inserts a cast).
    int32_t convertedConstant(int32_t t)
    {
        PlanTensor const& src = mPlan.tensors[static_cast<size_t>(t)];
        PlanWeights const w = mPlan.weights[static_cast<size_t>(src.constant)];
        std::vector<uint16_t> bits(static_cast<size_t>(w.count));
        auto const* values = reinterpret_cast<float const*>(w.data);
        for (int64_t i = 0; i < w.count; ++i)
        {
            bits[static_cast<size_t>(i)] = mTarget == DataType::kHALF ? floatToHalf(values[i]) : floatToBf16(values[i]);
        }
        PlanWeights converted
            = addPlanWeights(mPlan, mTarget, w.count, bits.data(), static_cast<int64_t>(bits.size() * sizeof(uint16_t)));
        if (converted.data == nullptr && converted.size > 0)
        {
            return -1;
        }
        mPlan.weights.push_back(converted);
        int32_t const idx = addTensorLike(t, mTarget, dataTypeName(mTarget));
        mPlan.tensors[static_cast<size_t>(idx)].constant = static_cast<int32_t>(mPlan.weights.size() - 1);
        return idx;
    }

    void rewrite()
    {
        // Producers, and which tensors a node that is not reduced reads.
        std::unordered_map<int32_t, size_t> producer;
        std::unordered_set<int32_t> readByFull;
        for (size_t n = 0; n < mPlan.nodes.size(); ++n)
        {
            for (int32_t t : mPlan.nodes[n].outputs)
            {
                producer[t] = n;
            }
            if (!mReduced[n] && !readsShapeOnly(mPlan.nodes[n].kind))
            {
                for (int32_t t : mPlan.nodes[n].inputs)
                {
                    readByFull.insert(t);
                }
            }
        }
        size_t const nbOriginalTensors = mPlan.tensors.size();
        std::vector<bool> converted(nbOriginalTensors, false);
        for (size_t t = 0; t < nbOriginalTensors; ++t)
        {
            auto const p = producer.find(static_cast<int32_t>(t));
            converted[t] = isFp32(static_cast<int32_t>(t)) && mPinned.count(static_cast<int32_t>(t)) == 0
                && p != producer.end() && mReduced[p->second];
        }

        std::unordered_map<int32_t, int32_t> reducedOf; // FP32 tensor -> its copy in the reduced type
        std::unordered_map<int32_t, int32_t> fullOf;    // converted tensor -> its FP32 copy
        std::vector<PlanNode> nodes;
        nodes.reserve(mPlan.nodes.size() * 2);
        for (size_t n = 0; n < mPlan.nodes.size(); ++n)
        {
            PlanNode node = mPlan.nodes[n];
            std::vector<size_t> ins;
            std::vector<size_t> outs;
            floatSlots(node, ins, outs);
            std::vector<PlanNode> after;
            if (mReduced[n])
            {
                for (size_t s : ins)
                {
                    int32_t const t = node.inputs[s];
                    if (converted[static_cast<size_t>(t)])
                    {
                        continue;
                    }
                    auto it = reducedOf.find(t);
                    if (it == reducedOf.end())
                    {
                        int32_t copy = -1;
                        if (mPlan.tensors[static_cast<size_t>(t)].constant >= 0
                            && mPlan.weights[static_cast<size_t>(mPlan.tensors[static_cast<size_t>(t)].constant)].type
                                == DataType::kFLOAT)
                        {
                            copy = convertedConstant(t);
                        }
                        if (copy < 0)
                        {
                            copy = addTensorLike(t, mTarget, dataTypeName(mTarget));
                            nodes.push_back(makeCast(t, copy, mTarget));
                        }
                        it = reducedOf.emplace(t, copy).first;
                    }
                    node.inputs[s] = it->second;
                }
                for (size_t s : outs)
                {
                    int32_t const t = node.outputs[s];
                    if (converted[static_cast<size_t>(t)])
                    {
                        mPlan.tensors[static_cast<size_t>(t)].type = mTarget;
                        if (readByFull.count(t) != 0)
                        {
                            int32_t const full = addTensorLike(t, DataType::kFLOAT, "FP32");
                            after.push_back(makeCast(t, full, DataType::kFLOAT));
                            fullOf[t] = full;
                        }
                        continue;
                    }
                    // Pinned output (network output, user-set type, plugin input): write the reduced type into a
                    // new tensor and convert it back; reduced readers use the new tensor directly.
                    int32_t const reduced = addTensorLike(t, mTarget, dataTypeName(mTarget));
                    node.outputs[s] = reduced;
                    after.push_back(makeCast(reduced, t, DataType::kFLOAT));
                    reducedOf[t] = reduced;
                }
                node.precision = mTarget;
                ++mReducedCount;
            }
            else if (!readsShapeOnly(node.kind))
            {
                for (int32_t& t : node.inputs)
                {
                    if (t >= 0 && static_cast<size_t>(t) < nbOriginalTensors && converted[static_cast<size_t>(t)])
                    {
                        t = fullOf.at(t);
                    }
                }
            }
            nodes.push_back(std::move(node));
            for (auto& c : after)
            {
                nodes.push_back(std::move(c));
            }
        }
        mPlan.nodes = std::move(nodes);
        mCtx.logger.verbose(std::string("precision: ") + std::to_string(mReducedCount) + " layer(s) run in "
            + dataTypeName(mTarget) + ", " + std::to_string(mCasts) + " cast(s) inserted");
    }

    BuildContext& mCtx;
    Plan& mPlan;
    DataType mTarget;
    std::unordered_map<std::string, DataType> mLayerPrecision;
    std::set<int32_t> mPinned;
    std::vector<bool> mReduced;
    std::unique_ptr<BackendSession> mSession;
    int32_t mReducedCount{0};
    int32_t mCasts{0};
};

} // namespace

Status precisionPass(BuildContext& ctx)
{
    bool const fp16 = ctx.config.getFlag(nvinfer1::BuilderFlag::kFP16);
    bool const bf16 = ctx.config.getFlag(nvinfer1::BuilderFlag::kBF16);
    if ((!fp16 && !bf16) || ctx.network.stronglyTyped() || !precisionPassEnabled(ctx))
    {
        return Status::ok();
    }
    // With both flags FP16 is used: same tensor-core rate on the GPUs Kiln targets, and more mantissa bits.
    PrecisionRewriter rewriter(ctx, fp16 ? DataType::kHALF : DataType::kBF16);
    return rewriter.run();
}

} // namespace kiln
