// Runs one ONNX backend node test through Kiln's public API: parse model.onnx, build an engine for the CPU, feed
// test_data_set_0/input_*.pb, and compare every output with output_*.pb within the stated tolerances.
#pragma once

#include <string>

namespace kiln::conformance
{

enum class Outcome
{
    kPASS,
    kFAIL,        //!< ran, wrong numbers or shapes
    kUNSUPPORTED, //!< the parser or builder refused the model (or the runner cannot feed its data types)
    kCRASH,       //!< the test process died (signal) — counted as a failure
    kTIMEOUT,     //!< the test process ran out of time — counted as a failure
};

char const* outcomeName(Outcome outcome);

struct CaseResult
{
    Outcome outcome{Outcome::kFAIL};
    std::string detail; //!< first error or the worst mismatch
};

//! Tolerances: |got - want| <= atol + rtol * |want| elementwise; NaN must match NaN, infinities must match exactly.
struct Tolerance
{
    double rtol;
    double atol;
};

//! The tolerance used for an output whose reference has ONNX element type `onnxType` (integers and bools: exact).
Tolerance toleranceFor(int32_t onnxType);

//! Run the test in directory `caseDir` (holding model.onnx and test_data_set_0/).
CaseResult runCase(std::string const& caseDir, bool verbose);

} // namespace kiln::conformance
