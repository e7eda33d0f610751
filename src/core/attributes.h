// Attributes: the named parameters of a layer (strides, axes, modes, ...). Layer classes store their
// settings here, so the engine writer, the engine inspector and the kernels handle every layer kind the
// same way. Keys are kept sorted, which keeps engine files deterministic.
#pragma once

#include "NvInferRuntimeBase.h"
#include "core/status.h"

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kiln
{

using AttrValue = std::variant<int64_t, double, std::vector<int64_t>, std::vector<double>, std::string>;

class Attributes
{
public:
    void setInt(std::string const& key, int64_t v) { mValues[key] = v; }
    void setFloat(std::string const& key, double v) { mValues[key] = v; }
    void setInts(std::string const& key, std::vector<int64_t> v) { mValues[key] = std::move(v); }
    void setFloats(std::string const& key, std::vector<double> v) { mValues[key] = std::move(v); }
    void setString(std::string const& key, std::string v) { mValues[key] = std::move(v); }
    //! Dims are stored as their extents (nbDims = size).
    void setDims(std::string const& key, nvinfer1::Dims const& d);
    void erase(std::string const& key) { mValues.erase(key); }

    bool has(std::string const& key) const { return mValues.count(key) != 0; }
    int64_t getInt(std::string const& key, int64_t fallback = 0) const;
    double getFloat(std::string const& key, double fallback = 0.0) const;
    std::vector<int64_t> getInts(std::string const& key) const;
    std::vector<double> getFloats(std::string const& key) const;
    std::string getString(std::string const& key) const;
    //! Dims from an int list; nbDims = -1 when the key is absent or holds more than Dims::MAX_DIMS values.
    nvinfer1::Dims getDims(std::string const& key) const;

    //! Typed lookups that report a missing or mistyped attribute (used by kernels on deserialized engines).
    StatusOr<int64_t> requireInt(std::string const& key) const;
    StatusOr<double> requireFloat(std::string const& key) const;
    StatusOr<std::vector<int64_t>> requireInts(std::string const& key) const;
    StatusOr<std::vector<double>> requireFloats(std::string const& key) const;

    std::map<std::string, AttrValue> const& values() const { return mValues; }
    std::map<std::string, AttrValue>& values() { return mValues; }
    //! JSON object text, e.g. {"stride":[1,1],"mode":2}.
    std::string toJson() const;

    bool operator==(Attributes const& o) const { return mValues == o.mValues; }

private:
    std::map<std::string, AttrValue> mValues;
};

} // namespace kiln
