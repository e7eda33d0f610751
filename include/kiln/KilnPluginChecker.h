//! \file KilnPluginChecker.h
//! \brief Kiln extension: the plugin contract checker.
//!
//! checkPlugin() takes any creator registered in a plugin registry (IPluginCreator or IPluginCreatorV3One), creates
//! the plugin with the given fields, and walks it through the whole lifecycle that the builder and the runtime use:
//! create, clone, output count/types/shapes, format negotiation, configure, workspace, tactics, serialize,
//! deserialize through the creator, initialize/attach to a context, configure at the real shapes, enqueue, detach,
//! terminate and destroy. Every broken rule of the plugin contract becomes a finding with a stable rule id (see
//! PluginCheckRules) and a message naming the plugin, the call and the reason.
//!
//! The execution rules (outputs, workspace, inputs, determinism, repeated configure) run enqueue() on host memory,
//! so they need a plugin that opts into Kiln's CPU backend (kiln/KilnPluginCpu.h). For other plugins only the
//! static rules run; the report says that the execution rules were skipped and why.
//!
//! \code
//!     nvinfer1::Dims shape{2, {4, 16}};
//!     kiln::PluginCheckRequest request;
//!     request.pluginName = "LReLU_TRT";
//!     request.pluginVersion = "1";
//!     request.nbInputs = 1;
//!     request.inputShapes = &shape;
//!     kiln::IPluginCheckReport* report = kiln::checkPlugin(*getPluginRegistry(), request, &logger);
//!     std::printf("%s", report->toText());
//!     bool ok = report->passed();
//!     delete report;
//! \endcode
//!
//! The same checks are available from the command line: `kilnexec --checkPlugin=name[:version[:namespace]]`
//! (docs/plugin-checker.md).
#ifndef KILN_PLUGIN_CHECKER_H
#define KILN_PLUGIN_CHECKER_H

#include "NvInferRuntime.h"

#include <cstdint>

namespace kiln
{

//!
//! \brief The stable ids of the rules the checker reports. Each finding carries one of them.
//!
namespace PluginCheckRules
{
//! The request itself is unusable (missing name, bad shapes, wrong number of shape inputs, ...).
static constexpr char const* kBAD_REQUEST = "bad-request";
//! No creator with the requested name, version and namespace is registered.
static constexpr char const* kCREATOR_NOT_FOUND = "creator-not-found";
//! The creator or plugin is of a kind the checker cannot drive (e.g. Python quick plugins).
static constexpr char const* kNOT_CHECKABLE = "not-checkable";
//! A lifecycle call failed: non-zero return code, nullptr result (e.g. clone), exception, invalid output
//! dims/types or workspace size.
static constexpr char const* kCALL_FAILED = "call-failed";
//! The plugin reports a name, version or namespace different from its creator's, so engines that contain it
//! cannot find the creator again.
static constexpr char const* kIDENTITY_MISMATCH = "identity-mismatch";
//! supportsFormatCombination accepts no combination of the types and formats tried.
static constexpr char const* kNO_FORMAT_COMBINATION = "no-format-combination";
//! A clone differs from its original: output count, types, shapes, serialized bytes or outputs.
static constexpr char const* kCLONE_DIFFERS = "clone-differs";
//! serialize -> deserialize (through the creator) -> serialize gives different bytes, or different outputs.
static constexpr char const* kSERIALIZE_ROUNDTRIP = "serialize-roundtrip";
//! supportsFormatCombination(pos, ...) depends on inOut[i] for i > pos.
static constexpr char const* kFORMAT_READS_AHEAD = "format-reads-ahead";
//! enqueue writes past the bytes implied by the declared output dims, writes only a prefix of them, or a size
//! tensor reports a value outside [0, upper bound].
static constexpr char const* kOUTPUT_DIMS_MISMATCH = "output-dims-mismatch";
//! Some declared output elements are never written by enqueue.
static constexpr char const* kOUTPUT_UNWRITTEN = "output-unwritten";
//! enqueue writes past getWorkspaceSize() bytes of workspace (or uses workspace when the size is 0).
static constexpr char const* kWORKSPACE_OVERRUN = "workspace-overrun";
//! enqueue writes into an input that no output aliases.
static constexpr char const* kINPUT_MODIFIED = "input-modified";
//! Two runs with the same inputs give different outputs.
static constexpr char const* kNONDETERMINISTIC = "nondeterministic";
//! Configuring again (with other shapes, then the same ones) makes enqueue fail or change its results.
static constexpr char const* kREPEATED_CONFIGURE = "repeated-configure";
} // namespace PluginCheckRules

//!
//! \brief What to check: which creator, with which fields, on which inputs.
//!
//! Pointers are borrowed for the duration of checkPlugin() only.
//!
struct PluginCheckRequest
{
    //! Creator name (IPluginCreator::getPluginName()). Required.
    char const* pluginName{nullptr};
    //! Creator version. nullptr or "": the only version registered under that name and namespace.
    char const* pluginVersion{nullptr};
    //! Creator namespace ("" for none).
    char const* pluginNamespace{""};
    //! Fields passed to createPlugin() (nullptr: an empty collection).
    nvinfer1::PluginFieldCollection const* fields{nullptr};

    //! Number of regular (non-shape) inputs, and their shapes (nbInputs entries, every extent known).
    int32_t nbInputs{0};
    nvinfer1::Dims const* inputShapes{nullptr};
    //! Input types (nbInputs entries), or nullptr to let supportsFormatCombination choose them.
    nvinfer1::DataType const* inputTypes{nullptr};
    //! Optional second set of input shapes (nbInputs entries) for the dynamic-shape generations
    //! (IPluginV2DynamicExt, IPluginV3): the build configures a profile covering both sets, and the
    //! repeated-configure rule runs at these shapes between two runs at inputShapes. nullptr: not used.
    nvinfer1::Dims const* alternativeInputShapes{nullptr};

    //! IPluginV3 only: the values of its shape-tensor inputs (addPluginV3 shapeInputs), one Dims per shape input
    //! holding the values of that 1-D tensor (nbDims = its length).
    int32_t nbShapeInputs{0};
    nvinfer1::Dims const* shapeInputValues{nullptr};

    //! Runs with the same inputs compared by the nondeterministic rule (at least 2).
    int32_t nbRuns{2};
    //! Seed of the random input data.
    uint64_t seed{0x4B494C4EULL};
    //! Range of the random input values; when inputMin >= inputMax the defaults are used: [-1, 1] for floating
    //! point types, [0, 3] for INT32/INT64/UINT8, [-127, 127] for INT8 and {0, 1} for BOOL.
    double inputMin{0.0};
    double inputMax{0.0};
    //! Layer name given to createPlugin() and used in messages.
    char const* layerName{"checked_plugin"};
};

//!
//! \brief One broken rule: its id (PluginCheckRules) and what happened. Strings live as long as the report.
//!
struct PluginCheckFinding
{
    char const* rule;
    char const* message;
};

//!
//! \brief How one rule fared.
//!
enum class PluginCheckOutcome : int32_t
{
    kPASSED = 0,  //!< Checked; no finding.
    kFAILED = 1,  //!< At least one finding.
    kSKIPPED = 2, //!< Not checked; the detail says why.
};

//!
//! \brief The outcome of one rule; detail says why it was skipped ("" otherwise). Strings live as long as the
//! report.
//!
struct PluginCheckRuleResult
{
    char const* rule;
    PluginCheckOutcome outcome;
    char const* detail;
};

//!
//! \brief The result of checkPlugin(). Delete it when done.
//!
class IPluginCheckReport
{
public:
    //! True when the plugin was checked and no rule was broken.
    virtual bool passed() const noexcept = 0;

    //! The findings, in the order they were found.
    virtual int32_t getNbFindings() const noexcept = 0;
    //! Finding `index`; {nullptr, nullptr} when out of range.
    virtual PluginCheckFinding getFinding(int32_t index) const noexcept = 0;
    //! Number of findings with this rule id.
    virtual int32_t countFindings(char const* rule) const noexcept = 0;

    //! Every rule the checker knows, with its outcome.
    virtual int32_t getNbRules() const noexcept = 0;
    virtual PluginCheckRuleResult getRule(int32_t index) const noexcept = 0;

    //! True when the execution rules ran (the plugin opted into the CPU backend and the static stages succeeded).
    virtual bool executionChecked() const noexcept = 0;

    //! Notes that are not findings (e.g. why the execution rules were skipped, what was negotiated).
    virtual int32_t getNbNotes() const noexcept = 0;
    virtual char const* getNote(int32_t index) const noexcept = 0;

    //! The whole report as readable text (several lines, ending with a newline).
    virtual char const* toText() const noexcept = 0;

    virtual ~IPluginCheckReport() noexcept = default;

protected:
    IPluginCheckReport() = default;
    IPluginCheckReport(IPluginCheckReport const&) = default;
    IPluginCheckReport& operator=(IPluginCheckReport const&) = default;
};

//!
//! \brief Check the plugin served by a creator of `registry` (parent registries included) against the plugin
//! contract.
//!
//! \param registry Where the creator is looked up (e.g. *getPluginRegistry()).
//! \param request What to check.
//! \param logger Receives the lifecycle trace and the report text at kVERBOSE; may be nullptr.
//!
//! \return A report (never nullptr except when out of memory). Problems with the request are reported as findings
//! with rule PluginCheckRules::kBAD_REQUEST. The function never throws and survives plugins that throw.
//!
TENSORRTAPI IPluginCheckReport* checkPlugin(
    nvinfer1::IPluginRegistry& registry, PluginCheckRequest const& request, nvinfer1::ILogger* logger) noexcept;

} // namespace kiln

#endif // KILN_PLUGIN_CHECKER_H
