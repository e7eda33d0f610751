// Attributes: typed access and JSON rendering.
#include "core/attributes.h"

#include "core/jsonText.h"

#include <cmath>
#include <sstream>

namespace kiln
{

void Attributes::setDims(std::string const& key, nvinfer1::Dims const& d)
{
    std::vector<int64_t> v;
    for (int32_t i = 0; i < d.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        v.push_back(d.d[i]);
    }
    mValues[key] = std::move(v);
}

int64_t Attributes::getInt(std::string const& key, int64_t fallback) const
{
    auto it = mValues.find(key);
    if (it == mValues.end())
    {
        return fallback;
    }
    if (auto const* p = std::get_if<int64_t>(&it->second))
    {
        return *p;
    }
    return fallback;
}

double Attributes::getFloat(std::string const& key, double fallback) const
{
    auto it = mValues.find(key);
    if (it == mValues.end())
    {
        return fallback;
    }
    if (auto const* p = std::get_if<double>(&it->second))
    {
        return *p;
    }
    if (auto const* p = std::get_if<int64_t>(&it->second))
    {
        return static_cast<double>(*p);
    }
    return fallback;
}

std::vector<int64_t> Attributes::getInts(std::string const& key) const
{
    auto it = mValues.find(key);
    if (it != mValues.end())
    {
        if (auto const* p = std::get_if<std::vector<int64_t>>(&it->second))
        {
            return *p;
        }
    }
    return {};
}

std::vector<double> Attributes::getFloats(std::string const& key) const
{
    auto it = mValues.find(key);
    if (it != mValues.end())
    {
        if (auto const* p = std::get_if<std::vector<double>>(&it->second))
        {
            return *p;
        }
    }
    return {};
}

std::string Attributes::getString(std::string const& key) const
{
    auto it = mValues.find(key);
    if (it != mValues.end())
    {
        if (auto const* p = std::get_if<std::string>(&it->second))
        {
            return *p;
        }
    }
    return {};
}

nvinfer1::Dims Attributes::getDims(std::string const& key) const
{
    nvinfer1::Dims d{};
    d.nbDims = -1;
    auto it = mValues.find(key);
    if (it == mValues.end())
    {
        return d;
    }
    auto const* p = std::get_if<std::vector<int64_t>>(&it->second);
    if (p == nullptr || p->size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return d;
    }
    d.nbDims = static_cast<int32_t>(p->size());
    for (size_t i = 0; i < p->size(); ++i)
    {
        d.d[i] = (*p)[i];
    }
    return d;
}

namespace
{
template <typename T>
StatusOr<T> requireTyped(std::map<std::string, AttrValue> const& values, std::string const& key, char const* what)
{
    auto it = values.find(key);
    if (it == values.end())
    {
        return invalidArgument(std::string("missing attribute '") + key + "'");
    }
    if (auto const* p = std::get_if<T>(&it->second))
    {
        return *p;
    }
    return invalidArgument(std::string("attribute '") + key + "' is not " + what);
}

void writeDouble(std::ostringstream& os, double v)
{
    if (std::isfinite(v))
    {
        os << v;
    }
    else
    {
        os << '"' << v << '"';
    }
}
} // namespace

StatusOr<int64_t> Attributes::requireInt(std::string const& key) const
{
    return requireTyped<int64_t>(mValues, key, "an integer");
}
StatusOr<double> Attributes::requireFloat(std::string const& key) const
{
    auto it = mValues.find(key);
    if (it != mValues.end())
    {
        if (auto const* p = std::get_if<int64_t>(&it->second))
        {
            return static_cast<double>(*p);
        }
    }
    return requireTyped<double>(mValues, key, "a float");
}
StatusOr<std::vector<int64_t>> Attributes::requireInts(std::string const& key) const
{
    return requireTyped<std::vector<int64_t>>(mValues, key, "an integer list");
}
StatusOr<std::vector<double>> Attributes::requireFloats(std::string const& key) const
{
    return requireTyped<std::vector<double>>(mValues, key, "a float list");
}

std::string Attributes::toJson() const
{
    std::ostringstream os;
    os.precision(9);
    os << '{';
    bool first = true;
    for (auto const& [k, v] : mValues)
    {
        if (!first)
        {
            os << ',';
        }
        first = false;
        os << jsonString(k) << ':';
        if (auto const* i = std::get_if<int64_t>(&v))
        {
            os << *i;
        }
        else if (auto const* f = std::get_if<double>(&v))
        {
            writeDouble(os, *f);
        }
        else if (auto const* is = std::get_if<std::vector<int64_t>>(&v))
        {
            os << '[';
            for (size_t j = 0; j < is->size(); ++j)
            {
                os << (j ? "," : "") << (*is)[j];
            }
            os << ']';
        }
        else if (auto const* fs = std::get_if<std::vector<double>>(&v))
        {
            os << '[';
            for (size_t j = 0; j < fs->size(); ++j)
            {
                os << (j ? "," : "");
                writeDouble(os, (*fs)[j]);
            }
            os << ']';
        }
        else if (auto const* s = std::get_if<std::string>(&v))
        {
            os << jsonString(*s);
        }
    }
    os << '}';
    return os.str();
}

} // namespace kiln
