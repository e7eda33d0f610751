// modelLoader: reads an ONNX ModelProto from a file or a memory buffer (no protobuf 64 MiB limit), checks
// that it declares an IR version and opset imports, and resolves initializers stored as external data into
// owned byte buffers (paths confined to the model's directory, offsets and lengths checked against the file).
#pragma once

#include "core/status.h"

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln
{

//! A loaded ONNX model: the ModelProto plus the bytes of every main-graph initializer whose data_location is
//! EXTERNAL, keyed by initializer name. The TensorProtos themselves are left as they were in the file.
class OnnxModel
{
public:
    OnnxModel() = default;
    OnnxModel(::onnx::ModelProto model, std::string modelDirectory,
        std::map<std::string, std::vector<uint8_t>> externalData)
        : mModel(std::move(model))
        , mModelDirectory(std::move(modelDirectory))
        , mExternalData(std::move(externalData))
    {
    }

    ::onnx::ModelProto const& model() const { return mModel; }
    ::onnx::ModelProto& model() { return mModel; }

    //! The directory external data is resolved against ("" for a memory buffer loaded without one).
    std::string const& modelDirectory() const { return mModelDirectory; }

    //! The bytes of the external initializer `name`, or nullptr if it is not an external initializer.
    std::vector<uint8_t> const* externalData(std::string const& name) const
    {
        auto const it = mExternalData.find(name);
        return it == mExternalData.end() ? nullptr : &it->second;
    }
    size_t nbExternalTensors() const { return mExternalData.size(); }

private:
    ::onnx::ModelProto mModel;
    std::string mModelDirectory;
    std::map<std::string, std::vector<uint8_t>> mExternalData;
};

//! Load a model file. External data is resolved relative to the file's directory.
StatusOr<OnnxModel> loadOnnxModelFromFile(std::string const& path);

//! Load a serialized model from memory. External data, if any, is resolved relative to `modelDirectory`;
//! a model with external data loaded without a directory is refused.
StatusOr<OnnxModel> loadOnnxModelFromMemory(void const* data, size_t size, std::string const& modelDirectory = "");

//! The opset version imported for the default ONNX domain ("" or "ai.onnx"); an error if there is none.
StatusOr<int64_t> onnxDefaultOpsetVersion(::onnx::ModelProto const& model);

} // namespace kiln
