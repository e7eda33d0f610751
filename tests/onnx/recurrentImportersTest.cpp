// RNN, GRU and LSTM importers against a reference loop written in this test from the ONNX equations: bidirectional
// LSTM with bias, initial states, peepholes and clip; GRU with both linear_before_reset values and layout 1; RNN
// reverse with a run-time sequence_lens and a non-default activation; a dynamic batch with a profile; plus the error
// paths (dynamic sequence length, input_forget, unknown activation, wrong weight shapes).
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

struct Spec
{
    std::string op{"LSTM"};
    int64_t seq{3};
    int64_t batch{2};
    int64_t input{3};
    int64_t hidden{4};
    std::string direction{"forward"};
    bool bias{false};
    bool initH{false};
    bool initC{false};
    bool peep{false};
    bool linearBeforeReset{false};
    float clip{0.F}; //!< 0: no clip attribute
    std::vector<int64_t> seqLens; //!< empty: no sequence_lens input
    std::string rnnActivation;    //!< RNN only: "" (Tanh) or "LeakyRelu" with alpha 0.3
};

int64_t gatesOf(std::string const& op)
{
    return op == "LSTM" ? 4 : (op == "GRU" ? 3 : 1);
}

double sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}

struct Reference
{
    std::vector<double> y;  // [S, D, B, H]
    std::vector<double> yh; // [D, B, H]
    std::vector<double> yc; // [D, B, H]
};

//! The ONNX equations, element by element, in double (layout 0 tensors).
Reference reference(Spec const& s, std::map<std::string, HostTensor> const& in)
{
    int64_t const dirs = s.direction == "bidirectional" ? 2 : 1;
    int64_t const g = gatesOf(s.op);
    int64_t const hs = s.hidden;
    auto x = [&](int64_t t, int64_t b, int64_t i) { return in.at("X").at((t * s.batch + b) * s.input + i); };
    auto w = [&](int64_t d, int64_t row, int64_t i) { return in.at("W").at((d * g * hs + row) * s.input + i); };
    auto r = [&](int64_t d, int64_t row, int64_t k) { return in.at("R").at((d * g * hs + row) * hs + k); };
    auto wb = [&](int64_t d, int64_t row) { return s.bias ? in.at("B").at(d * 2 * g * hs + row) : 0.0; };
    auto rb = [&](int64_t d, int64_t row) { return s.bias ? in.at("B").at(d * 2 * g * hs + g * hs + row) : 0.0; };
    auto clip = [&](double v) { return s.clip > 0.F ? std::clamp(v, -double(s.clip), double(s.clip)) : v; };
    Reference out;
    out.y.assign(static_cast<size_t>(s.seq * dirs * s.batch * hs), 0.0);
    out.yh.assign(static_cast<size_t>(dirs * s.batch * hs), 0.0);
    out.yc.assign(out.yh.size(), 0.0);
    for (int64_t d = 0; d < dirs; ++d)
    {
        bool const reverse = s.direction == "reverse" || d == 1;
        for (int64_t b = 0; b < s.batch; ++b)
        {
            std::vector<double> h(static_cast<size_t>(hs), 0.0);
            std::vector<double> c(static_cast<size_t>(hs), 0.0);
            for (int64_t j = 0; j < hs; ++j)
            {
                h[j] = s.initH ? in.at("initial_h").at((d * s.batch + b) * hs + j) : 0.0;
                c[j] = s.initC ? in.at("initial_c").at((d * s.batch + b) * hs + j) : 0.0;
            }
            int64_t const len = s.seqLens.empty() ? s.seq : s.seqLens[static_cast<size_t>(b)];
            for (int64_t step = 0; step < len; ++step)
            {
                int64_t const t = reverse ? len - 1 - step : step;
                // xw[row] = X W^T + Wb, hr[row] = H R^T + Rb
                std::vector<double> xw(static_cast<size_t>(g * hs));
                std::vector<double> hr(static_cast<size_t>(g * hs));
                for (int64_t row = 0; row < g * hs; ++row)
                {
                    double a = wb(d, row);
                    for (int64_t i = 0; i < s.input; ++i)
                    {
                        a += x(t, b, i) * w(d, row, i);
                    }
                    double bsum = rb(d, row);
                    for (int64_t k = 0; k < hs; ++k)
                    {
                        bsum += h[k] * r(d, row, k);
                    }
                    xw[row] = a;
                    hr[row] = bsum;
                }
                std::vector<double> hNew(static_cast<size_t>(hs));
                if (s.op == "RNN")
                {
                    for (int64_t j = 0; j < hs; ++j)
                    {
                        double const v = clip(xw[j] + hr[j]);
                        hNew[j] = s.rnnActivation == "LeakyRelu" ? (v >= 0 ? v : 0.3 * v) : std::tanh(v);
                    }
                }
                else if (s.op == "GRU")
                {
                    std::vector<double> rg(static_cast<size_t>(hs));
                    for (int64_t j = 0; j < hs; ++j)
                    {
                        rg[j] = sigmoid(clip(xw[hs + j] + hr[hs + j]));
                    }
                    for (int64_t j = 0; j < hs; ++j)
                    {
                        double const z = sigmoid(clip(xw[j] + hr[j]));
                        double nPre = xw[2 * hs + j];
                        if (s.linearBeforeReset)
                        {
                            nPre += rg[j] * hr[2 * hs + j];
                        }
                        else
                        {
                            double acc = rb(d, 2 * hs + j);
                            for (int64_t k = 0; k < hs; ++k)
                            {
                                acc += rg[k] * h[k] * r(d, 2 * hs + j, k);
                            }
                            nPre += acc;
                        }
                        double const n = std::tanh(clip(nPre));
                        hNew[j] = (1.0 - z) * n + z * h[j];
                    }
                }
                else
                {
                    auto p = [&](int64_t k, int64_t j) {
                        return s.peep ? in.at("P").at(d * 3 * hs + k * hs + j) : 0.0;
                    };
                    for (int64_t j = 0; j < hs; ++j)
                    {
                        double const ig = sigmoid(clip(xw[j] + hr[j] + p(0, j) * c[j]));
                        double const fg = sigmoid(clip(xw[2 * hs + j] + hr[2 * hs + j] + p(2, j) * c[j]));
                        double const cc = std::tanh(clip(xw[3 * hs + j] + hr[3 * hs + j]));
                        double const cNew = fg * c[j] + ig * cc;
                        double const og = sigmoid(clip(xw[hs + j] + hr[hs + j] + p(1, j) * cNew));
                        hNew[j] = og * std::tanh(cNew);
                        c[j] = cNew;
                    }
                }
                h = hNew;
                for (int64_t j = 0; j < hs; ++j)
                {
                    out.y[static_cast<size_t>(((t * dirs + d) * s.batch + b) * hs + j)] = h[j];
                }
            }
            for (int64_t j = 0; j < hs; ++j)
            {
                out.yh[static_cast<size_t>((d * s.batch + b) * hs + j)] = h[j];
                out.yc[static_cast<size_t>((d * s.batch + b) * hs + j)] = c[j];
            }
        }
    }
    return out;
}

HostTensor toHost(std::vector<double> const& v, std::vector<int64_t> const& dims)
{
    return HostTensor::fromValues(DataType::kFLOAT, makeDims(dims), v);
}

//! Permutes a dense float tensor: output dimension i is input dimension perm[i].
HostTensor permute(HostTensor const& t, std::vector<int32_t> const& perm)
{
    int32_t const rank = t.dims.nbDims;
    std::vector<int64_t> outDims(static_cast<size_t>(rank));
    for (int32_t i = 0; i < rank; ++i)
    {
        outDims[i] = t.dims.d[perm[i]];
    }
    HostTensor out(t.type, makeDims(outDims));
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    for (int64_t o = 0; o < out.volume(); ++o)
    {
        int64_t rem = o;
        for (int32_t i = rank - 1; i >= 0; --i)
        {
            idx[perm[i]] = rem % outDims[i];
            rem /= outDims[i];
        }
        int64_t src = 0;
        for (int32_t i = 0; i < rank; ++i)
        {
            src = src * t.dims.d[i] + idx[i];
        }
        out.set(o, t.at(src));
    }
    return out;
}

class RecurrentImporterTest : public ::testing::Test
{
protected:
    //! Builds the model of `s` (layout 0 or 1), runs it and compares Y, Y_h (and Y_c) with the reference.
    //! With `dynamicBatch`, the batch dimension of every input is -1 and the profile spans batches 1 to 8.
    void check(Spec const& s, int64_t layout = 0, bool dynamicBatch = false)
    {
        int64_t const dirs = s.direction == "bidirectional" ? 2 : 1;
        int64_t const g = gatesOf(s.op);
        std::map<std::string, HostTensor> in;
        in["X"] = HostTensor::random(DataType::kFLOAT, makeDims({s.seq, s.batch, s.input}), mRng, -1.5, 1.5);
        in["W"] = HostTensor::random(DataType::kFLOAT, makeDims({dirs, g * s.hidden, s.input}), mRng, -0.8, 0.8);
        in["R"] = HostTensor::random(DataType::kFLOAT, makeDims({dirs, g * s.hidden, s.hidden}), mRng, -0.8, 0.8);
        std::vector<std::string> names{"X", "W", "R"};
        auto optional = [&](bool present, std::string const& name, std::vector<int64_t> const& dims, DataType type) {
            if (present)
            {
                in[name] = type == DataType::kFLOAT ? HostTensor::random(type, makeDims(dims), mRng, -0.7, 0.7)
                                                    : HostTensor::fromValues(type, makeDims(dims),
                                                        std::vector<double>(s.seqLens.begin(), s.seqLens.end()));
                names.push_back(name);
            }
            else
            {
                names.emplace_back("");
            }
        };
        optional(s.bias, "B", {dirs, 2 * g * s.hidden}, DataType::kFLOAT);
        optional(!s.seqLens.empty(), "sequence_lens", {s.batch}, DataType::kINT32);
        optional(s.initH, "initial_h", {dirs, s.batch, s.hidden}, DataType::kFLOAT);
        optional(s.initC, "initial_c", {dirs, s.batch, s.hidden}, DataType::kFLOAT);
        optional(s.peep, "P", {dirs, 3 * s.hidden}, DataType::kFLOAT);
        while (!names.empty() && names.back().empty())
        {
            names.pop_back();
        }
        Reference const ref = reference(s, in);

        // The model sees batch-major tensors under layout 1.
        std::map<std::string, HostTensor> feed = in;
        if (layout == 1)
        {
            feed["X"] = permute(in.at("X"), {1, 0, 2});
            for (char const* st : {"initial_h", "initial_c"})
            {
                if (feed.count(st) != 0)
                {
                    feed[st] = permute(in.at(st), {1, 0, 2});
                }
            }
        }
        OnnxModelBuilder model(14);
        for (std::string const& n : names)
        {
            if (!n.empty())
            {
                std::vector<int64_t> dims(feed.at(n).dims.d, feed.at(n).dims.d + feed.at(n).dims.nbDims);
                if (dynamicBatch && batchAxis(n, layout) >= 0)
                {
                    dims[static_cast<size_t>(batchAxis(n, layout))] = -1;
                }
                model.addInput(n, feed.at(n).type, dims);
            }
        }
        std::vector<::onnx::AttributeProto> attrs{
            intAttr("hidden_size", s.hidden), stringAttr("direction", s.direction), intAttr("layout", layout)};
        if (s.op == "GRU")
        {
            attrs.push_back(intAttr("linear_before_reset", s.linearBeforeReset ? 1 : 0));
        }
        if (s.clip > 0.F)
        {
            attrs.push_back(floatAttr("clip", s.clip));
        }
        if (!s.rnnActivation.empty())
        {
            std::vector<std::string> const names(static_cast<size_t>(dirs), s.rnnActivation);
            attrs.push_back(stringsAttr("activations", names));
            attrs.push_back(floatsAttr("activation_alpha", std::vector<float>(static_cast<size_t>(dirs), 0.3F)));
        }
        std::vector<std::string> outs{"Y", "Y_h"};
        if (s.op == "LSTM")
        {
            outs.emplace_back("Y_c");
        }
        model.addNode(s.op, names, outs, attrs);
        for (std::string const& o : outs)
        {
            model.addOutput(o, DataType::kFLOAT);
        }
        std::map<std::string, HostTensor> feedUsed;
        for (std::string const& n : names)
        {
            if (!n.empty())
            {
                feedUsed[n] = feed.at(n);
            }
        }
        std::map<std::string, HostTensor> result;
        if (dynamicBatch)
        {
            OnnxRunner runner;
            ASSERT_TRUE(runner.parse(model));
            for (auto const& [n, t] : feedUsed)
            {
                int32_t const axis = batchAxis(n, layout);
                if (axis < 0)
                {
                    continue;
                }
                std::vector<int64_t> lo(t.dims.d, t.dims.d + t.dims.nbDims);
                std::vector<int64_t> hi = lo;
                lo[static_cast<size_t>(axis)] = 1;
                hi[static_cast<size_t>(axis)] = 8;
                runner.runner().setProfileDims(n, lo, std::vector<int64_t>(t.dims.d, t.dims.d + t.dims.nbDims), hi);
            }
            ASSERT_TRUE(runner.build());
            result = runner.run(feedUsed);
        }
        else
        {
            result = runOnnxModel(model, feedUsed);
        }
        ASSERT_EQ(result.count("Y"), 1U);
        HostTensor y = toHost(ref.y, {s.seq, dirs, s.batch, s.hidden});
        HostTensor yh = toHost(ref.yh, {dirs, s.batch, s.hidden});
        HostTensor yc = toHost(ref.yc, {dirs, s.batch, s.hidden});
        if (layout == 1)
        {
            y = permute(y, {2, 0, 1, 3});
            yh = permute(yh, {1, 0, 2});
            yc = permute(yc, {1, 0, 2});
        }
        EXPECT_TRUE(allClose(result["Y"], y, 1e-5, 1e-4));
        EXPECT_TRUE(allClose(result["Y_h"], yh, 1e-5, 1e-4));
        if (s.op == "LSTM")
        {
            EXPECT_TRUE(allClose(result["Y_c"], yc, 1e-5, 1e-4));
        }
    }

    //! The batch axis of an input under `layout`, or -1 for inputs without one.
    static int32_t batchAxis(std::string const& name, int64_t layout)
    {
        if (name == "X" || name == "initial_h" || name == "initial_c")
        {
            return layout == 1 ? 0 : 1;
        }
        return name == "sequence_lens" ? 0 : -1;
    }

    std::mt19937 mRng{4242};
};

TEST_F(RecurrentImporterTest, LstmBidirectionalWithBiasStatesPeepholesAndClip)
{
    Spec s;
    s.direction = "bidirectional";
    s.bias = s.initH = s.initC = s.peep = true;
    s.clip = 1.2F;
    check(s);
}

TEST_F(RecurrentImporterTest, LstmReverseZeroStatesBatchMajor)
{
    Spec s;
    s.direction = "reverse";
    s.seq = 4;
    check(s, 1);
}

TEST_F(RecurrentImporterTest, GruLinearBeforeResetBothValues)
{
    for (bool lbr : {false, true})
    {
        Spec s;
        s.op = "GRU";
        s.direction = "bidirectional";
        s.bias = s.initH = true;
        s.linearBeforeReset = lbr;
        SCOPED_TRACE(lbr ? "linear_before_reset=1" : "linear_before_reset=0");
        check(s);
    }
}

TEST_F(RecurrentImporterTest, GruLayoutOneWithoutInitialState)
{
    Spec s;
    s.op = "GRU";
    s.bias = true;
    check(s, 1);
}

TEST_F(RecurrentImporterTest, RnnRuntimeSequenceLensBothDirections)
{
    Spec s;
    s.op = "RNN";
    s.seq = 4;
    s.batch = 3;
    s.direction = "bidirectional";
    s.bias = s.initH = true;
    s.seqLens = {4, 2, 1};
    s.rnnActivation = "LeakyRelu";
    check(s);
}

TEST_F(RecurrentImporterTest, LstmRuntimeSequenceLensMasksStatesAndY)
{
    Spec s;
    s.seq = 3;
    s.batch = 3;
    s.bias = s.initH = s.initC = true;
    s.seqLens = {1, 3, 2};
    check(s);
}

TEST_F(RecurrentImporterTest, DynamicBatchWithProfile)
{
    for (int64_t batch : {1, 5})
    {
        Spec s;
        s.batch = batch;
        s.direction = "bidirectional";
        s.bias = s.initH = s.initC = true;
        SCOPED_TRACE("LSTM batch " + std::to_string(batch));
        check(s, 0, true);
    }
    Spec g;
    g.op = "GRU";
    g.batch = 3;
    g.initH = true;
    g.seqLens = {3, 1, 2};
    SCOPED_TRACE("GRU batch-major, run-time sequence_lens");
    check(g, 1, true);
}

TEST_F(RecurrentImporterTest, DynamicSequenceLengthIsUnsupported)
{
    OnnxModelBuilder model(14);
    model.addInput("X", DataType::kFLOAT, {-1, 2, 3});
    model.addInput("W", DataType::kFLOAT, {1, 16, 3});
    model.addInput("R", DataType::kFLOAT, {1, 16, 4});
    model.addNode("LSTM", {"X", "W", "R"}, {"", "Y_h"}, {intAttr("hidden_size", 4)});
    model.addOutput("Y_h", DataType::kFLOAT);
    ParseOutcome const outcome = parseOnly(model);
    EXPECT_FALSE(outcome.ok);
    EXPECT_TRUE(outcome.hasError("sequence length of input X must be known at build time")) << outcome.allErrors();
    EXPECT_TRUE(outcome.hasError("(LSTM)")) << outcome.allErrors();
}

TEST_F(RecurrentImporterTest, InputForgetIsUnsupported)
{
    OnnxModelBuilder model(14);
    model.addInput("X", DataType::kFLOAT, {2, 2, 3});
    model.addInput("W", DataType::kFLOAT, {1, 16, 3});
    model.addInput("R", DataType::kFLOAT, {1, 16, 4});
    model.addNode("LSTM", {"X", "W", "R"}, {"Y"}, {intAttr("hidden_size", 4), intAttr("input_forget", 1)});
    model.addOutput("Y", DataType::kFLOAT);
    expectParseError(model, "'input_forget'");
}

TEST_F(RecurrentImporterTest, UnknownActivationAndWrongWeightShape)
{
    {
        OnnxModelBuilder model(14);
        model.addInput("X", DataType::kFLOAT, {2, 2, 3});
        model.addInput("W", DataType::kFLOAT, {1, 4, 3});
        model.addInput("R", DataType::kFLOAT, {1, 4, 4});
        model.addNode(
            "RNN", {"X", "W", "R"}, {"Y"}, {intAttr("hidden_size", 4), stringsAttr("activations", {"Swish"})});
        model.addOutput("Y", DataType::kFLOAT);
        expectParseError(model, "activation function 'Swish' is not supported");
    }
    {
        OnnxModelBuilder model(14);
        model.addInput("X", DataType::kFLOAT, {2, 2, 3});
        model.addInput("W", DataType::kFLOAT, {1, 9, 3}); // GRU with hidden 4 needs 12 rows
        model.addInput("R", DataType::kFLOAT, {1, 9, 4});
        model.addNode("GRU", {"X", "W", "R"}, {"Y"}, {intAttr("hidden_size", 4)});
        model.addOutput("Y", DataType::kFLOAT);
        expectParseError(model, "W must be [1, 12, input_size]");
    }
}

} // namespace
} // namespace kiln::test
