// Choosing cuDNN engine configs and cuBLASLt algorithms by timing (the CUDA backend's counterpart of TensorRT's
// per-layer tactic timing inside a library): the settings (KILN_AUTOTUNE, KILN_AUTOTUNE_CANDIDATES,
// KILN_AUTOTUNE_BUDGET_MS), scratch device buffers, the timing of one candidate on a private stream (warm runs, then
// the median of timed runs between CUDA events), process-wide counters and the verbose log of each choice.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cuda
{

struct AutotuneSettings
{
    bool enabled{true};      //!< false: the heuristics' first choice, nothing timed (KILN_AUTOTUNE=0)
    int32_t candidates{8};   //!< at most this many candidates built and timed per problem (KILN_AUTOTUNE_CANDIDATES)
    double budgetMs{150.0};  //!< wall time per problem for building more candidates (KILN_AUTOTUNE_BUDGET_MS)
    int32_t force{-1};       //!< tests: take the force-th timed candidate (heuristics order) instead of the fastest
    //! A short text of the settings, part of the cache keys of chosen plans and algorithms.
    std::string key() const;
};

//! The settings from the environment, or the override of setAutotuneOverride.
AutotuneSettings autotuneSettings();
//! Tests: replaces the environment's settings until called with nullopt.
void setAutotuneOverride(std::optional<AutotuneSettings> settings);

//! Process-wide counts of what was timed (tests and diagnostics).
struct AutotuneCounters
{
    int64_t cudnnProblems{0};   //!< cuDNN graphs whose candidates were timed
    int64_t cudnnCandidates{0}; //!< cuDNN plans timed in all
    int64_t lastCudnnTimed{0};  //!< candidates timed for the latest cuDNN graph
    int64_t lastCudnnChoice{-1}; //!< position of the kept one among them
    int64_t ltProblems{0};      //!< cuBLASLt problems whose algorithms were timed
    int64_t ltCandidates{0};    //!< cuBLASLt algorithms timed in all
    int64_t ltCacheHits{0};     //!< cuBLASLt problems answered from the process's earlier choice
    int64_t lastLtTimed{0};
    int64_t lastLtChoice{-1};
    double milliseconds{0.0}; //!< wall time spent building and timing candidates
};
AutotuneCounters autotuneCounters();

//! Records one timed problem: counts it (cuDNN with `cudnn`, else cuBLASLt) and writes to the verbose log "<what>:
//! <names[i]> <times[i]> ms, ...; kept <names[pick]> (<ms since start> ms)". `pick` < 0: none ran.
void reportAutotune(bool cudnn, std::string const& what, std::vector<std::string> const& names,
    std::vector<double> const& times, int64_t pick, std::chrono::steady_clock::time_point start);
//! Counts a cuBLASLt problem answered from the cache.
void countLtCacheHit();

//! Choices recorded into the engine file, so that loading an engine does not time again. An entry is a line
//! "<kind>\t<key>\t<value>" (kind "c": a cuDNN graph, value "<engine config index>\t<engine tag>"; kind "l": a
//! cuBLASLt problem, value "<algorithm bytes in hex>\t<workspace bytes>"). The builder installs a recorder on its
//! thread while it times a node's tactics and stores the entries in the node's "autotune" attribute; the CUDA backend
//! imports a node's entries when it creates the node's kernel, and the tuners use an imported choice (after checking
//! that it still builds) instead of timing.
std::vector<std::string>* exchangeTuningRecorder(std::vector<std::string>* recorder);
//! Appends an entry to this thread's recorder, if any.
void recordTuning(char kind, std::string const& key, std::string const& value);
//! Imports entries (lines as above; malformed lines are ignored) for the whole process.
void importTuning(std::string const& entries);
//! The imported value of (`kind`, `key`), if any.
std::optional<std::string> importedTuning(char kind, std::string const& key);

//! Device buffers for timing runs, freed on destruction. Filled with a constant byte pattern (finite values in FP32,
//! FP16 and BF16).
class ScratchBuffers
{
public:
    //! The buffers are filled on `stream` (the TimingStream's).
    explicit ScratchBuffers(cudaStream_t stream)
        : mStream(stream)
    {
    }
    ScratchBuffers(ScratchBuffers const&) = delete;
    ScratchBuffers& operator=(ScratchBuffers const&) = delete;
    ~ScratchBuffers();
    //! A new buffer of at least `bytes` (1 when 0), or nullptr when the allocation failed (the error is cleared).
    void* allocate(int64_t bytes);

private:
    cudaStream_t mStream;
    std::vector<void*> mBuffers;
};

//! A non-blocking stream with two events for timing; valid() is false when any of them could not be created. While
//! alive, this thread's stream-capture mode is relaxed, so that timing during another stream's capture (a reshape
//! inside a captured enqueue) neither fails nor invalidates that capture.
class TimingStream
{
public:
    TimingStream();
    TimingStream(TimingStream const&) = delete;
    TimingStream& operator=(TimingStream const&) = delete;
    ~TimingStream();
    bool valid() const { return mValid; }
    cudaStream_t stream() const { return mStream; }
    //! `launch` enqueues one run on stream() and returns false when it failed. The run is captured once into a CUDA
    //! graph (launched directly when it cannot be captured), so that host time between runs does not count; two warm
    //! runs, then the median of five samples of eight back-to-back runs, per run (ms); a negative value when a run
    //! or a CUDA call failed (CUDA errors are cleared).
    double time(std::function<bool()> const& launch);

private:
    //! The captured run, or nullptr.
    cudaGraphExec_t capture(std::function<bool()> const& launch);

    cudaStream_t mStream{nullptr};
    cudaStreamCaptureMode mMode{cudaStreamCaptureModeRelaxed};
    cudaEvent_t mStart{nullptr};
    cudaEvent_t mStop{nullptr};
    bool mValid{false};
};

//! The position to keep among `times` (negative = failed): the forced one when the settings force a valid position,
//! else the fastest; -1 when every candidate failed.
int64_t pickCandidate(std::vector<double> const& times, AutotuneSettings const& settings);

} // namespace kiln::cuda
