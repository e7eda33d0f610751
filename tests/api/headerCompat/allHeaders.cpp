// allHeaders.cpp — includes every public header in one translation unit (the list is generated from include/),
// compiled as C++14 and C++17 with -Wall -Wextra -Werror -pedantic to keep the public API clean for users.
#include "kilnAllPublicHeaders.inc"

#include <type_traits>

#ifndef NV_TENSORRT_MAJOR
#error "NvInferVersion.h must define NV_TENSORRT_MAJOR"
#endif

static_assert(NV_TENSORRT_MAJOR == 10, "Kiln implements the TensorRT 10 API");

// NvOnnxConfig.h: TensorRT's sample helpers (common/parserOnnxConfig.h) implement IOnnxConfig themselves; a class
// written the same way, with `override` on every method, must compile against Kiln's declaration.
namespace kilnHeaderCompat
{
class SampleStyleOnnxConfig : public nvonnxparser::IOnnxConfig
{
public:
    void setModelDtype(const nvinfer1::DataType type) noexcept override { mType = type; }
    nvinfer1::DataType getModelDtype() const noexcept override { return mType; }
    char const* getModelFileName() const noexcept override { return mName; }
    void setModelFileName(char const* name) noexcept override { mName = name; }
    Verbosity getVerbosityLevel() const noexcept override { return mVerbosity; }
    void addVerbosity() noexcept override { ++mVerbosity; }
    void reduceVerbosity() noexcept override { --mVerbosity; }
    void setVerbosityLevel(Verbosity level) noexcept override { mVerbosity = level; }
    char const* getTextFileName() const noexcept override { return mName; }
    void setTextFileName(char const* name) noexcept override { mName = name; }
    char const* getFullTextFileName() const noexcept override { return mName; }
    void setFullTextFileName(char const* name) noexcept override { mName = name; }
    bool getPrintLayerInfo() const noexcept override { return mPrint; }
    void setPrintLayerInfo(bool print) noexcept override { mPrint = print; }

private:
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    char const* mName{""};
    Verbosity mVerbosity{0};
    bool mPrint{false};
};
} // namespace kilnHeaderCompat

// createONNXConfig is declared with TensorRT's signature.
static_assert(std::is_same<decltype(&nvonnxparser::createONNXConfig), nvonnxparser::IOnnxConfig* (*) ()>::value,
    "createONNXConfig must be declared as TensorRT declares it: IOnnxConfig* createONNXConfig()");

//! Gives the object file one symbol; the check is that everything above compiles.
int kilnHeaderCompatAnchor();
int kilnHeaderCompatAnchor()
{
    kilnHeaderCompat::SampleStyleOnnxConfig config;
    config.addVerbosity();
    return NV_TENSORRT_MAJOR * 100 + NV_TENSORRT_MINOR + config.getVerbosityLevel();
}
