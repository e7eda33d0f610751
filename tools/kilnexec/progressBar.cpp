// ProgressBar implementation.
#include "progressBar.h"

namespace kilnexec
{

void ProgressBar::phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    Phase phase;
    phase.name = phaseName != nullptr ? phaseName : "?";
    phase.nbSteps = nbSteps;
    phase.start = std::chrono::steady_clock::now();
    std::string const indent(2 * mPhases.size(), ' ');
    if (mTerminal)
    {
        draw(phase);
    }
    else
    {
        std::fprintf(mOut, "[I] %s[build] %s: started (%d steps%s%s)\n", indent.c_str(), phase.name.c_str(), nbSteps,
            parentPhase != nullptr ? ", part of " : "", parentPhase != nullptr ? parentPhase : "");
        std::fflush(mOut);
    }
    mPhases.push_back(phase);
}

bool ProgressBar::stepComplete(char const* phaseName, int32_t step) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (Phase& phase : mPhases)
    {
        if (phaseName != nullptr && phase.name == phaseName)
        {
            phase.done = step + 1;
            if (mTerminal)
            {
                draw(phase);
            }
        }
    }
    return true;
}

void ProgressBar::phaseFinish(char const* phaseName) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (size_t i = mPhases.size(); i-- > 0;)
    {
        if (phaseName != nullptr && mPhases[i].name == phaseName)
        {
            double const seconds
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - mPhases[i].start).count();
            std::string const indent(2 * i, ' ');
            if (mTerminal)
            {
                mPhases[i].done = mPhases[i].nbSteps;
                draw(mPhases[i]);
                std::fputc('\n', mOut);
            }
            else
            {
                std::fprintf(mOut, "[I] %s[build] %s: finished in %.3f s\n", indent.c_str(), phaseName, seconds);
            }
            std::fflush(mOut);
            mPhases.erase(mPhases.begin() + static_cast<std::ptrdiff_t>(i));
            return;
        }
    }
}

void ProgressBar::draw(Phase const& phase)
{
    constexpr int32_t kWIDTH = 40;
    int32_t const total = phase.nbSteps > 0 ? phase.nbSteps : 1;
    int32_t const done = phase.done < total ? phase.done : total;
    int32_t const filled = kWIDTH * done / total;
    std::string bar(static_cast<size_t>(filled), '=');
    bar += std::string(static_cast<size_t>(kWIDTH - filled), ' ');
    std::fprintf(mOut, "\r[I] [build] %-24.24s [%s] %d/%d", phase.name.c_str(), bar.c_str(), done, phase.nbSteps);
    std::fflush(mOut);
}

} // namespace kilnexec
