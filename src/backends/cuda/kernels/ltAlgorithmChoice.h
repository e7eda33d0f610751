// The cuBLASLt algorithm of a matrix product chosen by timing: several heuristic results timed once per problem on
// scratch buffers (autotune.h), the fastest kept and remembered by the problem's description for the process.
#pragma once

#include "core/status.h"

#include <cublasLt.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace kiln::cuda
{

//! The preference every Kiln product sets beside its alignments: split-K partial sums reduced in the compute type
//! (FP32) only. The other schemes (INPLACE, OUTPUT_TYPE) add them up in the output type, FP16/BF16: faster, so timing
//! would pick them, but less precise than the CPU reference (cuDNN's REDUCED_PRECISION_REDUCTION is deselected likewise).
inline constexpr std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> kFP32_SPLIT_K_ONLY{
    CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, static_cast<uint32_t>(CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE)};

//! A cuBLASLt product as the heuristics see it (descriptors owned by the caller) and what timing it needs.
struct LtTimingProblem
{
    LtTimingProblem(cublasLtHandle_t h, cublasLtMatmulDesc_t o, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
        cublasLtMatrixLayout_t lc, cublasLtMatmulPreference_t p)
        : handle(h)
        , op(o)
        , a(la)
        , b(lb)
        , c(lc)
        , pref(p)
    {
    }
    cublasLtHandle_t handle{nullptr};
    cublasLtMatmulDesc_t op{nullptr};
    cublasLtMatrixLayout_t a{nullptr};
    cublasLtMatrixLayout_t b{nullptr};
    cublasLtMatrixLayout_t c{nullptr}; //!< C and D
    cublasLtMatmulPreference_t pref{nullptr};
    int64_t bytesA{0}; //!< of cuBLASLt's A, B and D operands (all batches)
    int64_t bytesB{0};
    int64_t bytesC{0};
    int64_t bytesBias{0}; //!< the bias vector's bytes when the epilogue reads one, else 0
    bool withC{false};    //!< beta = 1 (C read)
    std::string key;      //!< the problem's full description (shape, types, operations, epilogue, alignments)
};

struct LtChoice
{
    cublasLtMatmulAlgo_t algo{};
    int64_t workspaceBytes{0};
};

//! A problem description: the values joined by commas.
std::string ltProblemKey(std::initializer_list<int64_t> values);

//! The heuristics' first algorithm, or with `tune` and autotuning on, the fastest of up to the settings' number of
//! heuristic results (timed once per key and settings in the process; a candidate that fails to run is skipped).
//! `what` names the layer in messages. Unsupported when the heuristics return no algorithm.
StatusOr<LtChoice> chooseLtAlgorithm(LtTimingProblem const& p, bool tune, std::string const& what);

} // namespace kiln::cuda
