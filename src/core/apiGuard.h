// apiGuard: the one place where internal failures become TensorRT-style API results. It runs a body that
// returns Status or StatusOr<T>, reports failures to the logger and the error recorder, and catches every
// exception (including those thrown by user plugins or callbacks), returning the fallback value.
#pragma once

#include "core/logging.h"
#include "core/status.h"

#include <exception>
#include <new>
#include <type_traits>

namespace kiln
{

template <typename T>
struct IsStatusOr : std::false_type
{
};
template <typename T>
struct IsStatusOr<StatusOr<T>> : std::true_type
{
};

//! Run `body`; on failure log and record, returning `fallback`. `body` returns Status, StatusOr<R> or R.
template <typename R, typename F>
R apiGuard(Logger const& logger, nvinfer1::IErrorRecorder* recorder, R fallback, F&& body) noexcept
{
    try
    {
        using Result = decltype(body());
        if constexpr (std::is_same_v<Result, Status>)
        {
            Status st = body();
            if (!st.isOk())
            {
                logger.report(st, recorder);
                return fallback;
            }
            return R{true};
        }
        else if constexpr (IsStatusOr<Result>::value)
        {
            auto result = body();
            if (!result.isOk())
            {
                logger.report(result.status(), recorder);
                return fallback;
            }
            return static_cast<R>(std::move(result).value());
        }
        else
        {
            return body();
        }
    }
    catch (std::bad_alloc const&)
    {
        logger.report(failedAllocation("out of memory"), recorder);
    }
    catch (std::exception const& e)
    {
        logger.report(internalError(std::string("unexpected exception: ") + e.what()), recorder);
    }
    catch (...)
    {
        logger.report(internalError("unexpected non-standard exception"), recorder);
    }
    return fallback;
}

//! Report an API that Kiln declares but does not implement yet.
inline Status notImplemented(char const* api)
{
    return unsupported(std::string(api) + " is not supported by Kiln yet");
}

} // namespace kiln
