// NvOnnxConfig.h — the ONNX parser's configuration object (nvonnxparser::IOnnxConfig, createONNXConfig), declared
// with TensorRT 10.16's names, method order and signatures. TensorRT's sample helpers (parserOnnxConfig.h) include
// it and implement the interface themselves; Kiln's parser library also exports createONNXConfig, which returns a
// plain settings holder (model file name, model data type, verbosity, text dump names, print-layer-info flag).
// The parser itself does not read it: pass the model file name from it to IParser::parseFromFile.
#ifndef NV_OnnxConfig_H
#define NV_OnnxConfig_H

#include "NvInfer.h"

namespace nvonnxparser
{

//!
//! \class IOnnxConfig
//! \brief Settings of an ONNX import: model file, model data type, verbosity and debugging dumps.
//!
//! Delete the object returned by createONNXConfig with `delete` (the destructor is public and virtual).
//!
class IOnnxConfig
{
public:
    virtual ~IOnnxConfig() noexcept = default;

    //! Verbosity level: a value of nvinfer1::ILogger::Severity as an integer (larger is more verbose).
    typedef int32_t Verbosity;

    //! Set the data type of the model (kFLOAT by default).
    virtual void setModelDtype(const nvinfer1::DataType) noexcept = 0;
    //! The data type of the model.
    virtual nvinfer1::DataType getModelDtype() const noexcept = 0;

    //! The model's file name (an ONNX protobuf file); "" until set.
    virtual char const* getModelFileName() const noexcept = 0;
    //! Set the model's file name; the string is copied.
    virtual void setModelFileName(char const* onnxFilename) noexcept = 0;

    //! The verbosity level.
    virtual Verbosity getVerbosityLevel() const noexcept = 0;
    //! Increase the verbosity level by one.
    virtual void addVerbosity() noexcept = 0;
    //! Decrease the verbosity level by one.
    virtual void reduceVerbosity() noexcept = 0;
    //! Set the verbosity level.
    virtual void setVerbosityLevel(Verbosity) noexcept = 0;

    //! Name of a file for the network description as plain text (debugging); "" until set.
    virtual char const* getTextFileName() const noexcept = 0;
    //! Set the name of the plain-text description file; the string is copied.
    virtual void setTextFileName(char const* textFileName) noexcept = 0;

    //! Name of a file for the network description as plain text, weights included; "" until set.
    virtual char const* getFullTextFileName() const noexcept = 0;
    //! Set the name of the plain-text description file with weights; the string is copied.
    virtual void setFullTextFileName(char const* fullTextFileName) noexcept = 0;

    //! Whether layer information is printed.
    virtual bool getPrintLayerInfo() const noexcept = 0;
    //! Set whether layer information is printed.
    virtual void setPrintLayerInfo(bool) noexcept = 0;
}; // class IOnnxConfig

//! A new configuration object with the defaults (kFLOAT, verbosity kWARNING, no file names, no layer info), or
//! nullptr when memory runs out. Exported by the parser library (libnvonnxparser).
TENSORRTAPI IOnnxConfig* createONNXConfig();

} // namespace nvonnxparser

#endif // NV_OnnxConfig_H
