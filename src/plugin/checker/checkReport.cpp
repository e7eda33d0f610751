// CheckReport implementation: rule bookkeeping and the text form of a plugin contract check.
#include "plugin/checker/checkReport.h"

#include <cstring>

namespace kiln::checker
{
namespace
{

//! Every rule, in the order the report lists them.
char const* const kRULE_ORDER[] = {
    PluginCheckRules::kBAD_REQUEST,
    PluginCheckRules::kCREATOR_NOT_FOUND,
    PluginCheckRules::kNOT_CHECKABLE,
    PluginCheckRules::kCALL_FAILED,
    PluginCheckRules::kIDENTITY_MISMATCH,
    PluginCheckRules::kNO_FORMAT_COMBINATION,
    PluginCheckRules::kFORMAT_READS_AHEAD,
    PluginCheckRules::kCLONE_DIFFERS,
    PluginCheckRules::kSERIALIZE_ROUNDTRIP,
    PluginCheckRules::kOUTPUT_DIMS_MISMATCH,
    PluginCheckRules::kOUTPUT_UNWRITTEN,
    PluginCheckRules::kWORKSPACE_OVERRUN,
    PluginCheckRules::kINPUT_MODIFIED,
    PluginCheckRules::kNONDETERMINISTIC,
    PluginCheckRules::kREPEATED_CONFIGURE,
};

//! Rules about the request and the lifecycle as a whole: they pass unless something failed.
bool isMetaRule(std::string const& id)
{
    return id == PluginCheckRules::kBAD_REQUEST || id == PluginCheckRules::kCREATOR_NOT_FOUND
        || id == PluginCheckRules::kNOT_CHECKABLE || id == PluginCheckRules::kCALL_FAILED;
}

char const* outcomeWord(PluginCheckOutcome outcome)
{
    switch (outcome)
    {
    case PluginCheckOutcome::kPASSED: return "PASS";
    case PluginCheckOutcome::kFAILED: return "FAIL";
    case PluginCheckOutcome::kSKIPPED: return "SKIP";
    }
    return "?";
}

} // namespace

CheckReport::CheckReport()
{
    for (char const* id : kRULE_ORDER)
    {
        RuleState state;
        state.id = id;
        mRules.push_back(std::move(state));
    }
}

CheckReport::RuleState* CheckReport::find(char const* rule)
{
    for (RuleState& state : mRules)
    {
        if (rule != nullptr && state.id == rule)
        {
            return &state;
        }
    }
    return nullptr;
}

CheckReport::RuleState const* CheckReport::find(char const* rule) const
{
    return const_cast<CheckReport*>(this)->find(rule);
}

void CheckReport::addFinding(char const* rule, std::string message, std::string key)
{
    if (key.empty())
    {
        key = std::string(rule) + "\n" + message;
    }
    else
    {
        key = std::string(rule) + "\n" + key;
    }
    if (!mFindingKeys.insert(key).second)
    {
        return;
    }
    RuleState* state = find(rule);
    if (state != nullptr)
    {
        state->outcome = PluginCheckOutcome::kFAILED;
        state->touched = true;
        state->detail.clear();
    }
    mFindings.push_back(Finding{rule, std::move(message)});
}

void CheckReport::markChecked(char const* rule)
{
    RuleState* state = find(rule);
    if (state != nullptr && state->outcome != PluginCheckOutcome::kFAILED)
    {
        state->outcome = PluginCheckOutcome::kPASSED;
        state->touched = true;
        state->detail.clear();
    }
}

void CheckReport::markSkipped(char const* rule, std::string reason)
{
    RuleState* state = find(rule);
    if (state != nullptr && !state->touched)
    {
        state->outcome = PluginCheckOutcome::kSKIPPED;
        state->touched = true;
        state->detail = std::move(reason);
    }
}

void CheckReport::addNote(std::string note)
{
    mNotes.push_back(std::move(note));
}

void CheckReport::addSummaryLine(std::string line)
{
    mSummary.push_back(std::move(line));
}

bool CheckReport::failed(char const* rule) const
{
    RuleState const* state = find(rule);
    return state != nullptr && state->outcome == PluginCheckOutcome::kFAILED;
}

void CheckReport::finalize(Logger const& logger)
{
    for (RuleState& state : mRules)
    {
        if (state.touched)
        {
            continue;
        }
        if (isMetaRule(state.id))
        {
            state.outcome = PluginCheckOutcome::kPASSED;
        }
        else
        {
            state.outcome = PluginCheckOutcome::kSKIPPED;
            state.detail = "not reached: an earlier step failed";
        }
        state.touched = true;
    }

    std::string text = "kiln plugin contract check\n";
    for (std::string const& line : mSummary)
    {
        text += "  " + line + "\n";
    }
    for (std::string const& note : mNotes)
    {
        text += "  note: " + note + "\n";
    }
    for (RuleState const& state : mRules)
    {
        text += std::string("  ") + outcomeWord(state.outcome) + "  " + state.id;
        if (state.outcome == PluginCheckOutcome::kSKIPPED && !state.detail.empty())
        {
            text += " (" + state.detail + ")";
        }
        text += "\n";
        for (Finding const& finding : mFindings)
        {
            if (finding.rule == state.id)
            {
                text += "        " + finding.message + "\n";
            }
        }
    }
    if (mFindings.empty())
    {
        text += "RESULT: PASSED (no findings";
        text += mExecutionChecked ? ")\n" : "; execution rules not run)\n";
    }
    else
    {
        text += "RESULT: FAILED (" + std::to_string(mFindings.size())
            + (mFindings.size() == 1 ? " finding)\n" : " findings)\n");
    }
    mText = std::move(text);

    logger.verbose(mText);
}

bool CheckReport::passed() const noexcept
{
    return mFindings.empty();
}

int32_t CheckReport::getNbFindings() const noexcept
{
    return static_cast<int32_t>(mFindings.size());
}

PluginCheckFinding CheckReport::getFinding(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbFindings())
    {
        return PluginCheckFinding{nullptr, nullptr};
    }
    Finding const& finding = mFindings[static_cast<size_t>(index)];
    return PluginCheckFinding{finding.rule.c_str(), finding.message.c_str()};
}

int32_t CheckReport::countFindings(char const* rule) const noexcept
{
    if (rule == nullptr)
    {
        return 0;
    }
    int32_t count = 0;
    for (Finding const& finding : mFindings)
    {
        count += finding.rule == rule ? 1 : 0;
    }
    return count;
}

int32_t CheckReport::getNbRules() const noexcept
{
    return static_cast<int32_t>(mRules.size());
}

PluginCheckRuleResult CheckReport::getRule(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbRules())
    {
        return PluginCheckRuleResult{nullptr, PluginCheckOutcome::kSKIPPED, nullptr};
    }
    RuleState const& state = mRules[static_cast<size_t>(index)];
    return PluginCheckRuleResult{state.id.c_str(), state.outcome, state.detail.c_str()};
}

bool CheckReport::executionChecked() const noexcept
{
    return mExecutionChecked;
}

int32_t CheckReport::getNbNotes() const noexcept
{
    return static_cast<int32_t>(mNotes.size());
}

char const* CheckReport::getNote(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbNotes())
    {
        return nullptr;
    }
    return mNotes[static_cast<size_t>(index)].c_str();
}

char const* CheckReport::toText() const noexcept
{
    return mText.c_str();
}

} // namespace kiln::checker
