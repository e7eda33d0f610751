// CheckReport: the implementation of kiln::IPluginCheckReport that the plugin contract checker fills. It keeps one
// state per rule (pending, passed, failed, skipped with a reason), the findings in the order they were found
// (duplicates, e.g. the same overrun seen in every run, are dropped by key), notes, and the text form.
#pragma once

#include "core/logging.h"
#include "kiln/KilnPluginChecker.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::checker
{

class CheckReport final : public IPluginCheckReport
{
public:
    CheckReport();
    ~CheckReport() noexcept override = default;

    // IPluginCheckReport
    bool passed() const noexcept override;
    int32_t getNbFindings() const noexcept override;
    PluginCheckFinding getFinding(int32_t index) const noexcept override;
    int32_t countFindings(char const* rule) const noexcept override;
    int32_t getNbRules() const noexcept override;
    PluginCheckRuleResult getRule(int32_t index) const noexcept override;
    bool executionChecked() const noexcept override;
    int32_t getNbNotes() const noexcept override;
    char const* getNote(int32_t index) const noexcept override;
    char const* toText() const noexcept override;

    // Filling.

    //! Record a broken rule. `key` (default: rule + message) suppresses repeats of the same finding.
    void addFinding(char const* rule, std::string message, std::string key = {});
    //! The rule was checked (passes unless it also has findings).
    void markChecked(char const* rule);
    //! The rule could not be checked, and why (ignored when it was already checked or failed).
    void markSkipped(char const* rule, std::string reason);
    void addNote(std::string note);
    //! Lines printed before the rule table (plugin identity, negotiated I/O, workspace, tactics).
    void addSummaryLine(std::string line);
    void setExecutionChecked(bool checked) { mExecutionChecked = checked; }
    //! Whether `rule` already has a finding.
    bool failed(char const* rule) const;

    //! Resolve pending rules (skipped: "not reached"), build the text and log it at kVERBOSE through `logger`.
    void finalize(Logger const& logger);

private:
    struct RuleState
    {
        std::string id;
        PluginCheckOutcome outcome{PluginCheckOutcome::kSKIPPED};
        bool touched{false};
        std::string detail;
    };
    struct Finding
    {
        std::string rule;
        std::string message;
    };

    RuleState* find(char const* rule);
    RuleState const* find(char const* rule) const;

    std::vector<RuleState> mRules;
    std::vector<Finding> mFindings;
    std::set<std::string> mFindingKeys;
    std::vector<std::string> mNotes;
    std::vector<std::string> mSummary;
    std::string mText;
    bool mExecutionChecked{false};
};

} // namespace kiln::checker
