// Status and StatusOr<T>: how errors travel inside src/. A failed Status carries an nvinfer1::ErrorCode
// and a message; the API boundary (core/apiGuard.h) turns it into ILogger/IErrorRecorder reports.
#pragma once

#include "NvInferRuntimeBase.h"

#include <optional>
#include <string>
#include <utility>

namespace kiln
{

class Status
{
public:
    Status() = default;
    Status(nvinfer1::ErrorCode code, std::string message)
        : mCode(code)
        , mMessage(std::move(message))
    {
    }

    static Status ok() { return Status(); }

    bool isOk() const { return mCode == nvinfer1::ErrorCode::kSUCCESS; }
    explicit operator bool() const { return isOk(); }
    nvinfer1::ErrorCode code() const { return mCode; }
    std::string const& message() const { return mMessage; }

    //! Prefix the message with context, e.g. the layer name ("layer 'conv1': ...").
    Status withContext(std::string const& context) const
    {
        if (isOk())
        {
            return *this;
        }
        return Status(mCode, context + ": " + mMessage);
    }

private:
    nvinfer1::ErrorCode mCode{nvinfer1::ErrorCode::kSUCCESS};
    std::string mMessage;
};

// Shorthands for the common error kinds.
inline Status invalidArgument(std::string msg) { return Status(nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(msg)); }
inline Status invalidConfig(std::string msg) { return Status(nvinfer1::ErrorCode::kINVALID_CONFIG, std::move(msg)); }
inline Status invalidState(std::string msg) { return Status(nvinfer1::ErrorCode::kINVALID_STATE, std::move(msg)); }
inline Status internalError(std::string msg) { return Status(nvinfer1::ErrorCode::kINTERNAL_ERROR, std::move(msg)); }
inline Status unsupported(std::string msg) { return Status(nvinfer1::ErrorCode::kUNSUPPORTED_STATE, std::move(msg)); }
inline Status failedExecution(std::string msg) { return Status(nvinfer1::ErrorCode::kFAILED_EXECUTION, std::move(msg)); }
inline Status failedAllocation(std::string msg) { return Status(nvinfer1::ErrorCode::kFAILED_ALLOCATION, std::move(msg)); }

template <typename T>
class StatusOr
{
public:
    StatusOr(T value)
        : mValue(std::move(value))
    {
    }
    StatusOr(Status status)
        : mStatus(std::move(status))
    {
        if (mStatus.isOk())
        {
            mStatus = internalError("StatusOr constructed from an OK status without a value");
        }
    }

    bool isOk() const { return mValue.has_value(); }
    Status const& status() const { return mStatus; }
    T& value() & { return *mValue; }
    T const& value() const& { return *mValue; }
    T&& value() && { return std::move(*mValue); }
    T* operator->() { return &*mValue; }
    T const* operator->() const { return &*mValue; }
    T& operator*() & { return *mValue; }

private:
    Status mStatus;
    std::optional<T> mValue;
};

} // namespace kiln

#define KILN_CONCAT_INNER(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_INNER(a, b)

//! Return the Status from the enclosing function if `expr` failed.
#define KILN_RETURN_IF_ERROR(expr)                                                                                     \
    do                                                                                                                 \
    {                                                                                                                  \
        ::kiln::Status kilnStatus_ = (expr);                                                                           \
        if (!kilnStatus_.isOk())                                                                                       \
        {                                                                                                              \
            return kilnStatus_;                                                                                        \
        }                                                                                                              \
    } while (false)

//! `KILN_ASSIGN_OR_RETURN(auto x, makeX());` unwraps a StatusOr or returns its error.
#define KILN_ASSIGN_OR_RETURN(lhs, expr) KILN_ASSIGN_OR_RETURN_IMPL(KILN_CONCAT(kilnOr_, __LINE__), lhs, expr)
#define KILN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                                                                     \
    auto tmp = (expr);                                                                                                 \
    if (!tmp.isOk())                                                                                                   \
    {                                                                                                                  \
        return tmp.status();                                                                                           \
    }                                                                                                                  \
    lhs = std::move(tmp).value()

//! Fail with kINVALID_ARGUMENT and `msg` unless `cond` holds.
#define KILN_CHECK_ARG(cond, msg)                                                                                      \
    do                                                                                                                 \
    {                                                                                                                  \
        if (!(cond))                                                                                                   \
        {                                                                                                              \
            return ::kiln::invalidArgument(msg);                                                                       \
        }                                                                                                              \
    } while (false)
