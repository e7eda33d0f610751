// pluginCallGuard: the one way Kiln calls into plugin code. A guarded call turns everything a plugin can do wrong
// while running into a Status naming the plugin and the call:
//  - a C++ exception that reaches the guard (std::exception -> its what(), anything else -> "unknown exception");
//  - an exception thrown inside one of the plugin's noexcept methods. The C++ runtime answers that by calling
//    std::terminate() in the plugin's own frame, so no catch block can see it. Kiln installs (once, chaining the
//    previous handler) a terminate handler which, when the current thread is inside a guarded call, reads the
//    active exception's message and siglongjmp()s back to the guard; the guard releases the exception and reports
//    "plugin ... threw from <call>: <what> (the exception crossed a noexcept boundary; ...)". Outside a guarded call
//    the handler defers to the previous handler, so ordinary terminate behaviour is unchanged.
//
// Limits of the noexcept rescue (it saves the process, not the plugin): the jump skips the destructors of every
// object alive in the frames between the guard and the throw (they leak, locks they held stay held), and the
// plugin object may be half-updated. The error message says so; callers should treat the plugin as unusable for
// the current operation, although the tests show that further calls usually still work. A plugin that calls
// std::terminate() itself (without an exception) inside a guarded call is reported the same way.
#pragma once

#include "core/status.h"
#include "plugin/pluginAdapter.h"

#include <string>
#include <type_traits>
#include <utility>

namespace kiln
{

//! Who is being called: an adapter (its label() is computed only when a call fails) or a plain description.
struct PluginCallee
{
    PluginAdapter const* adapter{nullptr};
    std::string const* description{nullptr};
    std::string describe() const;
};

//! Run fn(context) under the guard.
Status runGuardedPluginCall(PluginCallee const& callee, char const* call, void (*fn)(void*), void* context);

//! Guarded call of `f` (returning void or Status); `call` names the plugin method, e.g. "enqueue".
template <class F>
Status guardedPluginCall(PluginCallee const& callee, char const* call, F&& f)
{
    using Fn = std::remove_reference_t<F>;
    if constexpr (std::is_same_v<std::invoke_result_t<Fn&>, Status>)
    {
        struct Ctx
        {
            Fn* f;
            Status result;
        } ctx{&f, Status::ok()};
        Status guard = runGuardedPluginCall(
            callee, call, [](void* c) { auto* x = static_cast<Ctx*>(c); x->result = (*x->f)(); }, &ctx);
        return guard.isOk() ? ctx.result : guard;
    }
    else
    {
        return runGuardedPluginCall(callee, call, [](void* c) { (*static_cast<Fn*>(c))(); }, &f);
    }
}

//! Guarded call on behalf of `adapter` (its label() names the plugin and its layer).
template <class F>
Status guardedCall(PluginAdapter const& adapter, char const* call, F&& f)
{
    return guardedPluginCall(PluginCallee{&adapter, nullptr}, call, std::forward<F>(f));
}

//! Guarded call on behalf of a plugin described by `who` (before an adapter exists, e.g. creators).
template <class F>
Status guardedCallNamed(std::string const& who, char const* call, F&& f)
{
    return guardedPluginCall(PluginCallee{nullptr, &who}, call, std::forward<F>(f));
}

//! Whether the calling thread is inside a guarded plugin call (for tests and assertions).
bool insideGuardedPluginCall() noexcept;

} // namespace kiln
