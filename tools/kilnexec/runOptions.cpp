// kilnexec's build, inference and reporting flags (trtexec spelling and semantics): shape specs grouped into
// optimization profiles, precision flags, memory pools, timing and export flags, and their cross-checks.
#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

namespace kilnexec
{
namespace
{

bool toDouble(std::string const& text, double& value)
{
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    return !text.empty() && errno == 0 && end == text.c_str() + text.size() && std::isfinite(value);
}

bool toInt(std::string const& text, int64_t& value)
{
    char* end = nullptr;
    errno = 0;
    value = std::strtoll(text.c_str(), &end, 10);
    return !text.empty() && errno == 0 && end == text.c_str() + text.size();
}

//! Split on commas outside single quotes.
std::vector<std::string> splitOutsideQuotes(std::string const& text)
{
    std::vector<std::string> items(1);
    bool quoted = false;
    for (char c : text)
    {
        if (c == '\'')
        {
            quoted = !quoted;
        }
        if (c == ',' && !quoted)
        {
            items.emplace_back();
            continue;
        }
        items.back() += c;
    }
    return items;
}

//! The profile that the next --minShapes/--optShapes/--maxShapes fills; a flag given twice for one profile starts
//! a new profile, as repeating the flags does in trtexec.
ProfileShapes& profileFor(Options& options, bool ProfileShapes::*flag)
{
    if (options.profiles.size() <= static_cast<size_t>(options.currentProfile))
    {
        options.profiles.resize(static_cast<size_t>(options.currentProfile) + 1);
    }
    if (options.profiles[static_cast<size_t>(options.currentProfile)].*flag)
    {
        options.currentProfile = static_cast<int32_t>(options.profiles.size());
        options.profiles.emplace_back();
    }
    return options.profiles[static_cast<size_t>(options.currentProfile)];
}

bool parseMemPools(std::string const& value, Options& options, std::string& error)
{
    static char const* const kPOOLS[] = {"workspace", "dlaSRAM", "dlaLocalDRAM", "dlaGlobalDRAM", "tacticSharedMem"};
    for (std::string const& item : splitText(value, ','))
    {
        size_t const colon = item.rfind(':');
        std::string const pool = colon == std::string::npos ? "" : item.substr(0, colon);
        bool known = false;
        for (char const* name : kPOOLS)
        {
            known = known || pool == name;
        }
        std::string size = colon == std::string::npos ? "" : item.substr(colon + 1);
        double scale = 1024.0 * 1024.0; // trtexec: MiB when no suffix is given
        if (!size.empty())
        {
            char const unit = size.back();
            std::map<char, double> const units = {{'B', 1.0}, {'K', 1024.0}, {'M', 1024.0 * 1024.0},
                {'G', 1024.0 * 1024.0 * 1024.0}};
            if (units.count(unit) != 0)
            {
                scale = units.at(unit);
                size.pop_back();
            }
        }
        double amount = 0.0;
        if (!known || !toDouble(size, amount) || amount < 0.0)
        {
            error = "kilnexec: --memPoolSize=" + value + ": '" + item
                + "' is not pool:size (pools: workspace, dlaSRAM, dlaLocalDRAM, dlaGlobalDRAM, tacticSharedMem; "
                  "size with suffix B, K, M or G, MiB without one)";
            return false;
        }
        options.memPools.emplace_back(pool, amount * scale);
    }
    return true;
}

bool parseLoadInputs(std::string const& value, Options& options, std::string& error)
{
    for (std::string const& item : splitOutsideQuotes(value))
    {
        std::string name;
        std::string file;
        if (!item.empty() && item[0] == '\'')
        {
            size_t const close = item.find('\'', 1);
            if (close == std::string::npos || close + 1 >= item.size() || item[close + 1] != ':')
            {
                error = "kilnexec: --loadInputs=" + value + ": '" + item + "' is not 'name':file";
                return false;
            }
            name = item.substr(1, close - 1);
            file = item.substr(close + 2);
        }
        else
        {
            size_t const colon = item.find(':');
            name = colon == std::string::npos ? "" : item.substr(0, colon);
            file = colon == std::string::npos ? "" : item.substr(colon + 1);
        }
        if (name.empty() || file.empty())
        {
            error = "kilnexec: --loadInputs=" + value + ": '" + item + "' is not name:file";
            return false;
        }
        options.loadInputs.emplace_back(name, file);
    }
    return true;
}

//! Flags without a value.
std::map<std::string, bool Options::*> const& switches()
{
    static std::map<std::string, bool Options::*> const m = {{"fp16", &Options::fp16}, {"bf16", &Options::bf16},
        {"int8", &Options::int8}, {"best", &Options::best}, {"stronglyTyped", &Options::stronglyTyped},
        {"noTF32", &Options::noTF32}, {"skipInference", &Options::skipInference},
        {"useCudaGraph", &Options::useCudaGraph}, {"noDataTransfers", &Options::noDataTransfers},
        {"separateProfileRun", &Options::separateProfileRun}, {"dumpOutput", &Options::dumpOutput},
        {"dumpProfile", &Options::dumpProfile}, {"dumpLayerInfo", &Options::dumpLayerInfo},
        {"noBuilderCache", &Options::noBuilderCache}};
    return m;
}

//! Flags whose value is a file name.
std::map<std::string, std::string Options::*> const& fileFlags()
{
    static std::map<std::string, std::string Options::*> const m = {{"onnx", &Options::onnxFile},
        {"saveEngine", &Options::saveEngine}, {"loadEngine", &Options::loadEngine},
        {"exportOutput", &Options::exportOutput}, {"exportProfile", &Options::exportProfile},
        {"exportTimes", &Options::exportTimes}, {"exportLayerInfo", &Options::exportLayerInfo},
        {"timingCacheFile", &Options::timingCacheFile}};
    return m;
}

} // namespace

std::string dimsText(nvinfer1::Dims const& dims)
{
    if (dims.nbDims <= 0)
    {
        return dims.nbDims == 0 ? "scalar" : "(unknown)";
    }
    std::string text;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? "x" : "") + std::to_string(dims.d[i]);
    }
    return text;
}

bool parseShapeSpec(std::string const& flag, std::string const& value, std::vector<ShapeSpec>& out, std::string& error)
{
    out.clear();
    for (std::string const& item : splitOutsideQuotes(value))
    {
        ShapeSpec spec;
        std::string dims;
        bool ok = true;
        if (!item.empty() && item[0] == '\'')
        {
            size_t const close = item.find('\'', 1);
            ok = close != std::string::npos && close + 1 < item.size() && item[close + 1] == ':';
            if (ok)
            {
                spec.name = item.substr(1, close - 1);
                dims = item.substr(close + 2);
            }
        }
        else
        {
            // Unquoted names may hold ':' themselves ("input:0:1x3"): the shape follows the last colon.
            size_t const colon = item.rfind(':');
            ok = colon != std::string::npos && colon > 0;
            if (ok)
            {
                spec.name = item.substr(0, colon);
                dims = item.substr(colon + 1);
            }
        }
        if (!ok || spec.name.empty() || !parseDims(dims, spec.dims))
        {
            error = "kilnexec: --" + flag + "=" + value + ": '" + item
                + "' is not name:shape (write name:AxBxC, e.g. input:1x3x224x224, 'scalar' for rank 0; quote names "
                  "with ',' in single quotes)";
            return false;
        }
        for (ShapeSpec const& other : out)
        {
            if (other.name == spec.name)
            {
                error = "kilnexec: --" + flag + "=" + value + ": input '" + spec.name + "' is given twice";
                return false;
            }
        }
        out.push_back(spec);
    }
    return true;
}

int parseRunOption(std::string const& name, bool hasValue, std::string const& value, Options& options,
    std::string& error)
{
    auto needValue = [&]() {
        if (!hasValue || value.empty())
        {
            error = "kilnexec: --" + name + " needs a value (--" + name + "=...)";
            return false;
        }
        return true;
    };
    if (auto it = switches().find(name); it != switches().end())
    {
        if (hasValue)
        {
            error = "kilnexec: --" + name + " takes no value";
            return -1;
        }
        options.*(it->second) = true;
        return 1;
    }
    if (auto it = fileFlags().find(name); it != fileFlags().end())
    {
        if (!needValue())
        {
            return -1;
        }
        options.*(it->second) = value;
        return 1;
    }
    if (name == "shapes" || name == "minShapes" || name == "optShapes" || name == "maxShapes")
    {
        std::vector<ShapeSpec> specs;
        if (!needValue() || !parseShapeSpec(name, value, specs, error))
        {
            return -1;
        }
        if (name == "shapes")
        {
            options.shapes = specs;
            return 1;
        }
        bool ProfileShapes::*flag
            = name == "minShapes" ? &ProfileShapes::hasMin : (name == "optShapes" ? &ProfileShapes::hasOpt : &ProfileShapes::hasMax);
        ProfileShapes& profile = profileFor(options, flag);
        profile.*flag = true;
        (name == "minShapes" ? profile.min : (name == "optShapes" ? profile.opt : profile.max)) = specs;
        return 1;
    }
    int64_t number = 0;
    double real = 0.0;
    if (name == "profile")
    {
        if (!needValue() || !toInt(value, number) || number < 0 || number > 1023)
        {
            error = error.empty() ? "kilnexec: --profile=" + value + ": expected a profile index 0..1023" : error;
            return -1;
        }
        options.currentProfile = static_cast<int32_t>(number);
        options.inferenceProfile = static_cast<int32_t>(number);
        if (options.profiles.size() <= static_cast<size_t>(number))
        {
            options.profiles.resize(static_cast<size_t>(number) + 1);
        }
        return 1;
    }
    if (name == "iterations" || name == "avgRuns")
    {
        if (!needValue() || !toInt(value, number) || number < 1 || number > (int64_t{1} << 30))
        {
            error = error.empty() ? "kilnexec: --" + name + "=" + value + ": expected a positive integer" : error;
            return -1;
        }
        (name == "iterations" ? options.iterations : options.avgRuns) = static_cast<int32_t>(number);
        return 1;
    }
    if (name == "warmUp" || name == "duration")
    {
        if (!needValue() || !toDouble(value, real) || real < 0.0 || real > 86400.0 * 1000.0)
        {
            error = error.empty() ? "kilnexec: --" + name + "=" + value + ": expected a non-negative number ("
                    + (name == "warmUp" ? "milliseconds" : "seconds") + ")"
                                  : error;
            return -1;
        }
        (name == "warmUp" ? options.warmUpMs : options.durationS) = real;
        return 1;
    }
    if (name == "percentile")
    {
        if (!needValue())
        {
            return -1;
        }
        options.percentiles.clear();
        for (std::string const& item : splitText(value, ','))
        {
            if (!toDouble(item, real) || real < 0.0 || real > 100.0)
            {
                error = "kilnexec: --percentile=" + value + ": '" + item + "' is not a percentile in [0, 100]";
                return -1;
            }
            options.percentiles.push_back(real);
        }
        return 1;
    }
    if (name == "memPoolSize")
    {
        return needValue() && parseMemPools(value, options, error) ? 1 : -1;
    }
    if (name == "loadInputs")
    {
        return needValue() && parseLoadInputs(value, options, error) ? 1 : -1;
    }
    if (name == "setPluginsToSerialize")
    {
        if (!needValue())
        {
            return -1;
        }
        for (std::string const& path : splitText(value, ','))
        {
            options.pluginsToSerialize.push_back(path);
        }
        return 1;
    }
    if (name == "profilingVerbosity")
    {
        if (!needValue() || (value != "layer_names_only" && value != "detailed" && value != "none"
                                && value != "default" && value != "verbose"))
        {
            error = error.empty() ? "kilnexec: --profilingVerbosity=" + value
                    + ": expected layer_names_only, detailed or none"
                                  : error;
            return -1;
        }
        options.profilingVerbosity = value == "default" ? "layer_names_only" : (value == "verbose" ? "detailed" : value);
        return 1;
    }
    if (name == "device")
    {
        bool const index = toInt(value, number) && number >= 0 && number < 1024;
        if (!needValue() || !(value == "cpu" || value == "gpu" || index))
        {
            error = error.empty() ? "kilnexec: --device=" + value + ": expected cpu, gpu or a GPU index" : error;
            return -1;
        }
        options.device = value;
        return 1;
    }
    if (name == "backend")
    {
        kiln::BackendKind kind{};
        if (!needValue() || !parseBackendName(value, kind))
        {
            error = error.empty() ? "kilnexec: --backend=" + value + ": expected default, cpu or cuda" : error;
            return -1;
        }
        options.backendValue = value;
        return 1;
    }
    return 0;
}

bool parseBackendName(std::string const& text, kiln::BackendKind& kind)
{
    static std::map<std::string, kiln::BackendKind> const names = {{"default", kiln::BackendKind::kDEFAULT},
        {"cpu", kiln::BackendKind::kCPU}, {"cuda", kiln::BackendKind::kCUDA}};
    auto it = names.find(text);
    if (it == names.end())
    {
        return false;
    }
    kind = it->second;
    return true;
}

char const* backendName(kiln::BackendKind kind)
{
    switch (kind)
    {
    case kiln::BackendKind::kDEFAULT: return "default";
    case kiln::BackendKind::kCPU: return "cpu";
    case kiln::BackendKind::kCUDA: return "cuda";
    }
    return "?";
}

bool resolveBackendOptions(Options& options, std::string& error)
{
    kiln::BackendKind fromBackend = kiln::BackendKind::kDEFAULT;
    bool const haveBackend = !options.backendValue.empty() && parseBackendName(options.backendValue, fromBackend);
    options.backend = fromBackend;
    options.backendFlag = haveBackend && fromBackend != kiln::BackendKind::kDEFAULT
        ? "--backend=" + options.backendValue
        : "";
    options.cudaDevice = -1;
    if (options.device.empty())
    {
        return true;
    }
    kiln::BackendKind const fromDevice = options.device == "cpu" ? kiln::BackendKind::kCPU : kiln::BackendKind::kCUDA;
    bool const contradicts = haveBackend && fromBackend != kiln::BackendKind::kDEFAULT && fromBackend != fromDevice;
    if (contradicts)
    {
        error = "kilnexec: --device=" + options.device + " contradicts --backend=" + options.backendValue
            + (fromDevice == kiln::BackendKind::kCPU ? " (--device=cpu runs on the CPU backend)"
                                                     : " (a GPU device needs the CUDA backend)");
        return false;
    }
    if (options.device != "cpu" && options.device != "gpu")
    {
        options.cudaDevice = static_cast<int32_t>(std::strtol(options.device.c_str(), nullptr, 10));
    }
    if (!haveBackend || fromBackend == kiln::BackendKind::kDEFAULT)
    {
        // --device=cpu|gpu|N picks the backend unless --backend=default explicitly leaves the choice to Kiln (then
        // an index only selects the GPU that the default would use).
        if (!haveBackend || options.device == "cpu" || options.device == "gpu")
        {
            options.backend = fromDevice;
            options.backendFlag = "--device=" + options.device;
        }
    }
    return true;
}

bool validateRunOptions(Options const& options, std::string& error)
{
    if (!options.onnxFile.empty() && !options.loadEngine.empty())
    {
        error = "kilnexec: --onnx and --loadEngine exclude each other (build from a model, or load a built engine)";
        return false;
    }
    if (options.stronglyTyped && (options.fp16 || options.bf16 || options.int8 || options.best))
    {
        error = "kilnexec: --stronglyTyped takes its types from the network; --fp16/--bf16/--int8/--best cannot be "
                "combined with it";
        return false;
    }
    if (options.checkPlugin && wantsEngine(options))
    {
        error = "kilnexec: --checkPlugin runs on its own; give it without --onnx/--loadEngine";
        return false;
    }
    if (!wantsEngine(options))
    {
        for (char const* flag : {"saveEngine", "exportOutput", "exportProfile", "exportTimes", "exportLayerInfo"})
        {
            if (!(options.*(fileFlags().at(flag))).empty())
            {
                error = std::string("kilnexec: --") + flag + " needs an engine: give --onnx=model.onnx or "
                    "--loadEngine=file";
                return false;
            }
        }
    }
    if (!options.loadEngine.empty())
    {
        bool shapeFlags = false;
        for (ProfileShapes const& profile : options.profiles)
        {
            shapeFlags = shapeFlags || profile.hasMin || profile.hasOpt || profile.hasMax;
        }
        bool const buildFlags = shapeFlags || options.fp16 || options.bf16 || options.int8
            || options.best || options.stronglyTyped || !options.memPools.empty() || !options.saveEngine.empty()
            || !options.pluginsToSerialize.empty() || !options.timingCacheFile.empty() || options.noBuilderCache;
        if (buildFlags)
        {
            error = "kilnexec: build flags (--minShapes/--optShapes/--maxShapes, precision, --memPoolSize, "
                    "--saveEngine, --setPluginsToSerialize, --timingCacheFile, --noBuilderCache) need --onnx; with "
                    "--loadEngine the engine is already built";
            return false;
        }
    }
    return true;
}

} // namespace kilnexec
