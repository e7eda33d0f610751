// Counting and reporting conformance results: the one-line summary and the Markdown page (docs/onnx-conformance.md).
#pragma once

#include "caseRunner.h"

#include <string>
#include <vector>

namespace kiln::conformance
{

struct Summary
{
    size_t total{0};
    size_t passed{0};
    size_t failed{0};      //!< wrong numbers, crashes and timeouts
    size_t unsupported{0};
    double passRate() const { return total == 0 ? 0.0 : static_cast<double>(passed) / static_cast<double>(total); }
};

Summary summarize(std::vector<std::string> const& names, std::vector<CaseResult> const& results);
std::string summaryLine(Summary const& s);
//! `opTypes[i]` is the operator test i exercises (its only op type, or a label for multi-op graphs).
bool writeMarkdownSummary(std::string const& path, Summary const& s, std::string const& dataDir,
    std::vector<std::string> const& names, std::vector<CaseResult> const& results,
    std::vector<std::string> const& opTypes);

//! The operator a test exercises: the single op type of its graph, or "(several ops)" / "(expanded function)".
std::string primaryOpType(std::string const& caseDir, std::string const& testName);

} // namespace kiln::conformance
