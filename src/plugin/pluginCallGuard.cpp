// pluginCallGuard implementation: try/catch for exceptions that reach the guard, plus a chained std::terminate
// handler and sigsetjmp/siglongjmp for exceptions thrown through a plugin's noexcept methods (see the header for
// what this rescue can and cannot do).
#include "plugin/pluginCallGuard.h"

#include <cxxabi.h>
#include <setjmp.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>

namespace kiln
{
namespace
{

//! One active guarded call of this thread (guarded calls may nest: a plugin calling back into Kiln).
struct GuardFrame
{
    sigjmp_buf jump;
    GuardFrame* previous{nullptr};
    void* caughtAtEntry{nullptr}; //!< the thread's innermost caught exception when the guard started
    bool hadException{false};     //!< terminate ran with a (new) caught exception, which the guard must release
    char what[512]{};             //!< its message
};

thread_local GuardFrame* tFrame = nullptr;
std::atomic<std::terminate_handler> gPreviousHandler{nullptr};
std::mutex gInstallMutex;

//! The innermost exception currently caught by this thread (libstdc++ and libc++abi both keep it first in
//! __cxa_eh_globals); compared with the value at guard entry to tell the plugin's exception from one that the
//! caller of the guard is handling.
void* innermostCaughtException() noexcept
{
    auto* globals = __cxxabiv1::__cxa_get_globals();
    return globals == nullptr ? nullptr : *reinterpret_cast<void**>(globals);
}

void copyMessage(GuardFrame& frame, char const* text) noexcept
{
    size_t i = 0;
    for (; text != nullptr && text[i] != '\0' && i + 1 < sizeof(frame.what); ++i)
    {
        frame.what[i] = text[i];
    }
    frame.what[i] = '\0';
}

[[noreturn]] void kilnTerminateHandler()
{
    GuardFrame* frame = tFrame;
    if (frame != nullptr)
    {
        // A second terminate while we extract the message goes to the outer guard (or the previous handler).
        tFrame = frame->previous;
        frame->hadException = innermostCaughtException() != frame->caughtAtEntry
            && innermostCaughtException() != nullptr;
        if (frame->hadException)
        {
            try
            {
                throw;
            }
            catch (std::exception const& e)
            {
                copyMessage(*frame, e.what());
            }
            catch (...)
            {
                copyMessage(*frame, "an exception that is not a std::exception");
            }
        }
        siglongjmp(frame->jump, 1);
    }
    std::terminate_handler previous = gPreviousHandler.load();
    if (previous != nullptr && previous != &kilnTerminateHandler)
    {
        previous();
    }
    std::abort();
}

void ensureTerminateHandler()
{
    if (std::get_terminate() == &kilnTerminateHandler)
    {
        return;
    }
    std::lock_guard<std::mutex> lock(gInstallMutex);
    std::terminate_handler current = std::get_terminate();
    if (current != &kilnTerminateHandler)
    {
        gPreviousHandler.store(current);
        std::set_terminate(&kilnTerminateHandler);
    }
}

} // namespace

std::string PluginCallee::describe() const
{
    if (adapter != nullptr)
    {
        return adapter->label();
    }
    return description != nullptr ? *description : std::string("plugin");
}

bool insideGuardedPluginCall() noexcept
{
    return tFrame != nullptr;
}

Status runGuardedPluginCall(PluginCallee const& callee, char const* call, void (*fn)(void*), void* context)
{
    ensureTerminateHandler();
    GuardFrame frame;
    frame.previous = tFrame;
    frame.caughtAtEntry = innermostCaughtException();
    GuardFrame* volatile active = &frame;
    tFrame = &frame;
    if (sigsetjmp(frame.jump, 0) != 0)
    {
        // Back from kilnTerminateHandler: the plugin's exception hit one of its noexcept frames.
        GuardFrame* f = active;
        tFrame = f->previous;
        if (!f->hadException)
        {
            return internalError(callee.describe() + " called std::terminate() in " + call
                + " (the plugin's state may be inconsistent)");
        }
        __cxxabiv1::__cxa_end_catch();
        return internalError(callee.describe() + " threw from " + call + ": " + f->what
            + " (the exception crossed a noexcept boundary; the plugin's state may be inconsistent)");
    }
    try
    {
        fn(context);
    }
    catch (std::exception const& e)
    {
        tFrame = active->previous;
        return internalError(callee.describe() + " threw from " + call + ": " + e.what());
    }
    catch (...)
    {
        tFrame = active->previous;
        return internalError(
            callee.describe() + " threw from " + call + ": an exception that is not a std::exception");
    }
    tFrame = active->previous;
    return Status::ok();
}

} // namespace kiln
