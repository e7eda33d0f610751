// modelLoader: parses ONNX ModelProtos (from a file or memory, up to protobuf's 2 GiB message limit), checks
// their IR version and opset imports, and reads external initializer data with its bounds checked.
#include "onnx/modelLoader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <charconv>
#include <climits>
#include <filesystem>
#include <fstream>
#include <new>
#include <system_error>

namespace kiln
{
namespace
{

namespace fs = std::filesystem;

//! Parse `stream` into `model` without protobuf's default total-size limit.
Status parseModel(google::protobuf::io::ZeroCopyInputStream& stream, std::string const& what, ::onnx::ModelProto& model)
{
    google::protobuf::io::CodedInputStream coded(&stream);
    coded.SetTotalBytesLimit(INT_MAX);
    bool parsed = false;
    try
    {
        parsed = model.ParseFromCodedStream(&coded);
    }
    catch (std::bad_alloc const&)
    {
        return failedAllocation(what + ": out of memory while parsing the ONNX model");
    }
    if (!parsed)
    {
        return invalidArgument(what + ": not a valid ONNX model (protobuf parsing failed: the data is corrupt or "
                                      "truncated)");
    }
    return Status::ok();
}

Status checkModelHeader(::onnx::ModelProto const& model, std::string const& what)
{
    if (!model.has_ir_version() || model.ir_version() <= 0)
    {
        return invalidArgument(what + ": the ONNX model has no ir_version");
    }
    if (model.opset_import_size() == 0)
    {
        return invalidArgument(what + ": the ONNX model has no opset_import (opset version unknown)");
    }
    for (auto const& opset : model.opset_import())
    {
        if (!opset.has_version() || opset.version() <= 0)
        {
            return invalidArgument(what + ": the opset_import of domain '" + opset.domain() + "' has no version");
        }
    }
    if (!model.has_graph())
    {
        return invalidArgument(what + ": the ONNX model has no graph");
    }
    return Status::ok();
}

Status parseUnsigned(std::string const& text, std::string const& key, std::string const& context, uint64_t& value)
{
    char const* const end = text.data() + text.size();
    auto const result = std::from_chars(text.data(), end, value);
    if (text.empty() || result.ec != std::errc() || result.ptr != end)
    {
        return invalidArgument(context + ": external data '" + key + "' is not a non-negative integer: '" + text + "'");
    }
    return Status::ok();
}

//! The canonical path of `location` below `directory`, refusing absolute paths and paths that leave it.
StatusOr<fs::path> resolveLocation(fs::path const& directory, std::string const& location, std::string const& context)
{
    if (location.empty())
    {
        return invalidArgument(context + ": external data has no 'location'");
    }
    fs::path const relative(location);
    if (relative.is_absolute() || relative.has_root_name())
    {
        return invalidArgument(context + ": external data location '" + location
            + "' is an absolute path; it must be relative to the model's directory");
    }
    std::error_code ec;
    fs::path const base = fs::weakly_canonical(directory, ec);
    fs::path const target = ec ? fs::path() : fs::weakly_canonical(directory / relative, ec);
    if (ec)
    {
        return invalidArgument(context + ": cannot resolve external data location '" + location + "': " + ec.message());
    }
    auto baseIt = base.begin();
    auto targetIt = target.begin();
    for (; baseIt != base.end() && !baseIt->empty(); ++baseIt, ++targetIt)
    {
        if (targetIt == target.end() || *targetIt != *baseIt)
        {
            return invalidArgument(context + ": external data location '" + location
                + "' points outside the model's directory (path traversal refused)");
        }
    }
    if (targetIt == target.end())
    {
        return invalidArgument(context + ": external data location '" + location + "' is the model's directory");
    }
    return target;
}

StatusOr<std::vector<uint8_t>> readExternalTensor(::onnx::TensorProto const& tensor, fs::path const& directory)
{
    std::string const context = "initializer '" + tensor.name() + "'";
    std::string location;
    uint64_t offset = 0;
    uint64_t length = 0;
    bool hasLength = false;
    for (auto const& entry : tensor.external_data())
    {
        if (entry.key() == "location")
        {
            location = entry.value();
        }
        else if (entry.key() == "offset")
        {
            KILN_RETURN_IF_ERROR(parseUnsigned(entry.value(), "offset", context, offset));
        }
        else if (entry.key() == "length")
        {
            KILN_RETURN_IF_ERROR(parseUnsigned(entry.value(), "length", context, length));
            hasLength = true;
        }
    }
    KILN_ASSIGN_OR_RETURN(fs::path const file, resolveLocation(directory, location, context));

    std::error_code ec;
    uint64_t const fileSize = fs::is_regular_file(file, ec) ? fs::file_size(file, ec) : 0;
    if (ec || !fs::is_regular_file(file))
    {
        return invalidArgument(context + ": cannot open external data file '" + location + "'");
    }
    if (offset > fileSize)
    {
        return invalidArgument(context + ": external data offset " + std::to_string(offset) + " is past the end of '"
            + location + "' (" + std::to_string(fileSize) + " bytes)");
    }
    if (!hasLength)
    {
        length = fileSize - offset;
    }
    if (length > fileSize - offset)
    {
        return invalidArgument(context + ": external data range [" + std::to_string(offset) + ", "
            + std::to_string(offset) + " + " + std::to_string(length) + ") is outside '" + location + "' ("
            + std::to_string(fileSize) + " bytes)");
    }

    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes;
    try
    {
        bytes.resize(static_cast<size_t>(length));
    }
    catch (std::bad_alloc const&)
    {
        return failedAllocation(context + ": out of memory reading " + std::to_string(length) + " bytes of external data");
    }
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length));
    if (!in || static_cast<uint64_t>(in.gcount()) != length)
    {
        return invalidArgument(context + ": cannot read external data from '" + location + "'");
    }
    return bytes;
}

//! Check the header and read every external main-graph initializer.
StatusOr<OnnxModel> finishLoad(::onnx::ModelProto model, std::string const& what, std::string const& modelDirectory)
{
    KILN_RETURN_IF_ERROR(checkModelHeader(model, what));
    std::map<std::string, std::vector<uint8_t>> externalData;
    for (auto const& tensor : model.graph().initializer())
    {
        if (tensor.data_location() != ::onnx::TensorProto::EXTERNAL)
        {
            continue;
        }
        if (modelDirectory.empty())
        {
            return invalidArgument(what + ": initializer '" + tensor.name()
                + "' uses external data, but no model directory was given to resolve it");
        }
        auto bytes = readExternalTensor(tensor, fs::path(modelDirectory));
        if (!bytes.isOk())
        {
            return bytes.status().withContext(what);
        }
        if (!externalData.emplace(tensor.name(), std::move(bytes).value()).second)
        {
            return invalidArgument(what + ": two external initializers are named '" + tensor.name() + "'");
        }
    }
    return OnnxModel(std::move(model), modelDirectory, std::move(externalData));
}

} // namespace

StatusOr<OnnxModel> loadOnnxModelFromFile(std::string const& path)
{
    std::string const what = "ONNX model '" + path + "'";
    std::error_code ec;
    if (fs::is_directory(path, ec))
    {
        return invalidArgument(what + ": is a directory, not a model file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return invalidArgument(what + ": cannot open the file (missing or unreadable)");
    }
    ::onnx::ModelProto model;
    {
        google::protobuf::io::IstreamInputStream stream(&in);
        KILN_RETURN_IF_ERROR(parseModel(stream, what, model));
    }
    if (in.bad())
    {
        return invalidArgument(what + ": error while reading the file");
    }
    fs::path directory = fs::path(path).parent_path();
    if (directory.empty())
    {
        directory = ".";
    }
    return finishLoad(std::move(model), what, directory.string());
}

StatusOr<OnnxModel> loadOnnxModelFromMemory(void const* data, size_t size, std::string const& modelDirectory)
{
    std::string const what = "ONNX model in memory";
    if (data == nullptr && size != 0)
    {
        return invalidArgument(what + ": null buffer");
    }
    if (size > static_cast<size_t>(INT_MAX))
    {
        return invalidArgument(what + ": " + std::to_string(size)
            + " bytes is over protobuf's 2 GiB limit; store large initializers as external data");
    }
    ::onnx::ModelProto model;
    google::protobuf::io::ArrayInputStream stream(data, static_cast<int>(size));
    KILN_RETURN_IF_ERROR(parseModel(stream, what, model));
    return finishLoad(std::move(model), what, modelDirectory);
}

StatusOr<int64_t> onnxDefaultOpsetVersion(::onnx::ModelProto const& model)
{
    for (auto const& opset : model.opset_import())
    {
        if (opset.domain().empty() || opset.domain() == "ai.onnx")
        {
            return static_cast<int64_t>(opset.version());
        }
    }
    return invalidArgument("the ONNX model imports no opset for the default domain ('' or 'ai.onnx')");
}

} // namespace kiln
