// Helpers shared by the registry tests (tests/plugin/pluginRegistry*Test.cpp): a logger and an error recorder
// that keep what they receive, toy creators of both generations, and small registry utilities.
#pragma once

#include "NvInfer.h"
#include "plugin/pluginRegistry.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::registry_test
{
using namespace nvinfer1;

class CapturingLogger final : public ILogger
{
public:
    void log(Severity severity, AsciiChar const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(severity, msg);
    }

    //! Whether a message of `severity` containing `text` was logged.
    bool has(Severity severity, std::string const& text) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (auto const& [s, m] : mMessages)
        {
            if (s == severity && m.find(text) != std::string::npos)
            {
                return true;
            }
        }
        return false;
    }

    //! How many messages of `severity` contain `text`.
    int32_t count(Severity severity, std::string const& text) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        int32_t n = 0;
        for (auto const& [s, m] : mMessages)
        {
            n += (s == severity && m.find(text) != std::string::npos) ? 1 : 0;
        }
        return n;
    }

    //! All messages of `severity`, one per line (for failure output).
    std::string dump(Severity severity) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::string out;
        for (auto const& [s, m] : mMessages)
        {
            if (s == severity)
            {
                out += m + "\n";
            }
        }
        return out;
    }

    void clear()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.clear();
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

class RecordingErrorRecorder final : public IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return static_cast<int32_t>(mErrors.size());
    }
    ErrorCode getErrorCode(int32_t errorIdx) const noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mErrors.at(static_cast<size_t>(errorIdx)).first;
    }
    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mErrors.at(static_cast<size_t>(errorIdx)).second.c_str();
    }
    bool hasOverflowed() const noexcept override
    {
        return false;
    }
    void clear() noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mErrors.clear();
    }
    bool reportError(ErrorCode val, ErrorDesc desc) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mErrors.emplace_back(val, desc);
        return true;
    }
    RefCount incRefCount() noexcept override
    {
        return ++mRefs;
    }
    RefCount decRefCount() noexcept override
    {
        return --mRefs;
    }
    RefCount refs() const
    {
        return mRefs.load();
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<ErrorCode, std::string>> mErrors;
    std::atomic<RefCount> mRefs{0};
};

//! A deprecated-generation creator: the registry gives it its namespace through setPluginNamespace().
class ToyV1Creator final : public IPluginCreator
{
public:
    ToyV1Creator(std::string name, std::string version)
        : mName(std::move(name))
        , mVersion(std::move(version))
    {
    }
    AsciiChar const* getPluginName() const noexcept override
    {
        return mName.c_str();
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return mVersion.c_str();
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    IPluginV2* createPlugin(AsciiChar const*, PluginFieldCollection const*) noexcept override
    {
        return nullptr;
    }
    IPluginV2* deserializePlugin(AsciiChar const*, void const*, size_t) noexcept override
    {
        return nullptr;
    }
    void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
        ++mSetNamespaceCalls;
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
    int32_t setNamespaceCalls() const
    {
        return mSetNamespaceCalls;
    }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    PluginFieldCollection mFields{};
    int32_t mSetNamespaceCalls{0};
};

//! A current-generation creator; its namespace is its own.
class ToyV3Creator final : public IPluginCreatorV3One
{
public:
    ToyV3Creator(std::string name, std::string version, std::string nspace = "")
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(nspace))
    {
    }
    IPluginV3* createPlugin(AsciiChar const*, PluginFieldCollection const*, TensorRTPhase) noexcept override
    {
        return nullptr;
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    AsciiChar const* getPluginName() const noexcept override
    {
        return mName.c_str();
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return mVersion.c_str();
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    PluginFieldCollection mFields{};
};

inline std::string libraryPath(char const* name)
{
    return std::string(KILN_LIBRARY_DIR) + "/lib" + name + ".so";
}

//! A local registry with no parent, logging verbosely into `logger`.
inline std::unique_ptr<kiln::PluginRegistry> makeRegistry(CapturingLogger& logger, IPluginRegistry* parent = nullptr)
{
    return kiln::createLocalRegistry(parent, &logger, "the test registry");
}

//! Points the process-wide registry logger at `logger` for the test's duration (other tests may have left a
//! logger there that no longer exists).
class GlobalLoggerScope
{
public:
    explicit GlobalLoggerScope(ILogger* logger)
        : mPrevious(kiln::registryLogger())
    {
        kiln::setRegistryLogger(logger);
    }
    ~GlobalLoggerScope()
    {
        kiln::setRegistryLogger(mPrevious);
    }

private:
    ILogger* mPrevious;
};

using Severity = ILogger::Severity;

} // namespace kiln::registry_test

KILN_IGNORE_DEPRECATED_END
