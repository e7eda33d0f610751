// Tests of INMSLayer: random boxes and scores (shared and per-class boxes, both box formats, IoU and score
// thresholds, maxOutputBoxesPerClass from a constant and from a shape tensor input) against a greedy reference, the
// data-dependent [count, 3] output through an IOutputAllocator, the count output, and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "layers/dataDependentRun.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

struct Params
{
    int64_t batch{2};
    int64_t boxes{12};
    int64_t classes{3};
    bool perClassBoxes{false};
    BoundingBoxFormat format{BoundingBoxFormat::kCORNER_PAIRS};
    int32_t maxPerClass{4};
    float iou{0.4F};
    float score{0.2F};
    bool thresholds{true};
    bool maxFromInput{false};
    int32_t topK{5000};
};

double overlap(std::array<double, 4> a, std::array<double, 4> b, BoundingBoxFormat f)
{
    auto corners = [&](std::array<double, 4> v) {
        if (f == BoundingBoxFormat::kCENTER_SIZES)
        {
            return std::array<double, 4>{v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2};
        }
        return std::array<double, 4>{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
    };
    a = corners(a);
    b = corners(b);
    double const w = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    double const h = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    double const inter = w * h;
    double const uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    return uni > 0 ? inter / uni : 0.0;
}

//! Greedy NMS per batch and class, rows in (batch, class, decreasing score) order.
std::vector<std::array<int64_t, 3>> nmsOracle(HostTensor const& boxes, HostTensor const& scores, Params const& p)
{
    std::vector<std::array<int64_t, 3>> rows;
    double const scoreThreshold = p.thresholds ? p.score : 0.0;
    double const iouThreshold = p.thresholds ? p.iou : 0.0;
    for (int64_t b = 0; b < p.batch; ++b)
    {
        for (int64_t c = 0; c < p.classes; ++c)
        {
            auto score = [&](int64_t n) { return scores.at((b * p.boxes + n) * p.classes + c); };
            auto box = [&](int64_t n) {
                int64_t const base = p.perClassBoxes ? ((b * p.boxes + n) * p.classes + c) * 4 : (b * p.boxes + n) * 4;
                return std::array<double, 4>{boxes.at(base), boxes.at(base + 1), boxes.at(base + 2), boxes.at(base + 3)};
            };
            std::vector<int64_t> order(static_cast<size_t>(p.boxes));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return score(x) > score(y); });
            std::vector<int64_t> kept;
            for (int64_t n : order)
            {
                if (static_cast<int64_t>(kept.size()) >= p.maxPerClass || !(score(n) > scoreThreshold))
                {
                    break;
                }
                bool ok = true;
                for (int64_t k : kept)
                {
                    ok = ok && overlap(box(n), box(k), p.format) <= iouThreshold;
                }
                if (ok)
                {
                    kept.push_back(n);
                    rows.push_back({b, c, n});
                }
            }
        }
    }
    return rows;
}

void runCase(std::mt19937& rng, Params const& p, DataType indicesType = DataType::kINT32)
{
    NetworkRunner r;
    std::vector<int64_t> boxShape = p.perClassBoxes ? std::vector<int64_t>{p.batch, p.boxes, p.classes, 4}
                                                    : std::vector<int64_t>{p.batch, p.boxes, 4};
    ITensor* boxes = r.addInput("boxes", DataType::kFLOAT, boxShape);
    ITensor* scores = r.addInput("scores", DataType::kFLOAT, {p.batch, p.boxes, p.classes});
    static int32_t maxValue = 0;
    maxValue = p.maxPerClass;
    ITensor* maxOut = nullptr;
    std::map<std::string, HostTensor> feeds;
    if (p.maxFromInput)
    {
        maxOut = r.addInput("maxOut", DataType::kINT32, {});
        r.setProfileValues("maxOut", {0}, {p.maxPerClass}, {20});
        feeds["maxOut"] = HostTensor::fromValues(DataType::kINT32, makeDims({}), {static_cast<double>(p.maxPerClass)});
    }
    else
    {
        maxOut = r.network().addConstant(makeDims({}), Weights{DataType::kINT32, &maxValue, 1})->getOutput(0);
    }
    INMSLayer* layer = r.network().addNMS(*boxes, *scores, *maxOut, indicesType);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    layer->setBoundingBoxFormat(p.format);
    layer->setTopKBoxLimit(p.topK);
    static float iouValue = 0;
    static float scoreValue = 0;
    iouValue = p.iou;
    scoreValue = p.score;
    if (p.thresholds)
    {
        layer->setInput(3, *r.network().addConstant(makeDims({}), Weights{DataType::kFLOAT, &iouValue, 1})->getOutput(0));
        layer->setInput(4, *r.network().addConstant(makeDims({}), Weights{DataType::kFLOAT, &scoreValue, 1})->getOutput(0));
    }
    ASSERT_EQ(layer->getNbOutputs(), 2);
    r.markOutput(layer->getOutput(0), "selected");
    r.markOutput(layer->getOutput(1), "count");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    // Boxes: random corners (either diagonal), or centres and sizes; many overlaps in a 10 x 10 field.
    HostTensor b = HostTensor::random(DataType::kFLOAT, makeDims(boxShape), rng, 0.0, 10.0);
    if (p.format == BoundingBoxFormat::kCENTER_SIZES)
    {
        for (int64_t i = 0; i < b.volume(); i += 4)
        {
            b.set(i + 2, 1.0 + b.at(i + 2) / 2);
            b.set(i + 3, 1.0 + b.at(i + 3) / 2);
        }
    }
    HostTensor s = HostTensor::random(DataType::kFLOAT, makeDims({p.batch, p.boxes, p.classes}), rng, -0.5, 1.0);
    feeds["boxes"] = b;
    feeds["scores"] = s;
    std::map<std::string, HostTensor> out;
    ASSERT_TRUE(kiln::test::runDataDependent(r, feeds, out)) << r.logger().allErrors();
    auto const rows = nmsOracle(b, s, p);
    HostTensor expected(indicesType, makeDims({static_cast<int64_t>(rows.size()), 3}));
    for (size_t i = 0; i < rows.size(); ++i)
    {
        for (size_t k = 0; k < 3; ++k)
        {
            expected.set(static_cast<int64_t>(i * 3 + k), static_cast<double>(rows[i][k]));
        }
    }
    EXPECT_TRUE(kiln::test::sameBits(out["selected"], expected))
        << "expected " << rows.size() << " rows, got " << kiln::test::dimsString(out["selected"].dims);
    ASSERT_EQ(out["count"].volume(), 1);
    EXPECT_EQ(out["count"].at(0), static_cast<double>(rows.size()));
}

class NMSLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(NMSLayerTest);

TEST_P(NMSLayerTest, SharedBoxesCornerFormat)
{
    std::mt19937 rng(401);
    runCase(rng, Params{});
    runCase(rng, Params{}, DataType::kINT64);
}

TEST_P(NMSLayerTest, PerClassBoxesAndCenterFormat)
{
    std::mt19937 rng(409);
    Params p;
    p.perClassBoxes = true;
    runCase(rng, p);
    p.format = BoundingBoxFormat::kCENTER_SIZES;
    runCase(rng, p);
    p.perClassBoxes = false;
    runCase(rng, p);
}

TEST_P(NMSLayerTest, DefaultThresholdsAndLimits)
{
    std::mt19937 rng(419);
    Params p;
    p.thresholds = false; // IoU 0: any overlap suppresses; score must exceed 0
    p.maxPerClass = 20;
    runCase(rng, p);
    p.thresholds = true;
    p.maxPerClass = 0;
    runCase(rng, p);
    p.maxPerClass = 1;
    runCase(rng, p);
}

TEST_P(NMSLayerTest, MaxOutputBoxesFromAShapeTensorInput)
{
    std::mt19937 rng(421);
    Params p;
    p.maxFromInput = true;
    p.maxPerClass = 3;
    runCase(rng, p);
    p.maxPerClass = 12;
    runCase(rng, p);
}

TEST_P(NMSLayerTest, ErrorPaths)
{
    NetworkRunner r;
    ITensor* boxes = r.addInput("boxes", DataType::kFLOAT, {1, 5, 4});
    ITensor* scores = r.addInput("scores", DataType::kFLOAT, {1, 5, 2});
    static int32_t const kMax = 2;
    ITensor* maxOut = r.network().addConstant(makeDims({}), Weights{DataType::kINT32, &kMax, 1})->getOutput(0);
    EXPECT_EQ(r.network().addNMS(*boxes, *scores, *maxOut, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(r.logger().hasError("addNMS: indicesType")) << r.logger().allErrors();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    INMSLayer* layer = r.network().addNMS(*boxes, *scores, *maxOut);
#pragma GCC diagnostic pop
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCORNER_PAIRS);
    EXPECT_EQ(layer->getTopKBoxLimit(), 5000);
    r.logger().clear();
    layer->setTopKBoxLimit(0);
    EXPECT_TRUE(r.logger().hasError("setTopKBoxLimit")) << r.logger().allErrors();
    EXPECT_EQ(layer->getTopKBoxLimit(), 5000);
    EXPECT_FALSE(layer->setIndicesType(DataType::kBOOL));
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_EQ(layer->getOutput(1)->getDimensions().nbDims, 0);

    struct Bad
    {
        std::vector<int64_t> boxes;
        std::vector<int64_t> scores;
        DataType maxType;
        char const* message;
    };
    for (Bad const& bad : {Bad{{1, 5, 4}, {1, 6, 2}, DataType::kINT32, "disagree on the number of boxes"},
             Bad{{1, 5, 3}, {1, 5, 2}, DataType::kINT32, "box size (4)"},
             Bad{{1, 5, 4}, {1, 5, 2}, DataType::kFLOAT, "must be a 0-D INT32 shape tensor"}})
    {
        NetworkRunner n;
        ITensor* b = n.addInput("boxes", DataType::kFLOAT, bad.boxes);
        ITensor* s = n.addInput("scores", DataType::kFLOAT, bad.scores);
        static float const kMaxF = 2.0F;
        ITensor* m = bad.maxType == DataType::kINT32
            ? n.network().addConstant(makeDims({}), Weights{DataType::kINT32, &kMax, 1})->getOutput(0)
            : n.network().addConstant(makeDims({}), Weights{DataType::kFLOAT, &kMaxF, 1})->getOutput(0);
        INMSLayer* l = n.network().addNMS(*b, *s, *m, DataType::kINT32);
        ASSERT_NE(l, nullptr);
        n.markOutput(l->getOutput(0), "selected");
        EXPECT_FALSE(n.build());
        EXPECT_TRUE(n.logger().hasError(bad.message)) << bad.message << ": " << n.logger().allErrors();
    }
}

} // namespace
