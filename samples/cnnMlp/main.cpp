// main.cpp — sampleCnnMlp: builds a small CNN and a 3-layer MLP with the TensorRT 10 API (public headers only),
// saves each engine to a file, loads it back, runs it for two batch sizes, checks every output against a plain
// C++ reference and prints build/save/load/inference timings.
#include <NvInfer.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

//! Prints warnings and errors (everything with --verbose) with a severity tag.
class SampleLogger : public ILogger
{
public:
    explicit SampleLogger(bool verbose)
        : mVerbose(verbose)
    {
    }

    void log(Severity severity, char const* msg) noexcept override
    {
        if (!mVerbose && severity > Severity::kWARNING)
        {
            return;
        }
        static char const* const kTAGS[] = {"INTERNAL_ERROR", "ERROR", "WARNING", "INFO", "VERBOSE"};
        auto const index = static_cast<int32_t>(severity);
        std::fprintf(stderr, "[%s] %s\n", (index >= 0 && index <= 4) ? kTAGS[index] : "?", msg);
    }

private:
    bool mVerbose;
};

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Dims makeDims(std::initializer_list<int64_t> extents)
{
    Dims dims{};
    dims.nbDims = static_cast<int32_t>(extents.size());
    int32_t i = 0;
    for (int64_t e : extents)
    {
        dims.d[i++] = e;
    }
    return dims;
}

int64_t volume(Dims const& dims)
{
    int64_t v = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        v *= dims.d[i];
    }
    return v;
}

std::string toString(Dims const& dims)
{
    std::string s = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        s += (i ? "," : "") + std::to_string(dims.d[i]);
    }
    return s + "]";
}

//! Random values in [-scale, scale] from the sample's fixed-seed generator.
std::vector<float> randomVector(std::mt19937& rng, size_t count, float scale)
{
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(count);
    for (auto& x : v)
    {
        x = dist(rng);
    }
    return v;
}

Weights asWeights(std::vector<float> const& v)
{
    return Weights{DataType::kFLOAT, v.data(), static_cast<int64_t>(v.size())};
}

//! out[n][m] = sum_k in[n][k] * w[k][m] + b[m]  (row-major, the layout IMatrixMultiply sees for [N,K] x [K,M]).
std::vector<double> referenceDense(std::vector<double> const& in, int64_t n, int64_t k, std::vector<float> const& w,
    std::vector<float> const& b, int64_t m, bool relu)
{
    std::vector<double> out(static_cast<size_t>(n * m));
    for (int64_t i = 0; i < n; ++i)
    {
        for (int64_t j = 0; j < m; ++j)
        {
            double acc = b[j];
            for (int64_t q = 0; q < k; ++q)
            {
                acc += in[i * k + q] * static_cast<double>(w[q * m + j]);
            }
            out[i * m + j] = relu ? std::max(acc, 0.0) : acc;
        }
    }
    return out;
}

//! A network the sample builds, with the reference that defines what it must compute.
class Model
{
public:
    virtual ~Model() = default;
    virtual char const* name() const = 0;
    virtual char const* inputName() const = 0;
    virtual char const* outputName() const = 0;
    //! Input shape for a batch size; -1 gives the dynamic shape used in the network definition.
    virtual Dims inputDims(int64_t batch) const = 0;
    virtual int64_t outputPerSample() const = 0;
    //! Adds the layers to an empty network; false if any API call failed.
    virtual bool define(INetworkDefinition& network) = 0;
    virtual std::vector<double> reference(std::vector<float> const& input, int64_t batch) const = 0;
};

//! conv3x3(3->8)+bias, ReLU, maxpool 2x2, conv3x3(8->16)+bias, ReLU, global average (IReduceLayer),
//! fully connected via IMatrixMultiply with a constant, elementwise bias, softmax. Input [N,3,16,16].
class CnnModel : public Model
{
public:
    explicit CnnModel(std::mt19937& rng)
        : mConv1W(randomVector(rng, kC1 * kCIN * 9, 1.0F / std::sqrt(float(kCIN * 9))))
        , mConv1B(randomVector(rng, kC1, 0.1F))
        , mConv2W(randomVector(rng, kC2 * kC1 * 9, 1.0F / std::sqrt(float(kC1 * 9))))
        , mConv2B(randomVector(rng, kC2, 0.1F))
        , mFcW(randomVector(rng, kC2 * kCLASSES, 1.0F / std::sqrt(float(kC2))))
        , mFcB(randomVector(rng, kCLASSES, 0.1F))
    {
    }

    char const* name() const override
    {
        return "cnn";
    }
    char const* inputName() const override
    {
        return "image";
    }
    char const* outputName() const override
    {
        return "probabilities";
    }
    Dims inputDims(int64_t batch) const override
    {
        return makeDims({batch, kCIN, kH, kW});
    }
    int64_t outputPerSample() const override
    {
        return kCLASSES;
    }

    bool define(INetworkDefinition& network) override
    {
        ITensor* x = network.addInput(inputName(), DataType::kFLOAT, inputDims(-1));
        if (x == nullptr)
        {
            return false;
        }
        x = convRelu(network, *x, kC1, mConv1W, mConv1B);
        if (x == nullptr)
        {
            return false;
        }
        IPoolingLayer* pool = network.addPoolingNd(*x, PoolingType::kMAX, makeDims({2, 2}));
        if (pool == nullptr)
        {
            return false;
        }
        pool->setStrideNd(makeDims({2, 2}));
        x = convRelu(network, *pool->getOutput(0), kC2, mConv2W, mConv2B);
        if (x == nullptr)
        {
            return false;
        }
        // Global average over H and W: [N,16,8,8] -> [N,16].
        IReduceLayer* gap = network.addReduce(*x, ReduceOperation::kAVG, (1U << 2) | (1U << 3), false);
        if (gap == nullptr)
        {
            return false;
        }
        IConstantLayer* fcW = network.addConstant(makeDims({kC2, kCLASSES}), asWeights(mFcW));
        IConstantLayer* fcB = network.addConstant(makeDims({1, kCLASSES}), asWeights(mFcB));
        if (fcW == nullptr || fcB == nullptr)
        {
            return false;
        }
        IMatrixMultiplyLayer* fc = network.addMatrixMultiply(
            *gap->getOutput(0), MatrixOperation::kNONE, *fcW->getOutput(0), MatrixOperation::kNONE);
        if (fc == nullptr)
        {
            return false;
        }
        IElementWiseLayer* biased
            = network.addElementWise(*fc->getOutput(0), *fcB->getOutput(0), ElementWiseOperation::kSUM);
        if (biased == nullptr)
        {
            return false;
        }
        ISoftMaxLayer* softmax = network.addSoftMax(*biased->getOutput(0));
        if (softmax == nullptr)
        {
            return false;
        }
        softmax->setAxes(1U << 1);
        ITensor* out = softmax->getOutput(0);
        out->setName(outputName());
        network.markOutput(*out);
        return true;
    }

    std::vector<double> reference(std::vector<float> const& input, int64_t n) const override
    {
        std::vector<double> x(input.begin(), input.end());
        x = conv3x3Relu(x, n, kCIN, kH, kW, mConv1W, mConv1B, kC1);
        x = maxPool2x2(x, n, kC1, kH, kW);
        int64_t const h2 = kH / 2;
        int64_t const w2 = kW / 2;
        x = conv3x3Relu(x, n, kC1, h2, w2, mConv2W, mConv2B, kC2);
        std::vector<double> gap(static_cast<size_t>(n * kC2), 0.0);
        for (int64_t i = 0; i < n * kC2; ++i)
        {
            for (int64_t p = 0; p < h2 * w2; ++p)
            {
                gap[i] += x[i * h2 * w2 + p];
            }
            gap[i] /= static_cast<double>(h2 * w2);
        }
        std::vector<double> logits = referenceDense(gap, n, kC2, mFcW, mFcB, kCLASSES, false);
        for (int64_t i = 0; i < n; ++i)
        {
            double* row = &logits[i * kCLASSES];
            double const top = *std::max_element(row, row + kCLASSES);
            double sum = 0.0;
            for (int64_t j = 0; j < kCLASSES; ++j)
            {
                row[j] = std::exp(row[j] - top);
                sum += row[j];
            }
            for (int64_t j = 0; j < kCLASSES; ++j)
            {
                row[j] /= sum;
            }
        }
        return logits;
    }

private:
    static constexpr int64_t kCIN = 3;
    static constexpr int64_t kH = 16;
    static constexpr int64_t kW = 16;
    static constexpr int64_t kC1 = 8;
    static constexpr int64_t kC2 = 16;
    static constexpr int64_t kCLASSES = 10;

    //! 3x3 convolution, stride 1, padding 1, with bias, followed by ReLU.
    static ITensor* convRelu(INetworkDefinition& network, ITensor& input, int64_t outMaps,
        std::vector<float> const& weights, std::vector<float> const& bias)
    {
        IConvolutionLayer* conv
            = network.addConvolutionNd(input, outMaps, makeDims({3, 3}), asWeights(weights), asWeights(bias));
        if (conv == nullptr)
        {
            return nullptr;
        }
        conv->setPaddingNd(makeDims({1, 1}));
        IActivationLayer* relu = network.addActivation(*conv->getOutput(0), ActivationType::kRELU);
        return relu == nullptr ? nullptr : relu->getOutput(0);
    }

    //! NCHW input, KCRS weights (TensorRT's kernel layout).
    static std::vector<double> conv3x3Relu(std::vector<double> const& in, int64_t n, int64_t c, int64_t h, int64_t w,
        std::vector<float> const& weights, std::vector<float> const& bias, int64_t k)
    {
        std::vector<double> out(static_cast<size_t>(n * k * h * w));
        for (int64_t b = 0; b < n; ++b)
        {
            for (int64_t o = 0; o < k; ++o)
            {
                for (int64_t y = 0; y < h; ++y)
                {
                    for (int64_t x = 0; x < w; ++x)
                    {
                        double acc = bias[o];
                        for (int64_t i = 0; i < c; ++i)
                        {
                            for (int64_t r = 0; r < 3; ++r)
                            {
                                for (int64_t s = 0; s < 3; ++s)
                                {
                                    int64_t const iy = y + r - 1;
                                    int64_t const ix = x + s - 1;
                                    if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                                    {
                                        continue;
                                    }
                                    acc += in[((b * c + i) * h + iy) * w + ix]
                                        * static_cast<double>(weights[((o * c + i) * 3 + r) * 3 + s]);
                                }
                            }
                        }
                        out[((b * k + o) * h + y) * w + x] = std::max(acc, 0.0);
                    }
                }
            }
        }
        return out;
    }

    static std::vector<double> maxPool2x2(std::vector<double> const& in, int64_t n, int64_t c, int64_t h, int64_t w)
    {
        int64_t const oh = h / 2;
        int64_t const ow = w / 2;
        std::vector<double> out(static_cast<size_t>(n * c * oh * ow));
        for (int64_t p = 0; p < n * c; ++p)
        {
            for (int64_t y = 0; y < oh; ++y)
            {
                for (int64_t x = 0; x < ow; ++x)
                {
                    double const* base = &in[(p * h + 2 * y) * w + 2 * x];
                    out[(p * oh + y) * ow + x] = std::max(std::max(base[0], base[1]), std::max(base[w], base[w + 1]));
                }
            }
        }
        return out;
    }

    std::vector<float> mConv1W, mConv1B, mConv2W, mConv2B, mFcW, mFcB;
};

//! Three fully connected layers (IMatrixMultiply with constant weights + elementwise bias), ReLU between them.
//! Input [N,32], output logits [N,10].
class MlpModel : public Model
{
public:
    explicit MlpModel(std::mt19937& rng)
    {
        int64_t in = kIN;
        for (int64_t out : {kHIDDEN, kHIDDEN, kOUT})
        {
            mW.push_back(randomVector(rng, static_cast<size_t>(in * out), 1.0F / std::sqrt(float(in))));
            mB.push_back(randomVector(rng, static_cast<size_t>(out), 0.1F));
            mShapes.push_back({in, out});
            in = out;
        }
    }

    char const* name() const override
    {
        return "mlp";
    }
    char const* inputName() const override
    {
        return "features";
    }
    char const* outputName() const override
    {
        return "logits";
    }
    Dims inputDims(int64_t batch) const override
    {
        return makeDims({batch, kIN});
    }
    int64_t outputPerSample() const override
    {
        return kOUT;
    }

    bool define(INetworkDefinition& network) override
    {
        ITensor* x = network.addInput(inputName(), DataType::kFLOAT, inputDims(-1));
        for (size_t layer = 0; layer < mW.size() && x != nullptr; ++layer)
        {
            auto const [in, out] = mShapes[layer];
            IConstantLayer* w = network.addConstant(makeDims({in, out}), asWeights(mW[layer]));
            IConstantLayer* b = network.addConstant(makeDims({1, out}), asWeights(mB[layer]));
            if (w == nullptr || b == nullptr)
            {
                return false;
            }
            IMatrixMultiplyLayer* mm
                = network.addMatrixMultiply(*x, MatrixOperation::kNONE, *w->getOutput(0), MatrixOperation::kNONE);
            if (mm == nullptr)
            {
                return false;
            }
            IElementWiseLayer* sum
                = network.addElementWise(*mm->getOutput(0), *b->getOutput(0), ElementWiseOperation::kSUM);
            if (sum == nullptr)
            {
                return false;
            }
            x = sum->getOutput(0);
            if (layer + 1 < mW.size())
            {
                IActivationLayer* relu = network.addActivation(*x, ActivationType::kRELU);
                x = relu == nullptr ? nullptr : relu->getOutput(0);
            }
        }
        if (x == nullptr)
        {
            return false;
        }
        x->setName(outputName());
        network.markOutput(*x);
        return true;
    }

    std::vector<double> reference(std::vector<float> const& input, int64_t n) const override
    {
        std::vector<double> x(input.begin(), input.end());
        for (size_t layer = 0; layer < mW.size(); ++layer)
        {
            auto const [in, out] = mShapes[layer];
            x = referenceDense(x, n, in, mW[layer], mB[layer], out, layer + 1 < mW.size());
        }
        return x;
    }

private:
    static constexpr int64_t kIN = 32;
    static constexpr int64_t kHIDDEN = 64;
    static constexpr int64_t kOUT = 10;

    std::vector<std::vector<float>> mW;
    std::vector<std::vector<float>> mB;
    std::vector<std::pair<int64_t, int64_t>> mShapes;
};

struct Options
{
    std::string dir = ".";
    int32_t iterations = 100;
    bool verbose = false;
    bool help = false;
};

constexpr double kRTOL = 1e-4;
constexpr double kATOL = 1e-6;
constexpr int64_t kPROFILE_MIN = 1;
constexpr int64_t kPROFILE_OPT = 4;
constexpr int64_t kPROFILE_MAX = 8;

//! Builds, saves, reloads, runs and checks one model. Returns true if every check passed.
bool runModel(Model& model, Options const& options, ILogger& logger, std::mt19937& rng)
{
    std::printf("\n== %s ==\n", model.name());
    auto fail = [&](char const* step) {
        std::printf("  %s: FAILED at %s\n", model.name(), step);
        return false;
    };

    // ---- build ----
    auto const buildStart = Clock::now();
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    if (!builder)
    {
        return fail("createInferBuilder");
    }
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    if (!network || !model.define(*network))
    {
        return fail("network definition");
    }
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    if (!config)
    {
        return fail("createBuilderConfig");
    }
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    if (profile == nullptr || !profile->setDimensions(model.inputName(), OptProfileSelector::kMIN, model.inputDims(kPROFILE_MIN))
        || !profile->setDimensions(model.inputName(), OptProfileSelector::kOPT, model.inputDims(kPROFILE_OPT))
        || !profile->setDimensions(model.inputName(), OptProfileSelector::kMAX, model.inputDims(kPROFILE_MAX))
        || config->addOptimizationProfile(profile) < 0)
    {
        return fail("optimization profile");
    }
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan || plan->size() == 0)
    {
        return fail("buildSerializedNetwork");
    }
    double const buildMs = millisecondsSince(buildStart);

    // ---- save ----
    std::string const path = options.dir + "/" + model.name() + ".engine";
    auto const saveStart = Clock::now();
    {
        std::ofstream file(path, std::ios::binary);
        file.write(static_cast<char const*>(plan->data()), static_cast<std::streamsize>(plan->size()));
        if (!file)
        {
            return fail("writing the engine file");
        }
    }
    double const saveMs = millisecondsSince(saveStart);
    size_t const planBytes = plan->size();
    plan.reset();

    // ---- load ----
    auto const loadStart = Clock::now();
    std::vector<char> blob;
    {
        std::ifstream file(path, std::ios::binary | std::ios::ate);
        if (!file)
        {
            return fail("opening the engine file");
        }
        blob.resize(static_cast<size_t>(file.tellg()));
        file.seekg(0);
        file.read(blob.data(), static_cast<std::streamsize>(blob.size()));
        if (!file)
        {
            return fail("reading the engine file");
        }
    }
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    if (!runtime)
    {
        return fail("createInferRuntime");
    }
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(blob.data(), blob.size())};
    if (!engine)
    {
        return fail("deserializeCudaEngine");
    }
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    if (!context)
    {
        return fail("createExecutionContext");
    }
    double const loadMs = millisecondsSince(loadStart);

    std::printf("  engine %s: %zu bytes, %d I/O tensors:", path.c_str(), planBytes, engine->getNbIOTensors());
    for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
    {
        char const* tensor = engine->getIOTensorName(i);
        std::printf(" %s %s%s", engine->getTensorIOMode(tensor) == TensorIOMode::kINPUT ? "in" : "out", tensor,
            toString(engine->getTensorShape(tensor)).c_str());
    }
    std::printf("\n  build %.1f ms, save %.2f ms, load %.2f ms\n", buildMs, saveMs, loadMs);

    // ---- run and check ----
    bool ok = true;
    for (int64_t batch : {int64_t{1}, int64_t{5}})
    {
        Dims const inDims = model.inputDims(batch);
        if (!context->setInputShape(model.inputName(), inDims))
        {
            return fail("setInputShape");
        }
        Dims const outDims = context->getTensorShape(model.outputName());
        if (outDims.nbDims != 2 || outDims.d[0] != batch || outDims.d[1] != model.outputPerSample())
        {
            std::printf("  batch %lld: unexpected output shape %s\n", static_cast<long long>(batch),
                toString(outDims).c_str());
            return fail("output shape");
        }
        std::vector<float> input = randomVector(rng, static_cast<size_t>(volume(inDims)), 1.0F);
        // Poisoned so that an output the engine never writes cannot pass the check.
        std::vector<float> output(static_cast<size_t>(volume(outDims)), std::numeric_limits<float>::quiet_NaN());
        // On Kiln's CPU backend "device" memory is host memory, and a null stream means synchronous execution.
        if (!context->setTensorAddress(model.inputName(), input.data())
            || !context->setTensorAddress(model.outputName(), output.data()))
        {
            return fail("setTensorAddress");
        }
        if (!context->enqueueV3(nullptr))
        {
            return fail("enqueueV3");
        }

        std::vector<double> const expected = model.reference(input, batch);
        double maxAbs = 0.0;
        double maxRel = 0.0;
        int64_t bad = 0;
        for (size_t i = 0; i < expected.size(); ++i)
        {
            double const err = std::fabs(static_cast<double>(output[i]) - expected[i]);
            maxAbs = std::max(maxAbs, err);
            maxRel = std::max(maxRel, err / std::max(std::fabs(expected[i]), 1e-12));
            if (!(err <= kRTOL * std::fabs(expected[i]) + kATOL))
            {
                if (bad++ < 5)
                {
                    std::printf("  batch %lld: output[%zu] = %.8g, expected %.8g\n", static_cast<long long>(batch),
                        i, static_cast<double>(output[i]), expected[i]);
                }
            }
        }

        auto const runStart = Clock::now();
        bool runsOk = true;
        for (int32_t it = 0; it < options.iterations; ++it)
        {
            runsOk = context->enqueueV3(nullptr) && runsOk;
        }
        double const meanMs = millisecondsSince(runStart) / std::max(options.iterations, 1);

        std::printf("  batch %lld: output %s, max abs err %.3g, max rel err %.3g, %s; inference %.4f ms (mean of %d)\n",
            static_cast<long long>(batch), toString(outDims).c_str(), maxAbs, maxRel, bad == 0 ? "ok" : "MISMATCH",
            meanMs, options.iterations);
        ok = ok && bad == 0 && runsOk;
    }
    std::printf("  %s: %s\n", model.name(), ok ? "PASSED" : "FAILED");
    return ok;
}

bool parseOptions(int argc, char** argv, Options& options)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "--dir" && i + 1 < argc)
        {
            options.dir = argv[++i];
        }
        else if (arg == "--iterations" && i + 1 < argc)
        {
            options.iterations = std::max(1, std::atoi(argv[++i]));
        }
        else if (arg == "--verbose")
        {
            options.verbose = true;
        }
        else
        {
            std::printf("usage: %s [--dir DIR] [--iterations N] [--verbose]\n"
                        "  --dir DIR        where cnn.engine and mlp.engine are written (default: .)\n"
                        "  --iterations N   timed inference runs per batch size (default: 100)\n"
                        "  --verbose        print every log message\n",
                argv[0]);
            options.help = true;
            return arg == "--help" || arg == "-h";
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    Options options;
    if (!parseOptions(argc, argv, options))
    {
        return 2;
    }
    if (options.help)
    {
        return 0;
    }

    // Line-buffered, so progress stays visible even if something aborts the process.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    SampleLogger logger(options.verbose);
    std::printf("sampleCnnMlp: TensorRT API %d.%d, library version %d\n", NV_TENSORRT_MAJOR, NV_TENSORRT_MINOR,
        static_cast<int>(getInferLibVersion()));

    std::mt19937 rng(20240601U); // fixed seed: weights and inputs are the same on every run
    CnnModel cnn(rng);
    MlpModel mlp(rng);

    bool passed = true;
    for (Model* model : {static_cast<Model*>(&cnn), static_cast<Model*>(&mlp)})
    {
        passed = runModel(*model, options, logger, rng) && passed;
    }
    std::printf("\n%s\n", passed ? "PASSED" : "FAILED");
    return passed ? 0 : 1;
}
