// Autotuning support shared by the cuDNN graph plans and the cuBLASLt algorithms (see autotune.h).
#include "backends/cuda/kernels/autotune.h"

#include "core/verboseLog.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

namespace kiln::cuda
{
namespace
{
std::mutex& stateMutex()
{
    static std::mutex m;
    return m;
}

std::optional<AutotuneSettings>& overrideSettings()
{
    static std::optional<AutotuneSettings> s;
    return s;
}

std::map<std::string, std::string>& imported()
{
    static std::map<std::string, std::string> m;
    return m;
}

thread_local std::vector<std::string>* tRecorder = nullptr;

constexpr size_t kMAX_IMPORTED = 16384;

AutotuneCounters& counters()
{
    static AutotuneCounters c;
    return c;
}

//! A positive number from the environment variable `name`, else `fallback`.
double envNumber(char const* name, double fallback)
{
    char const* env = std::getenv(name);
    if (env == nullptr)
    {
        return fallback;
    }
    char* end = nullptr;
    double const v = std::strtod(env, &end);
    return end != env && v > 0.0 ? v : fallback;
}

constexpr int32_t kWARM_RUNS = 2;
constexpr int32_t kTIMED_RUNS = 5;
constexpr int32_t kREPEATS = 8;
constexpr int32_t kMAX_CANDIDATES = 64;
} // namespace

std::string AutotuneSettings::key() const
{
    std::ostringstream os;
    os << (enabled ? 't' : 'h') << candidates << ',' << force;
    return os.str();
}

AutotuneSettings autotuneSettings()
{
    {
        std::lock_guard<std::mutex> lock(stateMutex());
        if (overrideSettings().has_value())
        {
            return *overrideSettings();
        }
    }
    AutotuneSettings s;
    char const* env = std::getenv("KILN_AUTOTUNE");
    s.enabled = env == nullptr || std::string(env) != "0";
    s.candidates = static_cast<int32_t>(std::min<double>(envNumber("KILN_AUTOTUNE_CANDIDATES", 8.0), kMAX_CANDIDATES));
    s.budgetMs = envNumber("KILN_AUTOTUNE_BUDGET_MS", 150.0);
    return s;
}

void setAutotuneOverride(std::optional<AutotuneSettings> settings)
{
    std::lock_guard<std::mutex> lock(stateMutex());
    overrideSettings() = std::move(settings);
}

AutotuneCounters autotuneCounters()
{
    std::lock_guard<std::mutex> lock(stateMutex());
    return counters();
}

void reportAutotune(bool cudnn, std::string const& what, std::vector<std::string> const& names,
    std::vector<double> const& times, int64_t pick, std::chrono::steady_clock::time_point start)
{
    double const ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto const timed = static_cast<int64_t>(std::count_if(times.begin(), times.end(), [](double t) { return t >= 0.0; }));
    {
        std::lock_guard<std::mutex> lock(stateMutex());
        AutotuneCounters& c = counters();
        (cudnn ? c.cudnnProblems : c.ltProblems) += 1;
        (cudnn ? c.cudnnCandidates : c.ltCandidates) += timed;
        (cudnn ? c.lastCudnnTimed : c.lastLtTimed) = timed;
        (cudnn ? c.lastCudnnChoice : c.lastLtChoice) = pick;
        c.milliseconds += ms;
    }
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(4);
    os << "autotune: " << what << ": " << names.size() << (cudnn ? " cuDNN plans [" : " cuBLASLt algorithms [");
    for (size_t i = 0; i < names.size() && i < times.size(); ++i)
    {
        os << (i == 0 ? "" : ", ") << names[i] << ' ';
        if (times[i] >= 0.0)
        {
            os << times[i] << " ms";
        }
        else
        {
            os << "failed";
        }
    }
    os.precision(1);
    os << "]; kept "
       << (pick >= 0 ? names[static_cast<size_t>(pick)] : names.front() + " (none ran: the heuristics' choice)")
       << " (" << ms << " ms)";
    logThreadVerbose(os.str());
}

void countLtCacheHit()
{
    std::lock_guard<std::mutex> lock(stateMutex());
    counters().ltCacheHits += 1;
}

std::vector<std::string>* exchangeTuningRecorder(std::vector<std::string>* recorder)
{
    std::vector<std::string>* previous = tRecorder;
    tRecorder = recorder;
    return previous;
}

void recordTuning(char kind, std::string const& key, std::string const& value)
{
    if (tRecorder == nullptr)
    {
        return;
    }
    std::string entry = std::string(1, kind) + '\t' + key + '\t' + value;
    if (std::find(tRecorder->begin(), tRecorder->end(), entry) == tRecorder->end())
    {
        tRecorder->push_back(std::move(entry));
    }
}

void importTuning(std::string const& entries)
{
    std::lock_guard<std::mutex> lock(stateMutex());
    size_t begin = 0;
    while (begin < entries.size())
    {
        size_t end = entries.find('\n', begin);
        end = end == std::string::npos ? entries.size() : end;
        std::string const line = entries.substr(begin, end - begin);
        begin = end + 1;
        size_t const tab = line.find('\t', 2);
        if (line.size() < 4 || line[1] != '\t' || tab == std::string::npos || tab + 1 >= line.size())
        {
            continue; // malformed: ignored (the tuner times instead)
        }
        if (imported().size() >= kMAX_IMPORTED)
        {
            imported().clear();
        }
        imported()[line.substr(0, tab)] = line.substr(tab + 1);
    }
}

std::optional<std::string> importedTuning(char kind, std::string const& key)
{
    std::lock_guard<std::mutex> lock(stateMutex());
    auto it = imported().find(std::string(1, kind) + '\t' + key);
    if (it == imported().end())
    {
        return std::nullopt;
    }
    return it->second;
}

ScratchBuffers::~ScratchBuffers()
{
    for (void* p : mBuffers)
    {
        (void) cudaFree(p);
    }
}

void* ScratchBuffers::allocate(int64_t bytes)
{
    void* p = nullptr;
    auto const size = static_cast<size_t>(std::max<int64_t>(bytes, 1));
    if (cudaMalloc(&p, size) != cudaSuccess)
    {
        (void) cudaGetLastError();
        return nullptr;
    }
    mBuffers.push_back(p);
    if (cudaMemsetAsync(p, 0x3C, size, mStream) != cudaSuccess)
    {
        (void) cudaGetLastError();
        return nullptr;
    }
    return p;
}

TimingStream::TimingStream()
{
    (void) cudaThreadExchangeStreamCaptureMode(&mMode);
    mValid = cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking) == cudaSuccess
        && cudaEventCreate(&mStart) == cudaSuccess && cudaEventCreate(&mStop) == cudaSuccess;
    if (!mValid)
    {
        (void) cudaGetLastError();
    }
}

TimingStream::~TimingStream()
{
    if (mStream != nullptr)
    {
        (void) cudaStreamSynchronize(mStream);
    }
    for (cudaEvent_t e : {mStart, mStop})
    {
        if (e != nullptr)
        {
            (void) cudaEventDestroy(e);
        }
    }
    if (mStream != nullptr)
    {
        (void) cudaStreamDestroy(mStream);
    }
    (void) cudaGetLastError();
    (void) cudaThreadExchangeStreamCaptureMode(&mMode);
}

cudaGraphExec_t TimingStream::capture(std::function<bool()> const& launch)
{
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (cudaStreamBeginCapture(mStream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    {
        (void) cudaGetLastError();
        return nullptr;
    }
    bool const launched = launch();
    cudaError_t const end = cudaStreamEndCapture(mStream, &graph);
    if (!launched || end != cudaSuccess || graph == nullptr || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)
    {
        exec = nullptr;
    }
    if (graph != nullptr)
    {
        (void) cudaGraphDestroy(graph);
    }
    (void) cudaGetLastError();
    return exec;
}

double TimingStream::time(std::function<bool()> const& launch)
{
    if (!mValid)
    {
        return -1.0;
    }
    cudaGraphExec_t const exec = capture(launch);
    auto const run = [&]() { return exec != nullptr ? cudaGraphLaunch(exec, mStream) == cudaSuccess : launch(); };
    double result = -1.0;
    bool ok = true;
    for (int32_t i = 0; ok && i < kWARM_RUNS; ++i)
    {
        ok = run();
    }
    ok = ok && cudaStreamSynchronize(mStream) == cudaSuccess;
    std::vector<double> samples;
    for (int32_t i = 0; ok && i < kTIMED_RUNS; ++i)
    {
        float ms = 0.F;
        ok = cudaEventRecord(mStart, mStream) == cudaSuccess;
        for (int32_t r = 0; ok && r < kREPEATS; ++r)
        {
            ok = run();
        }
        ok = ok && cudaEventRecord(mStop, mStream) == cudaSuccess && cudaEventSynchronize(mStop) == cudaSuccess
            && cudaEventElapsedTime(&ms, mStart, mStop) == cudaSuccess;
        samples.push_back(static_cast<double>(ms) / kREPEATS);
    }
    if (ok)
    {
        std::nth_element(samples.begin(), samples.begin() + kTIMED_RUNS / 2, samples.end());
        result = samples[kTIMED_RUNS / 2];
    }
    (void) cudaStreamSynchronize(mStream);
    if (exec != nullptr)
    {
        (void) cudaGraphExecDestroy(exec);
    }
    (void) cudaGetLastError();
    return result;
}

int64_t pickCandidate(std::vector<double> const& times, AutotuneSettings const& settings)
{
    auto const n = static_cast<int64_t>(times.size());
    if (settings.force >= 0 && settings.force < n && times[static_cast<size_t>(settings.force)] >= 0.0)
    {
        return settings.force;
    }
    int64_t best = -1;
    for (int64_t i = 0; i < n; ++i)
    {
        double const t = times[static_cast<size_t>(i)];
        if (t >= 0.0 && (best < 0 || t < times[static_cast<size_t>(best)]))
        {
            best = i;
        }
    }
    return best;
}

} // namespace kiln::cuda
