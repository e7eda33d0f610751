// ProgressBar: kilnexec's IProgressMonitor for engine builds. On a terminal it redraws one bar per phase in place;
// otherwise (pipes, CI logs) it prints a plain line when a phase starts and when it finishes.
#pragma once

#include "NvInfer.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace kilnexec
{

class ProgressBar final : public nvinfer1::IProgressMonitor
{
public:
    //! `out` receives the progress; `terminal` chooses the redrawn bar over plain lines.
    ProgressBar(std::FILE* out, bool terminal)
        : mOut(out)
        , mTerminal(terminal)
    {
    }

    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override;
    bool stepComplete(char const* phaseName, int32_t step) noexcept override;
    void phaseFinish(char const* phaseName) noexcept override;

private:
    struct Phase
    {
        std::string name;
        int32_t nbSteps{0};
        int32_t done{0};
        std::chrono::steady_clock::time_point start;
    };
    void draw(Phase const& phase);

    std::FILE* mOut;
    bool mTerminal;
    std::mutex mMutex;
    std::vector<Phase> mPhases;
};

} // namespace kilnexec
