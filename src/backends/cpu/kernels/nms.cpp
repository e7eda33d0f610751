// CPU reference kernel of INMSLayer. Per batch item, the (box, class) candidates whose score exceeds the score
// threshold are sorted by decreasing score (ties: lower box index, then lower class) and the first topKBoxLimit are
// kept. Per class, candidates are then taken in that order and selected unless their IoU with a box already
// selected for the class exceeds the IoU threshold, up to maxOutputBoxesPerClass. Rows (batch, class, box) are
// written batch by batch, class by class, in selection order (the ONNX NonMaxSuppression order); the row count goes
// to output 1, the layer's size tensor.
#include "backends/common/nmsParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::BoundingBoxFormat;

struct Box
{
    float xMin;
    float yMin;
    float xMax;
    float yMax;
};

Box toBox(std::array<float, 4> const& v, BoundingBoxFormat fmt)
{
    if (fmt == BoundingBoxFormat::kCENTER_SIZES)
    {
        float const hw = v[2] / 2.0F;
        float const hh = v[3] / 2.0F;
        return Box{v[0] - hw, v[1] - hh, v[0] + hw, v[1] + hh};
    }
    return Box{std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
}

//! Intersection over union; 0 for degenerate boxes or no overlap.
float iou(Box const& a, Box const& b)
{
    float const w = std::min(a.xMax, b.xMax) - std::max(a.xMin, b.xMin);
    float const h = std::min(a.yMax, b.yMax) - std::max(a.yMin, b.yMin);
    if (w <= 0.0F || h <= 0.0F)
    {
        return 0.0F;
    }
    float const areaA = (a.xMax - a.xMin) * (a.yMax - a.yMin);
    float const areaB = (b.xMax - b.xMin) * (b.yMax - b.yMin);
    if (areaA <= 0.0F || areaB <= 0.0F)
    {
        return 0.0F;
    }
    float const inter = w * h;
    float const uni = areaA + areaB - inter;
    return uni > 0.0F ? inter / uni : 0.0F;
}

struct Candidate
{
    float score;
    int64_t box;
    int64_t cls;
};

Status executeNMS(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(NMSParams const p, makeNMSParams(setup, inputs, outputs));
    TensorView const& boxes = inputs[0];
    TensorView const& scores = inputs[1];
    TensorView const& maxOut = inputs[2];
    TensorView const& selected = outputs[0];
    BoundingBoxFormat const fmt = p.format;
    int64_t const limit = p.limit;
    int64_t const batch = p.batch;
    int64_t const nbBoxes = p.nbBoxes;
    int64_t const nbClasses = p.nbClasses;
    bool const perClassBoxes = p.perClassBoxes;
    int64_t maxPerClass = 0;
    if (maxOut.values != nullptr)
    {
        maxPerClass = maxOut.values[0];
    }
    else if (maxOut.data != nullptr)
    {
        maxPerClass = loadInt(maxOut.data, maxOut.type, 0);
    }
    auto const scalar = [&](size_t i, float fallback) {
        return i < inputs.size() && inputs[i].data != nullptr
            ? static_cast<float>(loadElement(inputs[i].data, inputs[i].type, 0))
            : fallback;
    };
    float const iouThreshold = scalar(3, 0.0F);
    float const scoreThreshold = scalar(4, 0.0F);

    std::vector<std::array<int64_t, 3>> rows;
    std::vector<Candidate> candidates;
    std::vector<Box> kept;
    for (int64_t b = 0; b < batch && maxPerClass > 0; ++b)
    {
        candidates.clear();
        for (int64_t n = 0; n < nbBoxes; ++n)
        {
            for (int64_t c = 0; c < nbClasses; ++c)
            {
                auto const s = static_cast<float>(loadElement(scores.data, scores.type, (b * nbBoxes + n) * nbClasses + c));
                if (s > scoreThreshold)
                {
                    candidates.push_back(Candidate{s, n, c});
                }
            }
        }
        std::stable_sort(candidates.begin(), candidates.end(),
            [](Candidate const& x, Candidate const& y) { return x.score > y.score; });
        if (static_cast<int64_t>(candidates.size()) > limit)
        {
            candidates.resize(static_cast<size_t>(limit));
        }
        auto const boxAt = [&](int64_t n, int64_t c) {
            int64_t const base = perClassBoxes ? ((b * nbBoxes + n) * nbClasses + c) * 4 : (b * nbBoxes + n) * 4;
            std::array<float, 4> v{};
            for (int64_t k = 0; k < 4; ++k)
            {
                v[static_cast<size_t>(k)] = static_cast<float>(loadElement(boxes.data, boxes.type, base + k));
            }
            return toBox(v, fmt);
        };
        for (int64_t c = 0; c < nbClasses; ++c)
        {
            kept.clear();
            for (Candidate const& cand : candidates)
            {
                if (cand.cls != c)
                {
                    continue;
                }
                Box const box = boxAt(cand.box, c);
                bool suppressed = false;
                for (Box const& k : kept)
                {
                    if (iou(box, k) > iouThreshold)
                    {
                        suppressed = true;
                        break;
                    }
                }
                if (suppressed)
                {
                    continue;
                }
                kept.push_back(box);
                rows.push_back({b, c, cand.box});
                if (static_cast<int64_t>(kept.size()) >= maxPerClass)
                {
                    break;
                }
            }
        }
    }
    auto const count = static_cast<int64_t>(rows.size());
    if (count > 0)
    {
        if (selected.data == nullptr)
        {
            return nmsError(setup, "the selected-indices output has no memory");
        }
        for (int64_t r = 0; r < count; ++r)
        {
            for (int64_t k = 0; k < 3; ++k)
            {
                storeInt(selected.data, selected.type, r * 3 + k, rows[static_cast<size_t>(r)][static_cast<size_t>(k)]);
            }
        }
    }
    storeInt(outputs[1].data, outputs[1].type, 0, count);
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createNMSKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("NMS kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeNMS);
}

} // namespace kiln
