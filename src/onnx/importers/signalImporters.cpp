// Importers of the signal-processing ops DFT (opsets 17 and 20), STFT and MelWeightMatrix (opset 17). A DFT along
// one axis of static length is one matrix multiply: the axis is moved next to the trailing real/complex dimension,
// the pair (samples, components) is flattened, and a constant [N*c, K*2] matrix of cos/sin coefficients maps it to
// K complex bins (dft_length pads or truncates; onesided keeps floor(n/2)+1 bins; inverse uses exp(+i...) / n).
// STFT gathers the frames with a run-time index grid (frame_step may be a run-time scalar), applies the window and
// the same DFT matrix; a frame_length known only at run time computes the cos/sin matrices in the network instead.
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <cmath>

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! The constant DFT matrix [n * c, k * 2]: row (sample, component), column (bin, re/im).
OnnxConstant dftMatrix(int64_t n, int64_t c, int64_t nFft, int64_t bins, bool inverse)
{
    double constexpr kPi = 3.14159265358979323846;
    std::vector<float> m(static_cast<size_t>(n * c * bins * 2), 0.F);
    double const sign = inverse ? 1.0 : -1.0; // exp(sign * i * theta)
    double const scale = inverse ? 1.0 / static_cast<double>(nFft) : 1.0;
    for (int64_t s = 0; s < std::min(n, nFft); ++s)
    {
        for (int64_t k = 0; k < bins; ++k)
        {
            // Reduce k * s modulo nFft first so that the angle stays small and exact.
            double const theta = 2.0 * kPi * static_cast<double>((k * s) % nFft) / static_cast<double>(nFft);
            double const cs = std::cos(theta) * scale;
            double const sn = sign * std::sin(theta) * scale;
            // (re + i im)(cos + i sn) = (re cos - im sn) + i (re sn + im cos)
            auto at = [&](int64_t comp, int64_t out) -> float& {
                return m[static_cast<size_t>(((s * c + comp) * bins + k) * 2 + out)];
            };
            at(0, 0) = static_cast<float>(cs);
            at(0, 1) = static_cast<float>(sn);
            if (c == 2)
            {
                at(1, 0) = static_cast<float>(-sn);
                at(1, 1) = static_cast<float>(cs);
            }
        }
    }
    return OnnxConstant::fromFloat(m, {n * c, bins * 2});
}

//! DFT of x along `axis` (not the last dimension, which holds 1 or 2 components), giving `bins` bins of an
//! nFft-point transform, with the bins at `axis` and [re, im] in the last dimension.
StatusOr<ITensor*> dftAlongAxis(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, int32_t axis,
    int64_t nFft, int64_t bins, bool inverse)
{
    int32_t const rank = rankOf(x);
    nvinfer1::Dims const d = x->getDimensions();
    int64_t const n = d.d[axis];
    int64_t const c = d.d[rank - 1];
    if (n < 0)
    {
        return unsupported(describeNode(node) + ": the transformed axis " + std::to_string(axis)
            + " must have a length known at build time");
    }
    if (c != 1 && c != 2)
    {
        return invalidArgument(describeNode(node) + ": the last dimension of the signal must be 1 (real) or 2 "
            + "(complex), got " + std::to_string(c));
    }
    // Move the axis next to the component dimension: [..., n, c].
    std::vector<int32_t> perm;
    for (int32_t i = 0; i < rank - 1; ++i)
    {
        if (i != axis)
        {
            perm.push_back(i);
        }
    }
    perm.push_back(axis);
    perm.push_back(rank - 1);
    KILN_ASSIGN_OR_RETURN(ITensor * moved, transpose(ctx, node, x, perm, "_dft_move"));
    nvinfer1::Dims flat{};
    flat.nbDims = rank - 1;
    for (int32_t i = 0; i < rank - 2; ++i)
    {
        flat.d[i] = 0; // copy the leading extents
    }
    flat.d[rank - 2] = n * c;
    KILN_ASSIGN_OR_RETURN(ITensor * rows, reshape(ctx, node, moved, flat, "_dft_flat"));
    KILN_ASSIGN_OR_RETURN(rows, castTo(ctx, node, rows, DataType::kFLOAT, "_dft_f"));
    KILN_ASSIGN_OR_RETURN(ITensor * matrix, ctx.constantTensor(dftMatrix(n, c, nFft, bins, inverse),
        (node.output_size() > 0 ? node.output(0) : node.op_type()) + "_dft_matrix"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, composite::matmul(ctx, node, rows, matrix, "_dft"));
    nvinfer1::Dims split{};
    split.nbDims = rank;
    for (int32_t i = 0; i < rank - 2; ++i)
    {
        split.d[i] = 0;
    }
    split.d[rank - 2] = bins;
    split.d[rank - 1] = 2;
    KILN_ASSIGN_OR_RETURN(y, reshape(ctx, node, y, split, "_dft_split"));
    // Put the bins back at `axis`.
    std::vector<int32_t> inverseOrder(static_cast<size_t>(rank));
    for (int32_t i = 0; i < rank; ++i)
    {
        inverseOrder[static_cast<size_t>(perm[static_cast<size_t>(i)])] = i;
    }
    return transpose(ctx, node, y, inverseOrder, "_dft_back");
}

//! A scalar integer input that must be a parse-time constant.
StatusOr<int64_t> constantInt(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, char const* what)
{
    OnnxConstant const* c = ctx.constant(node, index);
    if (c == nullptr)
    {
        return unsupported(describeNode(node) + ": input " + std::to_string(index) + " (" + what
            + ") must be a constant (an initializer or Constant output)");
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const v, c->toInt64());
    if (v.size() != 1)
    {
        return invalidArgument(describeNode(node) + ": input " + std::to_string(index) + " (" + what
            + ") must hold one value");
    }
    return v[0];
}

Status importDFT(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    if (rank < 2)
    {
        return invalidArgument(describeNode(node) + ": the input must have rank >= 2 ([..., signal, 1 or 2])");
    }
    bool const inverse = attrInt(node, "inverse", 0) != 0;
    bool const onesided = attrInt(node, "onesided", 0) != 0;
    int64_t axisValue = attrInt(node, "axis", 1);
    if (ctx.opsetVersion() >= 20)
    {
        axisValue = -2;
        if (ctx.hasInput(node, 2))
        {
            KILN_ASSIGN_OR_RETURN(axisValue, constantInt(ctx, node, 2, "axis"));
        }
    }
    KILN_ASSIGN_OR_RETURN(int32_t const axis, normalizeAxis(node, axisValue, rank));
    if (axis == rank - 1)
    {
        return invalidArgument(describeNode(node) + ": the DFT axis cannot be the last (real/imaginary) dimension");
    }
    int64_t nFft = x->getDimensions().d[axis];
    if (ctx.hasInput(node, 1))
    {
        KILN_ASSIGN_OR_RETURN(nFft, constantInt(ctx, node, 1, "dft_length"));
    }
    if (nFft <= 0)
    {
        return unsupported(describeNode(node) + ": the DFT length must be positive and known at build time");
    }
    int64_t const bins = onesided ? nFft / 2 + 1 : nFft;
    // dft_length longer than the signal pads with zeros: the extra rows of the matrix would be zero, so the matrix
    // only needs the signal's own samples. Truncation is handled by the matrix too (rows past nFft are zero).
    KILN_ASSIGN_OR_RETURN(ITensor * y, dftAlongAxis(ctx, node, x, axis, nFft, bins, inverse));
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, x->getType(), "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

//! A [rows, cols] INT64 grid whose element (r, c) is r * dr + c * dc (dims a 2-element INT64 shape tensor).
StatusOr<ITensor*> indexGrid(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* dims, ITensor* deltas,
    std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(ITensor * zero, ctx.constantTensor(OnnxConstant::fromInt64({0}, {}),
        (node.output_size() > 0 ? node.output(0) : node.op_type()) + suffix + "_start"));
    nvinfer1::IFillLayer* grid = ctx.network().addFill(nvinfer1::Dims{2, {1, 1}}, nvinfer1::FillOperation::kLINSPACE,
        DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, grid, "addFill", suffix));
    grid->setInput(0, *dims);
    grid->setInput(1, *zero);
    grid->setInput(2, *deltas);
    return grid->getOutput(0);
}

//! Forward DFT along axis 2 of x [B, F, n, c] whose n is only known at run time (nT: 1-element INT64), computing
//! the cos/sin matrices [n, bins] in the network.
StatusOr<ITensor*> runtimeDft(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ITensor* nT,
    bool onesided)
{
    using E = ElementWiseOperation;
    double constexpr kPi = 3.14159265358979323846;
    int64_t const c = x->getDimensions().d[3];
    if (c != 1 && c != 2)
    {
        return invalidArgument(describeNode(node) + ": the last dimension of the signal must be 1 (real) or 2 "
            + "(complex), got " + std::to_string(c));
    }
    ITensor* bins = nT;
    if (onesided)
    {
        KILN_ASSIGN_OR_RETURN(bins, composite::binaryScalar(ctx, node, nT, 2.0, E::kFLOOR_DIV, "_half"));
        KILN_ASSIGN_OR_RETURN(bins, composite::binaryScalar(ctx, node, bins, 1.0, E::kSUM, "_bins"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * dims, concatShapes(ctx, node, {nT, bins}));
    KILN_ASSIGN_OR_RETURN(ITensor * sDelta, int64Vector(ctx, node, {1, 0}));
    KILN_ASSIGN_OR_RETURN(ITensor * kDelta, int64Vector(ctx, node, {0, 1}));
    KILN_ASSIGN_OR_RETURN(ITensor * sGrid, indexGrid(ctx, node, dims, sDelta, "_sample_grid"));
    KILN_ASSIGN_OR_RETURN(ITensor * kGrid, indexGrid(ctx, node, dims, kDelta, "_bin_grid"));
    // r = (k * s) mod n; the angle 2 pi r / n is written as (pi / 2) * b / n with b = 4 r, and b is folded in integers
    // into [-n, n] (angles in [-pi/2, pi/2]), where float sin is accurate and exact at 0 and +-pi/2. cos(a) is
    // sin(pi/2 - a), i.e. the same fold of n - b.
    KILN_ASSIGN_OR_RETURN(ITensor * sk, composite::binary(ctx, node, sGrid, kGrid, E::kPROD, "_sk"));
    KILN_ASSIGN_OR_RETURN(ITensor * q, composite::binary(ctx, node, sk, nT, E::kFLOOR_DIV, "_sk_div"));
    KILN_ASSIGN_OR_RETURN(q, composite::binary(ctx, node, q, nT, E::kPROD, "_sk_floor"));
    KILN_ASSIGN_OR_RETURN(sk, composite::binary(ctx, node, sk, q, E::kSUB, "_sk_mod"));
    KILN_ASSIGN_OR_RETURN(ITensor * b, composite::binaryScalar(ctx, node, sk, 4.0, E::kPROD, "_b"));
    KILN_ASSIGN_OR_RETURN(ITensor * n2, composite::binaryScalar(ctx, node, nT, 2.0, E::kPROD, "_2n"));
    KILN_ASSIGN_OR_RETURN(ITensor * n4, composite::binaryScalar(ctx, node, nT, 4.0, E::kPROD, "_4n"));
    KILN_ASSIGN_OR_RETURN(ITensor * wrap, composite::binary(ctx, node, b, n2, E::kGREATER, "_b_wrap"));
    KILN_ASSIGN_OR_RETURN(ITensor * bMinus, composite::binary(ctx, node, b, n4, E::kSUB, "_b_minus"));
    KILN_ASSIGN_OR_RETURN(b, composite::select(ctx, node, wrap, bMinus, b, "_b_centred")); // (-2n, 2n]
    KILN_ASSIGN_OR_RETURN(ITensor * negN, composite::binaryScalar(ctx, node, nT, -1.0, E::kPROD, "_neg_n"));
    KILN_ASSIGN_OR_RETURN(ITensor * negN2, composite::binaryScalar(ctx, node, nT, -2.0, E::kPROD, "_neg_2n"));
    KILN_ASSIGN_OR_RETURN(ITensor * nF, castTo(ctx, node, nT, DataType::kFLOAT, "_n_f"));
    auto foldedSin = [&](ITensor* v, std::string const& name) -> StatusOr<ITensor*> {
        KILN_ASSIGN_OR_RETURN(ITensor * above, composite::binary(ctx, node, v, nT, E::kGREATER, name + "_above"));
        KILN_ASSIGN_OR_RETURN(ITensor * below, composite::binary(ctx, node, v, negN, E::kLESS, name + "_below"));
        KILN_ASSIGN_OR_RETURN(ITensor * up, composite::binary(ctx, node, n2, v, E::kSUB, name + "_fold_up"));
        KILN_ASSIGN_OR_RETURN(ITensor * down, composite::binary(ctx, node, negN2, v, E::kSUB, name + "_fold_down"));
        KILN_ASSIGN_OR_RETURN(v, composite::select(ctx, node, above, up, v, name + "_folded_up"));
        KILN_ASSIGN_OR_RETURN(v, composite::select(ctx, node, below, down, v, name + "_folded"));
        KILN_ASSIGN_OR_RETURN(ITensor * a, castTo(ctx, node, v, DataType::kFLOAT, name + "_f"));
        KILN_ASSIGN_OR_RETURN(a, composite::binaryScalar(ctx, node, a, kPi / 2.0, E::kPROD, name + "_quarter"));
        KILN_ASSIGN_OR_RETURN(a, composite::binary(ctx, node, a, nF, E::kDIV, name + "_angle"));
        return addUnary(ctx, node, a, nvinfer1::UnaryOperation::kSIN, name);
    };
    KILN_ASSIGN_OR_RETURN(ITensor * sinM, foldedSin(b, "_sin"));
    KILN_ASSIGN_OR_RETURN(ITensor * bc, composite::binary(ctx, node, nT, b, E::kSUB, "_cos_arg"));
    KILN_ASSIGN_OR_RETURN(ITensor * cosM, foldedSin(bc, "_cos"));
    KILN_ASSIGN_OR_RETURN(sinM, addUnary(ctx, node, sinM, nvinfer1::UnaryOperation::kNEG, "_neg_sin"));
    // (re + i im)(cos - i sin): real = re cos - im (-sin), imaginary = re (-sin) + im cos.
    auto component = [&](int64_t index) -> StatusOr<ITensor*> {
        std::string const name = "_component" + std::to_string(index);
        KILN_ASSIGN_OR_RETURN(ITensor * at, ctx.constantTensor(OnnxConstant::fromInt64({index}, {}),
            (node.output_size() > 0 ? node.output(0) : node.op_type()) + name));
        nvinfer1::IGatherLayer* g = ctx.network().addGather(*x, *at, 3);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, g, "addGather", name));
        return g->getOutput(0);
    };
    KILN_ASSIGN_OR_RETURN(ITensor * re, component(0));
    KILN_ASSIGN_OR_RETURN(ITensor * yRe, composite::matmul(ctx, node, re, cosM, "_re_cos"));
    KILN_ASSIGN_OR_RETURN(ITensor * yIm, composite::matmul(ctx, node, re, sinM, "_re_sin"));
    if (c == 2)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * im, component(1));
        KILN_ASSIGN_OR_RETURN(ITensor * imSin, composite::matmul(ctx, node, im, sinM, "_im_sin"));
        KILN_ASSIGN_OR_RETURN(ITensor * imCos, composite::matmul(ctx, node, im, cosM, "_im_cos"));
        KILN_ASSIGN_OR_RETURN(yRe, composite::binary(ctx, node, yRe, imSin, E::kSUB, "_re"));
        KILN_ASSIGN_OR_RETURN(yIm, composite::binary(ctx, node, yIm, imCos, E::kSUM, "_im"));
    }
    KILN_ASSIGN_OR_RETURN(yRe, unsqueeze(ctx, node, yRe, {3}, "_re_pair"));
    KILN_ASSIGN_OR_RETURN(yIm, unsqueeze(ctx, node, yIm, {3}, "_im_pair"));
    std::vector<ITensor*> parts{yRe, yIm};
    nvinfer1::IConcatenationLayer* cat = ctx.network().addConcatenation(parts.data(), 2);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, cat, "addConcatenation", "_complex"));
    cat->setAxis(3);
    return cat->getOutput(0);
}

Status importSTFT(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * signal, ctx.tensor(node, 0));
    if (rankOf(signal) != 3)
    {
        return invalidArgument(describeNode(node) + ": the signal must be [batch, length, 1 or 2]");
    }
    bool const onesided = attrInt(node, "onesided", 1) != 0;
    ITensor* window = nullptr;
    int64_t frameLength = -1;
    ITensor* frameLengthT = nullptr; // 1-element INT64, set when the length is only known at run time
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(window, ctx.tensor(node, 2));
        if (rankOf(window) != 1)
        {
            return invalidArgument(describeNode(node) + ": the window must be 1-D");
        }
        frameLength = window->getDimensions().d[0];
        if (frameLength < 0)
        {
            KILN_ASSIGN_OR_RETURN(frameLengthT, shapeOf(ctx, node, window));
        }
    }
    if (ctx.hasInput(node, 3))
    {
        if (ctx.constant(node, 3) != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const v, ctx.constant(node, 3)->toInt64());
            if (v.size() != 1 || v[0] <= 0)
            {
                return invalidArgument(describeNode(node) + ": input 3 (frame_length) must be one positive value");
            }
            frameLength = v[0];
            frameLengthT = nullptr;
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(frameLengthT, ctx.tensor(node, 3));
            KILN_ASSIGN_OR_RETURN(frameLengthT, reshape(ctx, node, frameLengthT, nvinfer1::Dims{1, {1}}, "_len"));
            KILN_ASSIGN_OR_RETURN(frameLengthT, castTo(ctx, node, frameLengthT, DataType::kINT64, "_len64"));
            frameLength = -1;
        }
    }
    if (frameLength <= 0 && frameLengthT == nullptr)
    {
        return invalidArgument(describeNode(node) + ": give a window or frame_length (input 2 or 3)");
    }
    int64_t const signalLength = signal->getDimensions().d[1];
    if (signalLength < 0)
    {
        return unsupported(describeNode(node) + ": the signal length must be known at build time");
    }
    if (frameLength > 0 && signalLength < frameLength)
    {
        return invalidArgument(describeNode(node) + ": the signal (" + std::to_string(signalLength)
            + " samples) is shorter than one frame (" + std::to_string(frameLength) + ")");
    }
    if (frameLengthT == nullptr)
    {
        KILN_ASSIGN_OR_RETURN(frameLengthT, int64Vector(ctx, node, {frameLength}));
    }

    // Frame start indices f * step, plus the offsets within a frame: a [frames, frameLength] INT64 index grid.
    KILN_ASSIGN_OR_RETURN(ITensor * step, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(step, castTo(ctx, node, step, DataType::kINT64, "_step"));
    KILN_ASSIGN_OR_RETURN(step, reshape(ctx, node, step, nvinfer1::Dims{1, {1}}, "_step1"));
    KILN_ASSIGN_OR_RETURN(ITensor * lengthT, int64Vector(ctx, node, {signalLength}));
    KILN_ASSIGN_OR_RETURN(ITensor * span, composite::binary(ctx, node, lengthT, frameLengthT,
        ElementWiseOperation::kSUB, "_span"));
    KILN_ASSIGN_OR_RETURN(ITensor * frames, composite::binary(ctx, node, span, step, ElementWiseOperation::kFLOOR_DIV,
        "_frames_m1"));
    KILN_ASSIGN_OR_RETURN(
        frames, composite::binaryScalar(ctx, node, frames, 1.0, ElementWiseOperation::kSUM, "_frames"));
    KILN_ASSIGN_OR_RETURN(ITensor * gridShape, concatShapes(ctx, node, {frames, frameLengthT}));
    KILN_ASSIGN_OR_RETURN(ITensor * one, int64Vector(ctx, node, {1}));
    KILN_ASSIGN_OR_RETURN(ITensor * deltas, concatShapes(ctx, node, {step, one}));
    KILN_ASSIGN_OR_RETURN(ITensor * grid, indexGrid(ctx, node, gridShape, deltas, "_grid"));
    // [batch, frames, frameLength, c]
    nvinfer1::IGatherLayer* gather = ctx.network().addGather(*signal, *grid, 1);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, gather, "addGather", "_frames_gather"));
    ITensor* framed = gather->getOutput(0);
    KILN_ASSIGN_OR_RETURN(framed, castTo(ctx, node, framed, DataType::kFLOAT, "_frames_f"));
    if (window != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * w, castTo(ctx, node, window, DataType::kFLOAT, "_window_f"));
        KILN_ASSIGN_OR_RETURN(w, reshape(ctx, node, w, nvinfer1::Dims{4, {1, 1, -1, 1}}, "_window"));
        KILN_ASSIGN_OR_RETURN(
            framed, composite::binary(ctx, node, framed, w, ElementWiseOperation::kPROD, "_windowed"));
    }
    ITensor* y = nullptr;
    if (frameLength > 0)
    {
        int64_t const bins = onesided ? frameLength / 2 + 1 : frameLength;
        KILN_ASSIGN_OR_RETURN(y, dftAlongAxis(ctx, node, framed, 2, frameLength, bins, false));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(y, runtimeDft(ctx, node, framed, frameLengthT, onesided));
    }
    KILN_ASSIGN_OR_RETURN(y, castTo(ctx, node, y, signal->getType(), "_out"));
    outputs = {OnnxValue(y)};
    return Status::ok();
}

//! An INT64 linspace 0, 1, ..., n - 1 (n a 1-element INT64 shape tensor), as `type`.
StatusOr<ITensor*> iota(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* n, DataType type,
    std::string const& suffix)
{
    nvinfer1::IFillLayer* fill
        = ctx.network().addFill(nvinfer1::Dims{1, {1}}, nvinfer1::FillOperation::kLINSPACE, type);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", suffix));
    fill->setInput(0, *n);
    if (type == DataType::kINT64 || type == DataType::kINT32)
    {
        fill->setAlphaInt64(0);
        fill->setBetaInt64(1);
    }
    else
    {
        fill->setAlpha(0.0);
        fill->setBeta(1.0);
    }
    return fill->getOutput(0);
}

//! A scalar input as a 1-element tensor of `type`.
StatusOr<ITensor*> scalarInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, DataType type)
{
    KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, index));
    KILN_ASSIGN_OR_RETURN(t, reshape(ctx, node, t, nvinfer1::Dims{1, {1}}, "_in" + std::to_string(index)));
    return castTo(ctx, node, t, type, "_in" + std::to_string(index) + "_cast");
}

//! MelWeightMatrix (opset 17), following the ONNX reference: num_mel_bins + 2 points evenly spaced on the mel scale
//! between the edges, mapped to spectrogram bins floor((dft_length + 1) * hz / sample_rate); column i is the
//! triangle rising from bin f[i] to 1 at f[i + 1] and falling to 0 at f[i + 2]. Every input may be a run-time scalar.
Status importMelWeightMatrix(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    using E = ElementWiseOperation;
    int64_t const dtype = attrInt(node, "output_datatype", ::onnx::TensorProto::FLOAT);
    DataType outType = DataType::kFLOAT;
    if (dtype == ::onnx::TensorProto::FLOAT16)
    {
        outType = DataType::kHALF;
    }
    else if (dtype == ::onnx::TensorProto::BFLOAT16)
    {
        outType = DataType::kBF16;
    }
    else if (dtype != ::onnx::TensorProto::FLOAT && dtype != ::onnx::TensorProto::DOUBLE)
    {
        return unsupported(describeNode(node) + ": attribute 'output_datatype' " + std::to_string(dtype)
            + " is not supported (float types only)");
    }
    auto op = [&](ITensor* a, ITensor* b, E o, char const* name) {
        return composite::binary(ctx, node, a, b, o, name);
    };
    auto opS = [&](ITensor* a, double b, E o, char const* name) {
        return composite::binaryScalar(ctx, node, a, b, o, name);
    };
    KILN_ASSIGN_OR_RETURN(ITensor * nMel, scalarInput(ctx, node, 0, DataType::kINT64));
    KILN_ASSIGN_OR_RETURN(ITensor * dft, scalarInput(ctx, node, 1, DataType::kINT64));
    KILN_ASSIGN_OR_RETURN(ITensor * rate, scalarInput(ctx, node, 2, DataType::kFLOAT));
    KILN_ASSIGN_OR_RETURN(ITensor * lowHz, scalarInput(ctx, node, 3, DataType::kFLOAT));
    KILN_ASSIGN_OR_RETURN(ITensor * highHz, scalarInput(ctx, node, 4, DataType::kFLOAT));

    // Mel edges: 2595 * log10(1 + hz / 700).
    double const kLn10 = std::log(10.0);
    auto toMel = [&](ITensor* hz, char const* name) -> StatusOr<ITensor*> {
        KILN_ASSIGN_OR_RETURN(ITensor * t, opS(hz, 700.0, E::kDIV, name));
        KILN_ASSIGN_OR_RETURN(t, opS(t, 1.0, E::kSUM, name));
        KILN_ASSIGN_OR_RETURN(t, addUnary(ctx, node, t, nvinfer1::UnaryOperation::kLOG, name));
        return opS(t, 2595.0 / kLn10, E::kPROD, name);
    };
    KILN_ASSIGN_OR_RETURN(ITensor * lowMel, toMel(lowHz, "_low_mel"));
    KILN_ASSIGN_OR_RETURN(ITensor * highMel, toMel(highHz, "_high_mel"));
    KILN_ASSIGN_OR_RETURN(ITensor * points, opS(nMel, 2.0, E::kSUM, "_points"));
    KILN_ASSIGN_OR_RETURN(ITensor * pointsF, castTo(ctx, node, points, DataType::kFLOAT, "_points_f"));
    KILN_ASSIGN_OR_RETURN(ITensor * step, op(highMel, lowMel, E::kSUB, "_mel_span"));
    KILN_ASSIGN_OR_RETURN(step, op(step, pointsF, E::kDIV, "_mel_step"));
    // f = floor((dft_length + 1) * 700 * (10^((k * step + lowMel) / 2595) - 1) / sample_rate), k = 0 .. nMel + 1
    KILN_ASSIGN_OR_RETURN(ITensor * k, iota(ctx, node, points, DataType::kFLOAT, "_k"));
    KILN_ASSIGN_OR_RETURN(ITensor * f, op(k, step, E::kPROD, "_k_step"));
    KILN_ASSIGN_OR_RETURN(f, op(f, lowMel, E::kSUM, "_mel"));
    KILN_ASSIGN_OR_RETURN(f, opS(f, kLn10 / 2595.0, E::kPROD, "_mel_scaled"));
    KILN_ASSIGN_OR_RETURN(f, addUnary(ctx, node, f, nvinfer1::UnaryOperation::kEXP, "_pow10"));
    KILN_ASSIGN_OR_RETURN(f, opS(f, 1.0, E::kSUB, "_pow10_m1"));
    KILN_ASSIGN_OR_RETURN(f, opS(f, 700.0, E::kPROD, "_hz"));
    KILN_ASSIGN_OR_RETURN(ITensor * dftF, castTo(ctx, node, dft, DataType::kFLOAT, "_dft_f"));
    KILN_ASSIGN_OR_RETURN(dftF, opS(dftF, 1.0, E::kSUM, "_dft_p1"));
    KILN_ASSIGN_OR_RETURN(f, op(f, dftF, E::kPROD, "_scaled_hz"));
    KILN_ASSIGN_OR_RETURN(f, op(f, rate, E::kDIV, "_bin_real"));
    KILN_ASSIGN_OR_RETURN(f, addUnary(ctx, node, f, nvinfer1::UnaryOperation::kFLOOR, "_bin"));

    // Left, centre and right bins of each filter as [1, nMel].
    KILN_ASSIGN_OR_RETURN(ITensor * idx, iota(ctx, node, nMel, DataType::kINT64, "_filters"));
    std::vector<ITensor*> edges;
    for (int32_t shift = 0; shift < 3; ++shift)
    {
        std::string const name = "_edge" + std::to_string(shift);
        KILN_ASSIGN_OR_RETURN(ITensor * at, opS(idx, static_cast<double>(shift), E::kSUM, name.c_str()));
        nvinfer1::IGatherLayer* g = ctx.network().addGather(*f, *at, 0);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, g, "addGather", name + "_gather"));
        KILN_ASSIGN_OR_RETURN(
            ITensor * e, reshape(ctx, node, g->getOutput(0), nvinfer1::Dims{2, {1, -1}}, name + "_row"));
        edges.push_back(e);
    }
    ITensor* const left = edges[0];
    ITensor* const centre = edges[1];
    ITensor* const right = edges[2];
    // Spectrogram bins j = 0 .. dft_length / 2 as [nSpec, 1].
    KILN_ASSIGN_OR_RETURN(ITensor * nSpec, opS(dft, 2.0, E::kFLOOR_DIV, "_half"));
    KILN_ASSIGN_OR_RETURN(nSpec, opS(nSpec, 1.0, E::kSUM, "_spec_bins"));
    KILN_ASSIGN_OR_RETURN(ITensor * j, iota(ctx, node, nSpec, DataType::kFLOAT, "_j"));
    KILN_ASSIGN_OR_RETURN(j, reshape(ctx, node, j, nvinfer1::Dims{2, {-1, 1}}, "_j_col"));

    // up = (j - L) / (C - L) for L <= j < C; down = (R - j) / (R - C) for C < j < R; 1 at j == C.
    KILN_ASSIGN_OR_RETURN(ITensor * up, op(j, left, E::kSUB, "_up_num"));
    KILN_ASSIGN_OR_RETURN(ITensor * upDen, op(centre, left, E::kSUB, "_up_den"));
    KILN_ASSIGN_OR_RETURN(up, op(up, upDen, E::kDIV, "_up"));
    KILN_ASSIGN_OR_RETURN(ITensor * down, op(right, j, E::kSUB, "_down_num"));
    KILN_ASSIGN_OR_RETURN(ITensor * downDen, op(right, centre, E::kSUB, "_down_den"));
    KILN_ASSIGN_OR_RETURN(down, op(down, downDen, E::kDIV, "_down"));
    KILN_ASSIGN_OR_RETURN(ITensor * belowLeft, op(j, left, E::kLESS, "_below_left"));
    KILN_ASSIGN_OR_RETURN(ITensor * belowCentre, op(j, centre, E::kLESS, "_below_centre"));
    KILN_ASSIGN_OR_RETURN(ITensor * atCentre, op(j, centre, E::kEQUAL, "_at_centre"));
    KILN_ASSIGN_OR_RETURN(ITensor * belowRight, op(j, right, E::kLESS, "_below_right"));
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, DataType::kFLOAT, 2));
    KILN_ASSIGN_OR_RETURN(ITensor * one, scalarLike(ctx, node, 1.0, DataType::kFLOAT, 2));
    // Built from the right: beyond R → 0; C < j < R → down; j == C → 1; L <= j < C → up; j < L → 0.
    KILN_ASSIGN_OR_RETURN(ITensor * w, composite::select(ctx, node, belowRight, down, zero, "_w_right"));
    KILN_ASSIGN_OR_RETURN(w, composite::select(ctx, node, belowCentre, up, w, "_w_up"));
    KILN_ASSIGN_OR_RETURN(w, composite::select(ctx, node, atCentre, one, w, "_w_centre"));
    KILN_ASSIGN_OR_RETURN(w, composite::select(ctx, node, belowLeft, zero, w, "_w_left"));
    KILN_ASSIGN_OR_RETURN(w, castTo(ctx, node, w, outType, "_out"));
    outputs = {OnnxValue(w)};
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> signalImporters()
{
    return {
        {"DFT", importDFT},
        {"STFT", importSTFT},
        {"MelWeightMatrix", importMelWeightMatrix},
    };
}

} // namespace kiln
