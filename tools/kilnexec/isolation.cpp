// Crash isolation for kilnexec: fork, run the check in the child, report a crash from the parent.
#include "isolation.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace kilnexec
{
namespace
{

//! Forwards to the user's logger and sends progress lines to the parent through a pipe.
class ProgressLogger final : public nvinfer1::ILogger
{
public:
    ProgressLogger(nvinfer1::ILogger& inner, int fd)
        : mInner(inner)
        , mFd(fd)
    {
    }

    void log(Severity severity, char const* message) noexcept override
    {
        if (message != nullptr && severity == Severity::kVERBOSE
            && (std::strncmp(message, "plugin check: ", 14) == 0 || std::strncmp(message, "plugin '", 8) == 0))
        {
            std::string line = std::string(std::strncmp(message, "plugin check: ", 14) == 0 ? "S" : "C") + message;
            line.erase(std::min(line.size(), size_t{4000}));
            line += '\n';
            for (size_t done = 0; done < line.size();)
            {
                ssize_t n = ::write(mFd, line.data() + done, line.size() - done);
                if (n <= 0 && errno != EINTR)
                {
                    break;
                }
                done += n > 0 ? static_cast<size_t>(n) : 0;
            }
        }
        mInner.log(severity, message);
    }

private:
    nvinfer1::ILogger& mInner;
    int mFd;
};

} // namespace

int runIsolated(nvinfer1::ILogger& inner, std::function<int(nvinfer1::ILogger&)> const& body)
{
    int fds[2];
    if (::pipe(fds) != 0)
    {
        return body(inner);
    }
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t const child = ::fork();
    if (child < 0)
    {
        ::close(fds[0]);
        ::close(fds[1]);
        return body(inner);
    }
    if (child == 0)
    {
        ::close(fds[0]);
        ProgressLogger logger(inner, fds[1]);
        int const status = body(logger);
        std::fflush(stdout);
        std::fflush(stderr);
        ::close(fds[1]);
        std::_Exit(status);
    }
    ::close(fds[1]);
    std::string lastStep;
    std::string lastCall;
    std::string pending;
    char buffer[4096];
    while (true)
    {
        ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            break;
        }
        pending.append(buffer, static_cast<size_t>(n));
        size_t end = 0;
        while ((end = pending.find('\n')) != std::string::npos)
        {
            std::string line = pending.substr(0, end);
            pending.erase(0, end + 1);
            if (!line.empty())
            {
                (line[0] == 'S' ? lastStep : lastCall) = line.substr(1);
            }
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR)
    {
    }
    if (WIFEXITED(status))
    {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status))
    {
        int const sig = WTERMSIG(status);
        char const* name = strsignal(sig);
        std::fflush(stdout);
        std::printf("kiln plugin contract check\n  CRASH the check died from signal %d (%s)\n", sig,
            name != nullptr ? name : "?");
        std::printf("        last step: %s\n", lastStep.empty() ? "(none logged)" : lastStep.c_str());
        std::printf("        last plugin call: %s\n", lastCall.empty() ? "(none logged)" : lastCall.c_str());
        std::printf("RESULT: FAILED (the plugin crashed the process; run with --noIsolation under a debugger to "
                    "see where)\n");
        std::fflush(stdout);
        return 1;
    }
    return 1;
}

} // namespace kilnexec
