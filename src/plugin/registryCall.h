// callUserCode: how the plugin registry calls code it does not own (creators, shared resources, plugin libraries'
// entry points). Anything the call throws becomes an error Status naming the callee, so that no exception from a
// plugin library crosses the registry.
#pragma once

#include "core/status.h"

#include <exception>
#include <string>

namespace kiln
{

//! Run `body`, turning anything it throws into an error status that names `what` (the callee).
template <typename F>
Status callUserCode(std::string const& what, F&& body)
{
    try
    {
        body();
        return Status::ok();
    }
    catch (std::exception const& e)
    {
        return internalError(what + " threw an exception: " + e.what());
    }
    catch (...)
    {
        return internalError(what + " threw a non-standard exception");
    }
}

} // namespace kiln
