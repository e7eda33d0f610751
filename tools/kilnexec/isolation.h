// Crash isolation for kilnexec --checkPlugin: the check runs in a child process, so that a plugin that crashes
// (e.g. a segmentation fault in enqueue) is reported, with the last step and plugin call made, instead of taking
// kilnexec down without a word.
#pragma once

#include "NvInferRuntime.h"

#include <functional>

namespace kilnexec
{

//! Run `body` in a child process and return its exit status. The child's logger is `inner` wrapped so that the
//! checker's steps ("plugin check: ...") and plugin calls ("plugin '...': call") also reach the parent. When the
//! child dies from a signal, the parent prints which signal and the last step and call, and returns 1.
int runIsolated(nvinfer1::ILogger& inner, std::function<int(nvinfer1::ILogger&)> const& body);

} // namespace kilnexec
