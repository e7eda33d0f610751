// Plugin creator keys: the generation (kind), name, version and namespace of a creator, read the way the plugin
// registry reads them (every call into the creator guarded, every string checked against TensorRT's limits).
#pragma once

#include "NvInferRuntime.h"
#include "core/status.h"

#include <cstdint>
#include <string>

namespace kiln
{

//! The creator generations the registry understands, decided by IVersionedInterface::getInterfaceInfo().kind.
enum class CreatorKind : int32_t
{
    kV1,      //!< "PLUGIN CREATOR_V1": nvinfer1::IPluginCreator (IPluginV2 family).
    kV3One,   //!< "PLUGIN CREATOR_V3ONE": nvinfer1::IPluginCreatorV3One.
    kV3Quick, //!< "PLUGIN CREATOR_V3QUICK": nvinfer1::IPluginCreatorV3Quick (Python quick plugins).
};

//! Printable name of a creator kind ("IPluginCreator", "IPluginCreatorV3One", "IPluginCreatorV3Quick").
char const* creatorKindName(CreatorKind kind) noexcept;

//! The kind of a creator from its interface info, with a readable error for unknown kinds and versions.
Status classifyCreator(nvinfer1::IPluginCreatorInterface const& creator, CreatorKind& kind);

//! Copy one string returned by a creator (`what` names it in messages), checking it against TensorRT's limit of
//! 1024 bytes including the terminator; a null string is an error, an empty one too unless `allowEmpty`.
Status takeCreatorString(char const* value, char const* what, bool allowEmpty, std::string& out);

//! Kind, name, version and own namespace of a creator (every call into it guarded; a null namespace means "").
Status loadCreatorKey(nvinfer1::IPluginCreatorInterface& creator, CreatorKind& kind, std::string& name,
    std::string& version, std::string& nspace);

//! "plugin 'name' version 'version' namespace 'nspace'", as registry messages name a key.
std::string describeKey(std::string const& name, std::string const& version, std::string const& nspace);

} // namespace kiln
