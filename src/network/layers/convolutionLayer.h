// ConvolutionLayer: nvinfer1::IConvolutionLayer (2-D/3-D cross-correlation with groups, dilation and optional bias),
// plus the window geometry shared with deconvolution and pooling (parameters, PaddingMode output-size formulas).
// Attributes: "nbOutputMaps" (int), "nbGroups" (int), "kernelSize", "stride", "dilation", "prePadding",
// "postPadding" (int lists, one value per spatial dimension), "paddingMode" (int, nvinfer1::PaddingMode).
// Weights slots: 0 = kernel, KCRS per group (GKCRS), 1 = bias (count 0 = none).
// Inputs: 0 = data [N, C, spatial...]; 1 = kernel tensor [K, C/G, k...] (kernel weights must then be empty);
// 2 = bias tensor [K] (bias weights must then be empty).
#pragma once

#include "NvInfer.h" // before inferContext.h, which uses nvinfer1::LayerType without including NvInfer.h
#include "network/inferContext.h"
#include "network/layer.h"

#include <array>
#include <cstdint>
#include <vector>

namespace kiln
{

//! Which output-size formulas of nvinfer1::PaddingMode apply.
enum class WindowKind
{
    kCONVOLUTION,
    kDECONVOLUTION,
    kPOOLING,
};

//! Parameters of a sliding-window layer, one entry per spatial dimension (2 or 3 of them).
struct WindowParams
{
    int32_t nbSpatial{0};
    std::vector<int64_t> kernel;   // kernel or pooling window extents
    std::vector<int64_t> stride;
    std::vector<int64_t> dilation; // all 1 for pooling
    std::vector<int64_t> prePadding;
    std::vector<int64_t> postPadding;
    nvinfer1::PaddingMode mode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};

    //! Dilated kernel extent of dimension i: 1 + dilation * (kernel - 1).
    int64_t dilatedKernel(int32_t i) const
    {
        return 1 + dilation[static_cast<size_t>(i)] * (kernel[static_cast<size_t>(i)] - 1);
    }
};

//! Upper bounds Kiln accepts for window parameters (each extent, stride, dilation and padding value).
constexpr int64_t kMAX_WINDOW_VALUE = 100000;
//! Upper bound on the product of kernel/window extents.
constexpr int64_t kMAX_WINDOW_VOLUME = 100000000;

//! Read and validate the window attributes of a convolution, deconvolution or pooling node (the kernel extents
//! come from "kernelSize" or, for pooling, "windowSize"). Used by inference and by kernels on deserialized plans.
StatusOr<WindowParams> parseWindowParams(Attributes const& attrs, WindowKind kind);

//! Symbolic output extent of every spatial dimension, following TensorRT's PaddingMode formulas. Adds the
//! runtime constraints that keep the output non-empty. `spatialIn` holds the input's spatial dimensions.
StatusOr<ShapeExpr> inferWindowOutput(
    InferContext& ctx, WindowKind kind, WindowParams const& p, ShapeExpr const& spatialIn, std::string const& inputName);

//! Concrete geometry of one spatial dimension for given input extent (what kernels use at execution).
struct WindowExtent
{
    int64_t in{0};
    int64_t out{0};
    int64_t padBefore{0}; // convolution/pooling: zero/-inf padding before the input; deconvolution: trimmed outputs
    int64_t padAfter{0};  // as given or derived by the padding mode (may exceed what the last window touches)
};

//! Output extents and paddings for concrete input extents; fails when the output would be empty/negative.
StatusOr<std::vector<WindowExtent>> computeWindowExtents(
    WindowKind kind, WindowParams const& p, std::vector<int64_t> const& spatialIn);

//! Checks a Dims argument of a window setter: rank 2 or 3 (or `exactRank` when > 0) and values in
//! [minValue, kMAX_WINDOW_VALUE]. Returns an error describing `what` otherwise.
Status checkWindowDims(nvinfer1::Dims const& d, int64_t minValue, char const* what, int32_t exactRank = 0);

//! Attribute list as nvinfer1::Dims (nbDims = 0 when absent).
nvinfer1::Dims attrDims(Attributes const& attrs, char const* key);

//! Store kernel/window extents and the matching default stride/dilation/padding (helper for the three layers).
void initWindowAttrs(Attributes& attrs, char const* kernelKey, nvinfer1::Dims const& kernel, bool withDilation);

//! After the kernel rank changed, re-create defaults whose rank no longer matches (user values are kept).
void resizeWindowDefaults(Attributes& attrs, int32_t nbSpatial, bool withDilation);

//! Name of a PaddingMode value ("kSAME_UPPER").
char const* paddingModeName(nvinfer1::PaddingMode mode);

class ConvolutionLayer final : public LayerBase<nvinfer1::IConvolutionLayer>
{
public:
    ConvolutionLayer(NetworkDefinition& network, Tensor* input, int64_t nbOutputMaps, nvinfer1::Dims const& kernelSize,
        nvinfer1::Weights kernel, nvinfer1::Weights bias);

    void setNbOutputMaps(int64_t nbOutputMaps) noexcept override;
    int64_t getNbOutputMaps() const noexcept override;
    void setNbGroups(int64_t nbGroups) noexcept override;
    int64_t getNbGroups() const noexcept override;
    void setKernelWeights(nvinfer1::Weights weights) noexcept override;
    nvinfer1::Weights getKernelWeights() const noexcept override;
    void setBiasWeights(nvinfer1::Weights weights) noexcept override;
    nvinfer1::Weights getBiasWeights() const noexcept override;
    void setPrePadding(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPrePadding() const noexcept override;
    void setPostPadding(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPostPadding() const noexcept override;
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override;
    nvinfer1::PaddingMode getPaddingMode() const noexcept override;
    void setKernelSizeNd(nvinfer1::Dims const& kernelSize) noexcept override;
    nvinfer1::Dims getKernelSizeNd() const noexcept override;
    void setStrideNd(nvinfer1::Dims const& stride) noexcept override;
    nvinfer1::Dims getStrideNd() const noexcept override;
    void setPaddingNd(nvinfer1::Dims const& padding) noexcept override;
    nvinfer1::Dims getPaddingNd() const noexcept override;
    void setDilationNd(nvinfer1::Dims const& dilation) noexcept override;
    nvinfer1::Dims getDilationNd() const noexcept override;
};

//! Shared setter logic of convolution and deconvolution (same attributes and weights slots); `api` names the
//! interface in messages ("IConvolutionLayer").
namespace convsetters
{
void setNbOutputMaps(Layer& layer, char const* api, int64_t value);
void setNbGroups(Layer& layer, char const* api, int64_t value);
void setWeights(Layer& layer, char const* api, int32_t slot, nvinfer1::Weights weights);
void setPadding(Layer& layer, char const* api, char const* method, nvinfer1::Dims const& padding, bool pre, bool post);
void setPaddingMode(Layer& layer, char const* api, nvinfer1::PaddingMode mode);
void setKernelSize(Layer& layer, char const* api, char const* key, nvinfer1::Dims const& size, bool withDilation);
void setPositiveDims(Layer& layer, char const* api, char const* method, char const* key, nvinfer1::Dims const& d);
//! Validate the arguments shared by addConvolutionNd/addDeconvolutionNd; reports and returns false on error.
bool checkAddArguments(NetworkDefinition& network, char const* api, int64_t nbOutputMaps,
    nvinfer1::Dims const& kernelSize, nvinfer1::Weights const& kernel, nvinfer1::Weights const& bias);
} // namespace convsetters

//! Shared inference of convolution and deconvolution.
Status inferConvolutionLike(InferContext& ctx, bool deconvolution);

} // namespace kiln
