// Plugin creator keys: see pluginCreatorKey.h.
#include "plugin/pluginCreatorKey.h"

#include "core/quoting.h"
#include "impl/NvInferPythonPlugin.h"
#include "plugin/registryCall.h"

#include <cstring>

namespace kiln
{
using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

//! TensorRT limits names, versions and namespaces to 1024 bytes including the terminator.
constexpr size_t kMAX_STRING_LENGTH = 1023;

// Creator methods are declared noexcept, but a library compiled against other headers (or a look-alike class) may
// still throw through them. Calling through member pointers without noexcept keeps a landing pad at every call
// site, so such an exception is caught and reported instead of terminating.
using GetInterfaceInfoFn = InterfaceInfo (IVersionedInterface::*)() const;
using V1StringFn = AsciiChar const* (IPluginCreator::*)() const;
using V3OneStringFn = AsciiChar const* (IPluginCreatorV3One::*)() const;
using V3QuickStringFn = AsciiChar const* (IPluginCreatorV3Quick::*)() const;

GetInterfaceInfoFn const kGetInterfaceInfo = &IVersionedInterface::getInterfaceInfo;
V1StringFn const kV1Name = &IPluginCreator::getPluginName;
V1StringFn const kV1Version = &IPluginCreator::getPluginVersion;
V1StringFn const kV1Namespace = &IPluginCreator::getPluginNamespace;
V3OneStringFn const kV3OneName = &IPluginCreatorV3One::getPluginName;
V3OneStringFn const kV3OneVersion = &IPluginCreatorV3One::getPluginVersion;
V3OneStringFn const kV3OneNamespace = &IPluginCreatorV3One::getPluginNamespace;
V3QuickStringFn const kV3QuickName = &IPluginCreatorV3Quick::getPluginName;
V3QuickStringFn const kV3QuickVersion = &IPluginCreatorV3Quick::getPluginVersion;
V3QuickStringFn const kV3QuickNamespace = &IPluginCreatorV3Quick::getPluginNamespace;

} // namespace

char const* creatorKindName(CreatorKind kind) noexcept
{
    switch (kind)
    {
    case CreatorKind::kV1: return "IPluginCreator";
    case CreatorKind::kV3One: return "IPluginCreatorV3One";
    case CreatorKind::kV3Quick: return "IPluginCreatorV3Quick";
    }
    return "unknown creator";
}

std::string describeKey(std::string const& name, std::string const& version, std::string const& nspace)
{
    return "plugin " + singleQuoted(name) + " version " + singleQuoted(version) + " namespace " + singleQuoted(nspace);
}

Status classifyCreator(IPluginCreatorInterface const& creator, CreatorKind& kind)
{
    InterfaceInfo info{};
    KILN_RETURN_IF_ERROR(callUserCode("getInterfaceInfo() of the plugin creator",
        [&] { info = (creator.*kGetInterfaceInfo)(); }));
    if (info.kind == nullptr)
    {
        return invalidArgument("the plugin creator's getInterfaceInfo() returned a null kind");
    }
    std::string const text = info.kind;
    if (text == "PLUGIN CREATOR_V1")
    {
        kind = CreatorKind::kV1;
    }
    else if (text == "PLUGIN CREATOR_V3ONE")
    {
        kind = CreatorKind::kV3One;
    }
    else if (text == "PLUGIN CREATOR_V3QUICK")
    {
        kind = CreatorKind::kV3Quick;
    }
    else
    {
        return unsupported("unsupported plugin creator interface " + singleQuoted(text)
            + " (expected \"PLUGIN CREATOR_V1\", \"PLUGIN CREATOR_V3ONE\" or \"PLUGIN CREATOR_V3QUICK\")");
    }
    if (info.major != 1)
    {
        return unsupported("unsupported version " + std::to_string(info.major) + "." + std::to_string(info.minor)
            + " of plugin creator interface " + singleQuoted(text) + " (Kiln implements version 1)");
    }
    return Status::ok();
}

Status takeCreatorString(char const* value, char const* what, bool allowEmpty, std::string& out)
{
    if (value == nullptr)
    {
        return invalidArgument(std::string("the plugin creator returned a null ") + what);
    }
    size_t const length = std::strlen(value);
    if (length > kMAX_STRING_LENGTH)
    {
        return invalidArgument(std::string("the plugin creator's ") + what + " is " + std::to_string(length)
            + " bytes long; at most " + std::to_string(kMAX_STRING_LENGTH) + " are allowed");
    }
    if (!allowEmpty && length == 0)
    {
        return invalidArgument(std::string("the plugin creator returned an empty ") + what);
    }
    out.assign(value, length);
    return Status::ok();
}

Status loadCreatorKey(IPluginCreatorInterface& creator, CreatorKind& kind, std::string& name, std::string& version,
    std::string& nspace)
{
    KILN_RETURN_IF_ERROR(classifyCreator(creator, kind));
    char const* n = nullptr;
    char const* v = nullptr;
    char const* ns = nullptr;
    std::string const kindName = creatorKindName(kind);
    switch (kind)
    {
    case CreatorKind::kV1:
    {
        auto& c = static_cast<IPluginCreator&>(creator);
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginName()", [&] { n = (c.*kV1Name)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginVersion()", [&] { v = (c.*kV1Version)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginNamespace()", [&] { ns = (c.*kV1Namespace)(); }));
        break;
    }
    case CreatorKind::kV3One:
    {
        auto& c = static_cast<IPluginCreatorV3One&>(creator);
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginName()", [&] { n = (c.*kV3OneName)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginVersion()", [&] { v = (c.*kV3OneVersion)(); }));
        KILN_RETURN_IF_ERROR(
            callUserCode(kindName + "::getPluginNamespace()", [&] { ns = (c.*kV3OneNamespace)(); }));
        break;
    }
    case CreatorKind::kV3Quick:
    {
        auto& c = static_cast<IPluginCreatorV3Quick&>(creator);
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginName()", [&] { n = (c.*kV3QuickName)(); }));
        KILN_RETURN_IF_ERROR(callUserCode(kindName + "::getPluginVersion()", [&] { v = (c.*kV3QuickVersion)(); }));
        KILN_RETURN_IF_ERROR(
            callUserCode(kindName + "::getPluginNamespace()", [&] { ns = (c.*kV3QuickNamespace)(); }));
        break;
    }
    }
    KILN_RETURN_IF_ERROR(takeCreatorString(n, "plugin name", false, name));
    KILN_RETURN_IF_ERROR(takeCreatorString(v, "plugin version", true, version).withContext("plugin " + singleQuoted(name)));
    // A null namespace means "" (as in lookups).
    KILN_RETURN_IF_ERROR(takeCreatorString(ns == nullptr ? "" : ns, "plugin namespace", true, nspace)
                             .withContext("plugin " + singleQuoted(name)));
    return Status::ok();
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
