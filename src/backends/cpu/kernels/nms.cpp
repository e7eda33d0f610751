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

//! Order of the candidates: decreasing score, then lower box index, then lower class (their order of discovery, so
//! that std::sort, which needs no buffer, gives what a stable sort by score gives).
bool before(Candidate const& x, Candidate const& y)
{
    if (x.score != y.score)
    {
        return x.score > y.score;
    }
    return x.box != y.box ? x.box < y.box : x.cls < y.cls;
}

//! create: box format and candidate limit; reshape: the geometry and the candidate lists' capacity; run: the
//! selection, written row by row, and the row count.
class NMSKernel final : public Kernel
{
public:
    explicit NMSKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mParams(readNMSParams(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(nmsShapes(mSetup, mParams, inputs, outputs));
        mCandidates.reserve(static_cast<size_t>(mParams.nbBoxes * mParams.nbClasses));
        mKept.reserve(static_cast<size_t>(mParams.nbBoxes));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "NMS");
        }
        TensorView const& boxes = inputs[0];
        TensorView const& scores = inputs[1];
        TensorView const& maxOut = inputs[2];
        TensorView const& selected = outputs[0];
        NMSParams const& p = mParams;
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
        int64_t count = 0;
        for (int64_t b = 0; b < p.batch && maxPerClass > 0; ++b)
        {
            mCandidates.clear();
            for (int64_t n = 0; n < p.nbBoxes; ++n)
            {
                for (int64_t c = 0; c < p.nbClasses; ++c)
                {
                    int64_t const at = (b * p.nbBoxes + n) * p.nbClasses + c;
                    auto const s = static_cast<float>(loadElement(scores.data, scores.type, at));
                    if (s > scoreThreshold)
                    {
                        mCandidates.push_back(Candidate{s, n, c});
                    }
                }
            }
            std::sort(mCandidates.begin(), mCandidates.end(), before);
            if (static_cast<int64_t>(mCandidates.size()) > p.limit)
            {
                mCandidates.resize(static_cast<size_t>(p.limit));
            }
            auto const boxAt = [&](int64_t n, int64_t c) {
                int64_t const base
                    = p.perClassBoxes ? ((b * p.nbBoxes + n) * p.nbClasses + c) * 4 : (b * p.nbBoxes + n) * 4;
                std::array<float, 4> v{};
                for (int64_t k = 0; k < 4; ++k)
                {
                    v[static_cast<size_t>(k)] = static_cast<float>(loadElement(boxes.data, boxes.type, base + k));
                }
                return toBox(v, p.format);
            };
            for (int64_t c = 0; c < p.nbClasses; ++c)
            {
                mKept.clear();
                for (Candidate const& cand : mCandidates)
                {
                    if (cand.cls != c)
                    {
                        continue;
                    }
                    Box const box = boxAt(cand.box, c);
                    bool suppressed = false;
                    for (Box const& k : mKept)
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
                    if (selected.data == nullptr)
                    {
                        return nmsError(mSetup, "the selected-indices output has no memory");
                    }
                    mKept.push_back(box);
                    int64_t const row[3] = {b, c, cand.box};
                    for (int64_t k = 0; k < 3; ++k)
                    {
                        storeInt(selected.data, selected.type, count * 3 + k, row[k]);
                    }
                    ++count;
                    if (static_cast<int64_t>(mKept.size()) >= maxPerClass)
                    {
                        break;
                    }
                }
            }
        }
        storeInt(outputs[1].data, outputs[1].type, 0, count);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    NMSParams mParams;
    std::vector<Candidate> mCandidates; //!< one batch item's candidates (capacity: boxes x classes)
    std::vector<Box> mKept;             //!< one class's selected boxes (capacity: boxes)
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createNMSKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("NMS kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<NMSKernel>(setup));
}

} // namespace kiln
