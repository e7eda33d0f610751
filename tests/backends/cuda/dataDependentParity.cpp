// Parity of the CUDA kernels with data-dependent output sizes, NonZero and NMS, with the CPU reference: the count
// written to the size tensor and the rows. Hand-made nodes through checkKernel, with the row outputs sized at their
// upper bound as the runtime sizes them (the network harness evaluates data-dependent extents as unknown); the whole
// buffers are compared, so the unused tail, which both backends leave as the poison they were given, is checked
// too. NonZero: several ranks and types, NaN, empty and full results, INT32/INT64 indices. NMS: both box formats,
// shared and per-class boxes, thresholds, top-K limits, score ties, HALF inputs, maxOutputBoxesPerClass 0 and 1,
// the scalars read on the device.
#include "cudaParity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::BoundingBoxFormat;
using nvinfer1::DataType;

//! Random values of `type` with about a third of them zero (and a NaN for float types when `nan`).
HostTensor sparse(DataType type, std::vector<int64_t> const& shape, std::mt19937& rng, bool nan)
{
    HostTensor h = HostTensor::random(type, dims(shape), rng, -3.0, 3.0);
    std::uniform_int_distribution<int32_t> pick(0, 2);
    for (int64_t i = 0; i < h.volume(); ++i)
    {
        if (pick(rng) == 0)
        {
            h.set(i, 0.0);
        }
    }
    if (nan && h.volume() > 1)
    {
        h.set(1, std::numeric_limits<double>::quiet_NaN());
    }
    return h;
}

//! The NonZero node on `x`: indices [rank, volume] (the upper bound) of `indexType` and an INT64 count.
void checkNonZero(HostTensor const& x, DataType indexType)
{
    PlanNode node;
    node.kind = nvinfer1::LayerType::kNON_ZERO;
    node.name = "nonZero";
    HostTensor indices(indexType, dims({x.dims.nbDims, x.volume()}));
    checkKernel(node, {x}, {indices, HostTensor(DataType::kINT64, dims({}))});
}

TEST(CudaParity, NonZeroShapesAndTypes)
{
    std::mt19937 rng(11);
    std::vector<std::vector<int64_t>> const shapes = {{7}, {4, 5}, {2, 3, 4}, {3, 1, 2, 5}, {257, 9}, {3000}};
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kINT64, DataType::kBOOL,
             DataType::kINT8})
    {
        for (DataType indexType : {DataType::kINT32, DataType::kINT64})
        {
            for (std::vector<int64_t> const& shape : shapes)
            {
                SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + " rank " + std::to_string(shape.size()));
                bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF;
                checkNonZero(sparse(t, shape, rng, isFloat), indexType);
            }
        }
    }
}

TEST(CudaParity, NonZeroAllZeroAndAllSet)
{
    // Deliberate edge cases: no hit (count 0), every element a hit, and a 0-D input.
    for (double fill : {0.0, 2.0})
    {
        HostTensor x(DataType::kFLOAT, dims({3, 4}));
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            x.set(i, fill);
        }
        checkNonZero(x, DataType::kINT64);
    }
    checkNonZero(HostTensor::fromValues(DataType::kINT32, dims({}), {5.0}), DataType::kINT32);
}

struct NMSCase
{
    int64_t batch;
    int64_t boxes;
    int64_t classes;
    BoundingBoxFormat format;
    bool perClassBoxes;
    int32_t maxPerClass;
    int32_t topK; //!< 0: the layer's default
    float iou;
    float score;
    bool ties;        //!< scores rounded to whole numbers: many equal scores
    DataType type;
};

TEST(CudaParity, NMSCases)
{
    std::vector<NMSCase> const cases = {
        {2, 12, 3, BoundingBoxFormat::kCORNER_PAIRS, false, 3, 0, 0.5F, 2.0F, false, DataType::kFLOAT},
        {1, 20, 2, BoundingBoxFormat::kCENTER_SIZES, false, 5, 0, 0.3F, 0.0F, false, DataType::kFLOAT},
        {2, 15, 4, BoundingBoxFormat::kCORNER_PAIRS, true, 4, 0, 0.4F, 1.0F, false, DataType::kFLOAT},
        {3, 10, 2, BoundingBoxFormat::kCORNER_PAIRS, false, 10, 6, 0.6F, 0.5F, false, DataType::kFLOAT},
        {2, 16, 3, BoundingBoxFormat::kCORNER_PAIRS, false, 6, 0, 0.5F, 3.0F, true, DataType::kFLOAT},
        {2, 12, 3, BoundingBoxFormat::kCENTER_SIZES, true, 2, 0, 0.5F, 1.0F, true, DataType::kFLOAT},
        {2, 12, 3, BoundingBoxFormat::kCORNER_PAIRS, false, 3, 0, 0.5F, 2.0F, false, DataType::kHALF},
        {1, 300, 5, BoundingBoxFormat::kCORNER_PAIRS, false, 20, 100, 0.5F, 1.0F, false, DataType::kFLOAT},
    };
    std::mt19937 rng(23);
    int32_t index = 0;
    for (NMSCase const& c : cases)
    {
        for (DataType indexType : {DataType::kINT32, DataType::kINT64})
        {
            SCOPED_TRACE("NMS case " + std::to_string(index) + " indices " + std::to_string(static_cast<int>(indexType)));
            std::vector<int64_t> const boxShape = c.perClassBoxes ? std::vector<int64_t>{c.batch, c.boxes, c.classes, 4}
                                                                  : std::vector<int64_t>{c.batch, c.boxes, 4};
            HostTensor boxes = HostTensor::random(c.type, dims(boxShape), rng, 0.0, 10.0);
            if (c.format == BoundingBoxFormat::kCENTER_SIZES)
            {
                for (int64_t i = 0; i < boxes.volume(); i += 4)
                {
                    boxes.set(i + 2, 1.0 + boxes.at(i + 2) / 2);
                    boxes.set(i + 3, 1.0 + boxes.at(i + 3) / 2);
                }
            }
            HostTensor scores = HostTensor::random(c.type, dims({c.batch, c.boxes, c.classes}), rng, 0.0, 6.0);
            if (c.ties)
            {
                for (int64_t i = 0; i < scores.volume(); ++i)
                {
                    scores.set(i, std::floor(scores.at(i)));
                }
            }
            PlanNode node;
            node.kind = nvinfer1::LayerType::kNMS;
            node.name = "nms" + std::to_string(index);
            node.attrs.setInt("boxFormat", static_cast<int64_t>(c.format));
            if (c.topK > 0)
            {
                node.attrs.setInt("topKBoxLimit", c.topK);
            }
            HostTensor maxOut = HostTensor::fromValues(DataType::kINT32, dims({}), {static_cast<double>(c.maxPerClass)});
            HostTensor iou = HostTensor::fromValues(DataType::kFLOAT, dims({}), {c.iou});
            HostTensor score = HostTensor::fromValues(DataType::kFLOAT, dims({}), {c.score});
            HostTensor selected(indexType, dims({c.batch * c.classes * c.boxes, 3})); // the upper bound
            checkKernel(node, {boxes, scores, maxOut, iou, score}, {selected, HostTensor(DataType::kINT32, dims({}))});
        }
        ++index;
    }
}

TEST(CudaParity, NMSScalarsInDeviceMemory)
{
    // A hand-made node: maxOutputBoxesPerClass and both thresholds exist only as data (no host values), so the CUDA
    // kernel reads them on the device; the selected-indices buffer is sized for every (batch, class, box) row.
    PlanNode node;
    node.kind = nvinfer1::LayerType::kNMS;
    node.name = "nmsDevice";
    node.attrs.setInt("boxFormat", static_cast<int64_t>(BoundingBoxFormat::kCORNER_PAIRS));
    node.attrs.setInt("topKBoxLimit", 40);
    std::mt19937 rng(29);
    for (int32_t maxPerClass : {0, 1, 4})
    {
        SCOPED_TRACE("maxPerClass " + std::to_string(maxPerClass));
        HostTensor boxes = HostTensor::random(DataType::kFLOAT, dims({2, 25, 4}), rng, 0.0, 10.0);
        HostTensor scores = HostTensor::random(DataType::kFLOAT, dims({2, 25, 3}), rng, 0.0, 1.0);
        HostTensor maxOut = HostTensor::fromValues(DataType::kINT32, dims({}), {static_cast<double>(maxPerClass)});
        HostTensor iou = HostTensor::fromValues(DataType::kFLOAT, dims({}), {0.45});
        HostTensor score = HostTensor::fromValues(DataType::kFLOAT, dims({}), {0.2});
        checkKernel(node, {boxes, scores, maxOut, iou, score},
            {HostTensor(DataType::kINT64, dims({2 * 25 * 3, 3})), HostTensor(DataType::kINT32, dims({}))});
    }
}

} // namespace
} // namespace kiln::test::cuda
