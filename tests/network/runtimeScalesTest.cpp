// Resize with scales known only at run time: a FLOAT network input used as a (host) shape tensor, either given
// to IResizeLayer as input 1 directly or turned into output dimensions through Shape -> Cast -> ElementWise ->
// Unary(floor) -> Cast (the onnx-tensorrt computation). Several scale values run in one execution context and are
// compared with a nearest-neighbour reference written here; NaN and negative scales fail at enqueue.
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! Nearest resize, asymmetric coordinates, floor rounding: out[y][x] = in[floor(y / sh)][floor(x / sw)] (clamped),
//! over the last two dimensions of a [1, C, H, W] tensor. The scale per axis is `scale` when positive, else out/in.
HostTensor nearestReference(HostTensor const& in, int64_t outH, int64_t outW, double sh, double sw)
{
    int64_t const c = in.dims.d[1];
    int64_t const h = in.dims.d[2];
    int64_t const w = in.dims.d[3];
    double const rh = sh > 0 ? sh : double(outH) / double(h);
    double const rw = sw > 0 ? sw : double(outW) / double(w);
    HostTensor out(DataType::kFLOAT, makeDims({1, c, outH, outW}));
    for (int64_t ch = 0; ch < c; ++ch)
    {
        for (int64_t y = 0; y < outH; ++y)
        {
            int64_t const sy = std::min<int64_t>(static_cast<int64_t>(std::floor(double(y) / rh)), h - 1);
            for (int64_t x = 0; x < outW; ++x)
            {
                int64_t const sx = std::min<int64_t>(static_cast<int64_t>(std::floor(double(x) / rw)), w - 1);
                out.set((ch * outH + y) * outW + x, in.at((ch * h + sy) * w + sx));
            }
        }
    }
    return out;
}

IResizeLayer* addNearest(INetworkDefinition& net, ITensor& x)
{
    IResizeLayer* r = net.addResize(x);
    r->setResizeMode(InterpolationMode::kNEAREST);
    r->setCoordinateTransformation(ResizeCoordinateTransformation::kASYMMETRIC);
    r->setNearestRounding(ResizeRoundMode::kFLOOR);
    return r;
}

struct Case
{
    int64_t h;
    int64_t w;
    float sh;
    float sw;
};

//! Runs every case in ONE execution context; `exactScales` selects the reference's coordinate scale.
void runCases(NetworkRunner& r, std::vector<Case> const& cases, bool exactScales)
{
    std::unique_ptr<IExecutionContext> ctx(r.engine().createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    EXPECT_TRUE(r.engine().isShapeInferenceIO("scales"));
    EXPECT_EQ(r.engine().getTensorLocation("scales"), TensorLocation::kHOST);
    std::mt19937 rng(21);
    for (Case const& c : cases)
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, c.h, c.w}), rng, -4.0, 4.0);
        HostTensor const scales = HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {1.0, 1.0, c.sh, c.sw});
        ASSERT_TRUE(ctx->setInputShape("x", x.dims));
        ASSERT_TRUE(ctx->setInputTensorAddress("x", x.data()));
        ASSERT_TRUE(ctx->setInputTensorAddress("scales", scales.data()));
        // The reference output extents: floor(double(extent) * double(float scale)).
        int64_t const outH = static_cast<int64_t>(std::floor(double(c.h) * double(c.sh)));
        int64_t const outW = static_cast<int64_t>(std::floor(double(c.w) * double(c.sw)));
        Dims const shape = ctx->getTensorShape("y");
        ASSERT_EQ(shape.nbDims, 4);
        ASSERT_EQ(shape.d[2], outH) << c.h << " * " << c.sh;
        ASSERT_EQ(shape.d[3], outW) << c.w << " * " << c.sw;
        HostTensor y(DataType::kFLOAT, shape);
        std::fill(y.bytes.begin(), y.bytes.end(), uint8_t{0xA5});
        ASSERT_TRUE(ctx->setTensorAddress("y", y.data()));
        ASSERT_TRUE(ctx->enqueueV3(nullptr)) << r.logger().allErrors();
        HostTensor const want = exactScales ? nearestReference(x, outH, outW, c.sh, c.sw)
                                            : nearestReference(x, outH, outW, 0.0, 0.0);
        EXPECT_TRUE(kiln::test::sameBits(y, want)) << c.h << "x" << c.w << " scales " << c.sh << ", " << c.sw;
    }
}

TEST(RuntimeScalesTest, FloatShapeInputGivesResizeScales)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 3, -1, -1});
    ITensor* scales = r.addInput("scales", DataType::kFLOAT, {4});
    IResizeLayer* resize = addNearest(r.network(), *x);
    resize->setInput(1, *scales);
    r.markOutput(resize->getOutput(0), "y");
    r.setProfileDims("x", {1, 3, 1, 1}, {1, 3, 4, 4}, {1, 3, 9, 9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_TRUE(r.network().getInput(1)->isShapeTensor());
    // Non-integer scales: the kernel uses the given scales (ONNX semantics), not out / in.
    runCases(r, {{5, 7, 2.0F, 1.5F}, {6, 3, 0.6F, 2.7F}, {4, 9, 1.25F, 0.75F}}, true);
}

TEST(RuntimeScalesTest, ShapeArithmeticOnFloatValuesGivesOutputDimensions)
{
    // onnx-tensorrt's computation: dims = int64(floor(float(shape(x)) * scales)) as IResizeLayer input 1.
    NetworkRunner r;
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 3, -1, -1});
    ITensor* scales = r.addInput("scales", DataType::kFLOAT, {4});
    ITensor* shape = net.addCast(*net.addShape(*x)->getOutput(0), DataType::kFLOAT)->getOutput(0);
    ITensor* scaled = net.addElementWise(*shape, *scales, ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* floored = net.addUnary(*scaled, UnaryOperation::kFLOOR)->getOutput(0);
    ITensor* dims = net.addCast(*floored, DataType::kINT64)->getOutput(0);
    IResizeLayer* resize = addNearest(net, *x);
    resize->setInput(1, *dims);
    r.markOutput(resize->getOutput(0), "y");
    r.setProfileDims("x", {1, 3, 1, 1}, {1, 3, 4, 4}, {1, 3, 9, 9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_TRUE(scales->isShapeTensor());
    EXPECT_TRUE(scaled->isShapeTensor());
    // With output dimensions the kernel's scale is out / in.
    runCases(r, {{5, 7, 2.0F, 3.0F}, {6, 4, 0.5F, 1.75F}, {8, 9, 1.3F, 0.4F}}, false);
}

TEST(RuntimeScalesTest, NonFiniteAndNegativeScalesFailAtEnqueue)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 2, 4, 4});
    ITensor* scales = r.addInput("scales", DataType::kFLOAT, {4});
    IResizeLayer* resize = addNearest(r.network(), *x);
    resize->setName("up");
    resize->setInput(1, *scales);
    r.markOutput(resize->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors() << " (a FLOAT shape input needs no optimization profile)";
    std::mt19937 rng(5);
    HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 4, 4}), rng);
    auto scalesOf = [](double v) {
        return HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {1.0, 1.0, v, 2.0});
    };
    EXPECT_TRUE(r.runFails({{"x", in}, {"scales", scalesOf(std::nan(""))}}));
    EXPECT_TRUE(r.logger().hasError("NaN")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("scales.value[2]")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_TRUE(r.runFails({{"x", in}, {"scales", scalesOf(INFINITY)}}));
    EXPECT_TRUE(r.logger().hasError("infinity")) << r.logger().allErrors();
    r.logger().clear();
    EXPECT_TRUE(r.runFails({{"x", in}, {"scales", scalesOf(-1.5)}}));
    EXPECT_TRUE(r.logger().hasError("layer 'up' (Resize): dimension 2: negative output extent"))
        << r.logger().allErrors();
    // A valid run afterwards still works and matches the reference.
    auto out = r.run({{"x", in}, {"scales", scalesOf(1.5)}});
    EXPECT_TRUE(kiln::test::sameBits(out["y"], nearestReference(in, 6, 8, 1.5, 2.0)));
}

TEST(RuntimeScalesTest, FloatShapeTensorCannotServeAsIntegerShapeInput)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 6});
    ITensor* dims = r.addInput("dims", DataType::kFLOAT, {2});
    IShuffleLayer* s = r.network().addShuffle(*x);
    s->setInput(1, *dims);
    r.markOutput(s->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("reshape dimensions (input 1) must be INT32 or INT64")) << r.logger().allErrors();
}

} // namespace
