// CheckSpec: a validated, owning copy of a kiln::PluginCheckRequest, plus the small formatting helpers (dims,
// descriptors) that every part of the plugin contract checker uses in its messages.
#pragma once

#include "core/status.h"
#include "kiln/KilnPluginChecker.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::checker
{

struct CheckSpec
{
    std::string name;
    std::string version; //!< "" when the request left it open
    std::string pluginNamespace;
    std::string layerName;
    nvinfer1::PluginFieldCollection fields{}; //!< borrowed from the request
    std::vector<nvinfer1::Dims> shapes;
    std::vector<nvinfer1::Dims> altShapes;   //!< empty: no alternative shapes
    std::vector<nvinfer1::DataType> types;   //!< empty: negotiated
    std::vector<std::vector<int64_t>> shapeInputs;
    int32_t nbRuns{2};
    uint64_t seed{0};
    bool rangeGiven{false};
    double inputMin{0.0};
    double inputMax{0.0};

    int32_t nbInputs() const { return static_cast<int32_t>(shapes.size()); }
};

//! Largest number of elements of one tensor the checker allocates (guards included, per buffer).
constexpr int64_t kMAX_CHECK_ELEMENTS = int64_t{1} << 26;

//! Validate the request; the error message says what is wrong with it.
StatusOr<CheckSpec> makeCheckSpec(PluginCheckRequest const& request);

//! Whether the checker can store elements of this type (it has a host storage type).
bool checkableType(nvinfer1::DataType type);

//! "2x3x8" ("scalar" for rank 0; -1 extents print as "?").
std::string dimsText(nvinfer1::Dims const& dims);
//! "FP32 [2x3] linear" for a descriptor.
std::string descText(nvinfer1::PluginTensorDesc const& desc);
//! Number of elements (0 when any extent is negative).
int64_t dimsVolume(nvinfer1::Dims const& dims);
//! "[0, 2, 1]": the multi-index of flat element `index` in `dims`.
std::string elementIndexText(nvinfer1::Dims const& dims, int64_t index);

} // namespace kiln::checker
