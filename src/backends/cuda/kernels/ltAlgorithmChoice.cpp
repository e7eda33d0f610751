// cuBLASLt algorithm choice by timing (see ltAlgorithmChoice.h).
#include "backends/cuda/kernels/ltAlgorithmChoice.h"

#include "backends/cuda/cudaCheck.h"
#include "backends/cuda/kernels/autotune.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln::cuda
{
namespace
{

std::mutex& cacheMutex()
{
    static std::mutex m;
    return m;
}

std::map<std::string, LtChoice>& cache()
{
    static std::map<std::string, LtChoice> c;
    return c;
}

constexpr size_t kMAX_CACHE = 4096;

//! "#<position> id<algorithm> tile<tile> splitK<n>" for the log.
std::string algorithmName(size_t position, cublasLtMatmulAlgo_t const& algo)
{
    std::string name = "#" + std::to_string(position);
    for (auto [attr, label] : {std::pair{CUBLASLT_ALGO_CONFIG_ID, " id"}, std::pair{CUBLASLT_ALGO_CONFIG_TILE_ID, " tile"},
             std::pair{CUBLASLT_ALGO_CONFIG_SPLITK_NUM, " splitK"}})
    {
        int32_t value = 0;
        size_t written = 0;
        if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof(value), &written) == CUBLAS_STATUS_SUCCESS)
        {
            name += label + std::to_string(value);
        }
    }
    return name;
}

//! Times `results` on scratch buffers; their times in ms (negative: failed).
std::vector<double> timeAlgorithms(LtTimingProblem const& p, std::vector<cublasLtMatmulHeuristicResult_t> const& results)
{
    std::vector<double> times(results.size(), -1.0);
    size_t maxWorkspace = 0;
    for (auto const& r : results)
    {
        maxWorkspace = std::max(maxWorkspace, r.workspaceSize);
    }
    TimingStream timing;
    ScratchBuffers scratch(timing.stream());
    void* a = scratch.allocate(p.bytesA);
    void* b = scratch.allocate(p.bytesB);
    void* d = scratch.allocate(p.bytesC);
    void* workspace = scratch.allocate(static_cast<int64_t>(maxWorkspace));
    void* bias = p.bytesBias > 0 ? scratch.allocate(p.bytesBias) : nullptr;
    void* userBias = nullptr;
    if (a == nullptr || b == nullptr || d == nullptr || workspace == nullptr || (p.bytesBias > 0 && bias == nullptr)
        || !timing.valid())
    {
        return times;
    }
    if (bias != nullptr)
    {
        // The scratch bias for the timing runs; the caller's address is put back afterwards.
        size_t written = 0;
        if (cublasLtMatmulDescGetAttribute(
                p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &userBias, sizeof(userBias), &written)
                != CUBLAS_STATUS_SUCCESS
            || cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias))
                != CUBLAS_STATUS_SUCCESS)
        {
            return times;
        }
    }
    float const alpha = 1.F;
    float const beta = p.withC ? 1.F : 0.F;
    for (size_t i = 0; i < results.size(); ++i)
    {
        times[i] = timing.time([&]() {
            return cublasLtMatmul(p.handle, p.op, &alpha, a, p.a, b, p.b, &beta, d, p.c, d, p.c, &results[i].algo,
                       workspace, results[i].workspaceSize, timing.stream())
                == CUBLAS_STATUS_SUCCESS;
        });
    }
    if (bias != nullptr)
    {
        (void) cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &userBias, sizeof(userBias));
    }
    return times;
}

//! The recorded value of a choice: the algorithm's bytes in hex, a tab, the workspace bytes.
std::string encodeChoice(LtChoice const& c)
{
    static char const* const kDIGITS = "0123456789abcdef";
    std::string text;
    auto const* bytes = reinterpret_cast<unsigned char const*>(&c.algo);
    for (size_t i = 0; i < sizeof(c.algo); ++i)
    {
        text += kDIGITS[bytes[i] >> 4];
        text += kDIGITS[bytes[i] & 15];
    }
    return text + '\t' + std::to_string(c.workspaceBytes);
}

//! The imported choice `value` when it decodes and cuBLASLt confirms the algorithm for this problem.
std::optional<LtChoice> decodeChoice(LtTimingProblem const& p, std::string const& value)
{
    LtChoice c;
    size_t const hexBytes = 2 * sizeof(c.algo);
    if (value.size() < hexBytes + 2 || value[hexBytes] != '\t')
    {
        return std::nullopt;
    }
    auto* bytes = reinterpret_cast<unsigned char*>(&c.algo);
    for (size_t i = 0; i < hexBytes; ++i)
    {
        char const ch = value[i];
        int const digit = ch >= '0' && ch <= '9' ? ch - '0' : (ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1);
        if (digit < 0)
        {
            return std::nullopt;
        }
        bytes[i / 2] = static_cast<unsigned char>(i % 2 == 0 ? digit << 4 : bytes[i / 2] | digit);
    }
    cublasLtMatmulHeuristicResult_t check{};
    if (cublasLtMatmulAlgoCheck(p.handle, p.op, p.a, p.b, p.c, p.c, &c.algo, &check) != CUBLAS_STATUS_SUCCESS
        || check.state != CUBLAS_STATUS_SUCCESS)
    {
        return std::nullopt; // another cuBLASLt or device: time as usual
    }
    c.workspaceBytes = static_cast<int64_t>(check.workspaceSize);
    return c;
}

} // namespace

std::string ltProblemKey(std::initializer_list<int64_t> values)
{
    std::string key;
    for (int64_t v : values)
    {
        key += (key.empty() ? "" : ",") + std::to_string(v);
    }
    return key;
}

StatusOr<LtChoice> chooseLtAlgorithm(LtTimingProblem const& p, bool tune, std::string const& what)
{
    AutotuneSettings const settings = autotuneSettings();
    tune = tune && settings.enabled && settings.candidates > 1;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
    {
        (void) cudaGetLastError();
    }
    std::string const recordKey = p.key + "|d" + std::to_string(device);
    std::string const key = recordKey + "|" + settings.key();
    if (tune)
    {
        std::optional<LtChoice> known;
        {
            std::lock_guard<std::mutex> lock(cacheMutex());
            auto it = cache().find(key);
            if (it != cache().end())
            {
                known = it->second;
            }
        }
        if (known.has_value())
        {
            countLtCacheHit();
        }
        else if (std::optional<std::string> const imported = importedTuning('l', recordKey))
        {
            known = decodeChoice(p, *imported);
        }
        if (known.has_value())
        {
            std::lock_guard<std::mutex> lock(cacheMutex());
            cache().emplace(key, *known);
            recordTuning('l', recordKey, encodeChoice(*known));
            return *known;
        }
    }
    auto const start = std::chrono::steady_clock::now();
    int const requested = tune ? settings.candidates : 1;
    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(requested));
    int found = 0;
    KILN_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(
        p.handle, p.op, p.a, p.b, p.c, p.c, p.pref, requested, results.data(), &found));
    results.resize(static_cast<size_t>(std::max(found, 0)));
    results.erase(std::remove_if(results.begin(), results.end(),
                      [](cublasLtMatmulHeuristicResult_t const& r) { return r.state != CUBLAS_STATUS_SUCCESS; }),
        results.end());
    if (results.empty())
    {
        return unsupported(what + ": cuBLASLt has no algorithm for this product");
    }
    LtChoice choice{results.front().algo, static_cast<int64_t>(results.front().workspaceSize)};
    if (!tune || results.size() == 1)
    {
        return choice;
    }
    std::vector<double> const times = timeAlgorithms(p, results);
    int64_t const pick = pickCandidate(times, settings);
    if (pick >= 0)
    {
        auto const& r = results[static_cast<size_t>(pick)];
        choice = LtChoice{r.algo, static_cast<int64_t>(r.workspaceSize)};
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < results.size(); ++i)
    {
        names.push_back(algorithmName(i, results[i].algo));
    }
    reportAutotune(false, what + " (" + p.key + ")", names, times, pick, start);
    std::lock_guard<std::mutex> lock(cacheMutex());
    if (cache().size() >= kMAX_CACHE)
    {
        cache().clear();
    }
    cache().emplace(key, choice);
    recordTuning('l', recordKey, encodeChoice(choice));
    return choice;
}

} // namespace kiln::cuda
