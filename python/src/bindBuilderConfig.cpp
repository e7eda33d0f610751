// BuilderConfig, IOptimizationProfile and the Python-subclassable IProgressMonitor of the tensorrt Python API, plus
// Kiln's backend choice (kiln.BackendKind, BuilderConfig.backend, kiln.is_backend_available; see
// include/kiln/KilnBackend.h) and the CPU backend's thread count (kiln.set_cpu_thread_count, include/kiln/KilnCpuThreads.h).
#include "pyCommon.h"

#include "kiln/KilnBackend.h"
#include "kiln/KilnCpuThreads.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

//! Python subclasses of trt.IProgressMonitor. The builder calls these from its own thread with the GIL released;
//! each call takes the GIL. A Python exception is reported (logger + last error) and, in step_complete, cancels
//! the build.
class PyProgressMonitor : public IProgressMonitor
{
public:
    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) noexcept override
    {
        callPythonVoid("IProgressMonitor.phase_start", [&]() {
            py::function override = py::get_override(static_cast<IProgressMonitor const*>(this), "phase_start");
            if (override)
            {
                override(phaseName, parentPhase == nullptr ? py::object(py::none()) : py::str(parentPhase), nbSteps);
            }
        });
    }

    bool stepComplete(char const* phaseName, int32_t step) noexcept override
    {
        return callPython("IProgressMonitor.step_complete", false, [&]() {
            py::function override = py::get_override(static_cast<IProgressMonitor const*>(this), "step_complete");
            if (!override)
            {
                return true;
            }
            py::object result = override(phaseName, step);
            return result.is_none() ? true : py::bool_(result).cast<bool>();
        });
    }

    void phaseFinish(char const* phaseName) noexcept override
    {
        callPythonVoid("IProgressMonitor.phase_finish", [&]() {
            py::function override = py::get_override(static_cast<IProgressMonitor const*>(this), "phase_finish");
            if (override)
            {
                override(phaseName);
            }
        });
    }
};

void bindProgressMonitor(py::module_& m)
{
    py::class_<IProgressMonitor, PyProgressMonitor>(m, "IProgressMonitor",
        "Receives build progress: subclass it, call IProgressMonitor.__init__(self) and implement "
        "phase_start(phase_name, parent_phase, num_steps), step_complete(phase_name, step) -> bool (False cancels "
        "the build) and phase_finish(phase_name).")
        .def(py::init<>());
}

using ProfileHolder = std::unique_ptr<IOptimizationProfile, py::nodelete>;

std::vector<int64_t> shapeValues(IOptimizationProfile const& self, std::string const& input, OptProfileSelector sel)
{
    int32_t const count = self.getNbShapeValues(input.c_str());
    int64_t const* values = self.getShapeValuesV2(input.c_str(), sel);
    if (count < 0 || values == nullptr)
    {
        return {};
    }
    return std::vector<int64_t>(values, values + count);
}

void bindOptimizationProfile(py::module_& m)
{
    py::class_<IOptimizationProfile, ProfileHolder>(m, "IOptimizationProfile",
        "Ranges (min/opt/max) of dynamic input shapes and shape-tensor values; owned by the builder.")
        .def(
            "set_shape",
            [](IOptimizationProfile& self, std::string const& input, Dims const& min, Dims const& opt,
                Dims const& max) {
                checkOrThrow(self.setDimensions(input.c_str(), OptProfileSelector::kMIN, min),
                    "IOptimizationProfile.set_shape", "min input provided to optimization profile is invalid.");
                checkOrThrow(self.setDimensions(input.c_str(), OptProfileSelector::kOPT, opt),
                    "IOptimizationProfile.set_shape", "opt input provided to optimization profile is invalid.");
                checkOrThrow(self.setDimensions(input.c_str(), OptProfileSelector::kMAX, max),
                    "IOptimizationProfile.set_shape", "max input provided to optimization profile is invalid.");
            },
            py::arg("input"), py::arg("min"), py::arg("opt"), py::arg("max"),
            "Set the min/opt/max shapes of a dynamic input; RuntimeError when they are inconsistent.")
        .def(
            "get_shape",
            [](IOptimizationProfile const& self, std::string const& input) {
                std::vector<Dims> shapes;
                for (OptProfileSelector sel : {OptProfileSelector::kMIN, OptProfileSelector::kOPT,
                         OptProfileSelector::kMAX})
                {
                    shapes.push_back(self.getDimensions(input.c_str(), sel));
                }
                return shapes;
            },
            py::arg("input"), "[min, opt, max] shapes of an input (rank -1 when unset).")
        .def(
            "set_shape_input",
            [](IOptimizationProfile& self, std::string const& input, std::vector<int64_t> const& min,
                std::vector<int64_t> const& opt, std::vector<int64_t> const& max) {
                auto set = [&](OptProfileSelector sel, std::vector<int64_t> const& values, char const* which) {
                    checkOrThrow(self.setShapeValuesV2(input.c_str(), sel, values.data(),
                                     static_cast<int32_t>(values.size())),
                        "IOptimizationProfile.set_shape_input", which);
                };
                set(OptProfileSelector::kMIN, min, "min input provided to shape tensor is invalid.");
                set(OptProfileSelector::kOPT, opt, "opt input provided to shape tensor is invalid.");
                set(OptProfileSelector::kMAX, max, "max input provided to shape tensor is invalid.");
            },
            py::arg("input"), py::arg("min"), py::arg("opt"), py::arg("max"),
            "Set the min/opt/max values of a shape-tensor input.")
        .def(
            "get_shape_input",
            [](IOptimizationProfile const& self, std::string const& input) {
                return std::vector<std::vector<int64_t>>{shapeValues(self, input, OptProfileSelector::kMIN),
                    shapeValues(self, input, OptProfileSelector::kOPT),
                    shapeValues(self, input, OptProfileSelector::kMAX)};
            },
            py::arg("input"), "[min, opt, max] values of a shape-tensor input ([] when unset).")
        .def_property(
            "extra_memory_target", &IOptimizationProfile::getExtraMemoryTarget,
            [](IOptimizationProfile& self, float target) {
                checkOrThrow(self.setExtraMemoryTarget(target), "IOptimizationProfile.extra_memory_target",
                    "The target must be non-negative.");
            })
        .def("is_valid", &IOptimizationProfile::isValid)
        .def("__bool__", &IOptimizationProfile::isValid);
}

void warnDeprecated(char const* message)
{
    if (PyErr_WarnEx(PyExc_DeprecationWarning, message, 1) != 0)
    {
        throw py::error_already_set();
    }
}

void bindConfigProperties(py::class_<IBuilderConfig, std::unique_ptr<IBuilderConfig>>& cls)
{
    cls.def_property("avg_timing_iterations", &IBuilderConfig::getAvgTimingIterations,
           &IBuilderConfig::setAvgTimingIterations)
        .def_property("engine_capability", &IBuilderConfig::getEngineCapability, &IBuilderConfig::setEngineCapability)
        .def_property("flags", &IBuilderConfig::getFlags, &IBuilderConfig::setFlags)
        .def_property("DLA_core", &IBuilderConfig::getDLACore, &IBuilderConfig::setDLACore)
        .def_property(
            "default_device_type", &IBuilderConfig::getDefaultDeviceType, &IBuilderConfig::setDefaultDeviceType)
        .def_property(
            "profile_stream", [](IBuilderConfig const& self) { return reinterpret_cast<uintptr_t>(self.getProfileStream()); },
            [](IBuilderConfig& self, uintptr_t stream) { self.setProfileStream(reinterpret_cast<cudaStream_t>(stream)); })
        .def_property_readonly("num_optimization_profiles", &IBuilderConfig::getNbOptimizationProfiles)
        .def_property(
            "profiling_verbosity", &IBuilderConfig::getProfilingVerbosity, &IBuilderConfig::setProfilingVerbosity)
        .def_property("builder_optimization_level", &IBuilderConfig::getBuilderOptimizationLevel,
            &IBuilderConfig::setBuilderOptimizationLevel)
        .def_property("hardware_compatibility_level", &IBuilderConfig::getHardwareCompatibilityLevel,
            &IBuilderConfig::setHardwareCompatibilityLevel)
        .def_property(
            "plugins_to_serialize",
            [](IBuilderConfig const& self) {
                std::vector<std::string> paths;
                for (int32_t i = 0; i < self.getNbPluginsToSerialize(); ++i)
                {
                    char const* path = self.getPluginToSerialize(i);
                    paths.emplace_back(path == nullptr ? "" : path);
                }
                return paths;
            },
            [](IBuilderConfig& self, std::vector<std::string> const& paths) {
                std::vector<char const*> pointers;
                for (std::string const& path : paths)
                {
                    pointers.push_back(path.c_str());
                }
                self.setPluginsToSerialize(pointers.data(), static_cast<int32_t>(pointers.size()));
            })
        .def_property("max_aux_streams", &IBuilderConfig::getMaxAuxStreams, &IBuilderConfig::setMaxAuxStreams)
        .def_property("progress_monitor", &IBuilderConfig::getProgressMonitor,
            py::cpp_function(&IBuilderConfig::setProgressMonitor, py::keep_alive<1, 2>()),
            py::return_value_policy::reference)
        .def_property("runtime_platform", &IBuilderConfig::getRuntimePlatform, &IBuilderConfig::setRuntimePlatform)
        .def_property("max_num_tactics", &IBuilderConfig::getMaxNbTactics, &IBuilderConfig::setMaxNbTactics)
        .def_property(
            "tiling_optimization_level", &IBuilderConfig::getTilingOptimizationLevel,
            [](IBuilderConfig& self, TilingOptimizationLevel level) {
                checkOrThrow(self.setTilingOptimizationLevel(level), "BuilderConfig.tiling_optimization_level");
            })
        .def_property(
            "l2_limit_for_tiling", &IBuilderConfig::getL2LimitForTiling,
            [](IBuilderConfig& self, int64_t size) {
                checkOrThrow(self.setL2LimitForTiling(size), "BuilderConfig.l2_limit_for_tiling");
            })
        .def_property(
            "max_workspace_size",
            [](IBuilderConfig const& self) {
                warnDeprecated("max_workspace_size was removed in TensorRT 10; use get_memory_pool_limit("
                               "MemoryPoolType.WORKSPACE)");
                return self.getMemoryPoolLimit(MemoryPoolType::kWORKSPACE);
            },
            [](IBuilderConfig& self, std::size_t size) {
                warnDeprecated("max_workspace_size was removed in TensorRT 10; use set_memory_pool_limit("
                               "MemoryPoolType.WORKSPACE, size)");
                self.setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, size);
            });
}

void bindBackendKind(py::module_& m)
{
    py::enum_<kiln::BackendKind>(m, "BackendKind",
        "Kiln extension: the backend an engine is built for and runs on (BuilderConfig.backend, ICudaEngine.backend).")
        .value("DEFAULT", kiln::BackendKind::kDEFAULT,
            "the GPU when available and able to run the network, else the CPU")
        .value("CPU", kiln::BackendKind::kCPU, "host memory; runs synchronously on the calling thread")
        .value("CUDA", kiln::BackendKind::kCUDA, "device memory; runs asynchronously on the execution stream");
    m.def(
        "is_backend_available",
        [](kiln::BackendKind kind) {
            py::gil_scoped_release release; // may load libkiln_cuda.so and look for a device
            return kiln::isBackendAvailable(kind);
        },
        py::arg("kind"),
        "Kiln extension: True when engines for `kind` can be built and run in this process (CPU, DEFAULT: always; "
        "CUDA: Kiln was built with CUDA, libkiln_cuda.so loads and a CUDA device is present).");
    m.def(
        "set_cpu_thread_count",
        [](int32_t threads) {
            bool ok = false;
            {
                py::gil_scoped_release release; // waits for a CPU run in flight on another thread
                ok = kiln::setCpuThreadCount(threads);
            }
            if (!ok)
            {
                throw py::value_error("kiln.set_cpu_thread_count: " + std::to_string(threads)
                    + " is not a thread count (1 to 1024, or 0 for the default)");
            }
        },
        py::arg("threads"),
        "Kiln extension: the CPU backend's thread count (1 to 1024; 0: KILN_CPU_THREADS, else the CPUs of the "
        "process's affinity mask). oneDNN's threads follow it.");
    m.def(
        "get_cpu_thread_count", [] { return kiln::getCpuThreadCount(); },
        "Kiln extension: the CPU backend's thread count (the calling thread included).");
}

void bindBuilderConfigClass(py::module_& m)
{
    py::class_<IBuilderConfig, std::unique_ptr<IBuilderConfig>> cls(m, "IBuilderConfig",
        "Options for building an engine (Builder.create_builder_config).");
    cls.def("set_flag", &IBuilderConfig::setFlag, py::arg("flag"))
        .def("get_flag", &IBuilderConfig::getFlag, py::arg("flag"))
        .def("clear_flag", &IBuilderConfig::clearFlag, py::arg("flag"))
        .def("set_memory_pool_limit", &IBuilderConfig::setMemoryPoolLimit, py::arg("pool"), py::arg("pool_size"))
        .def("get_memory_pool_limit", &IBuilderConfig::getMemoryPoolLimit, py::arg("pool"))
        .def("add_optimization_profile", &IBuilderConfig::addOptimizationProfile, py::arg("profile"),
            py::keep_alive<1, 2>(), "Add a valid profile; returns its index, or -1 (the logger says why).")
        .def("set_preview_feature", &IBuilderConfig::setPreviewFeature, py::arg("feature"), py::arg("enable"))
        .def("get_preview_feature", &IBuilderConfig::getPreviewFeature, py::arg("feature"))
        .def("set_tactic_sources", &IBuilderConfig::setTacticSources, py::arg("tactic_sources"))
        .def("get_tactic_sources", &IBuilderConfig::getTacticSources)
        .def("set_device_type", &IBuilderConfig::setDeviceType, py::arg("layer"), py::arg("device_type"))
        .def("get_device_type", &IBuilderConfig::getDeviceType, py::arg("layer"))
        .def("is_device_type_set", &IBuilderConfig::isDeviceTypeSet, py::arg("layer"))
        .def("reset_device_type", &IBuilderConfig::resetDeviceType, py::arg("layer"))
        .def("can_run_on_DLA", &IBuilderConfig::canRunOnDLA, py::arg("layer"))
        .def(
            "create_timing_cache",
            [](IBuilderConfig const& self, py::buffer serialized) {
                py::buffer_info info = serialized.request();
                return self.createTimingCache(info.ptr, static_cast<std::size_t>(info.size * info.itemsize));
            },
            py::arg("serialized_timing_cache"), py::return_value_policy::take_ownership,
            "A timing cache from serialized bytes (b'' for an empty one); None when the bytes are not a cache.")
        .def("set_timing_cache", &IBuilderConfig::setTimingCache, py::arg("cache"), py::arg("ignore_mismatch"),
            py::keep_alive<1, 2>())
        .def("get_timing_cache", &IBuilderConfig::getTimingCache, py::return_value_policy::reference_internal)
        .def("reset", &IBuilderConfig::reset)
        .def_property(
            "backend", [](IBuilderConfig const& self) { return kiln::getBuilderBackend(&self); },
            [](IBuilderConfig& self, kiln::BackendKind kind) {
                if (!kiln::setBuilderBackend(&self, kind))
                {
                    throwValueError("BuilderConfig.backend: Kiln refused the backend (the logger says why)");
                }
            },
            "Kiln extension: the backend the engine is built for (kiln.BackendKind; DEFAULT: the GPU when "
            "available and able to run the network, else the CPU; the environment variable KILN_BACKEND=cpu|cuda "
            "overrides DEFAULT).")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](py::object, py::args) {});
    bindConfigProperties(cls);
    m.attr("BuilderConfig") = cls;
}

KILN_IGNORE_DEPRECATED_END

} // namespace

void bindBuilderConfig(py::module_& m)
{
    bindProgressMonitor(m);
    bindOptimizationProfile(m);
    bindBackendKind(m);
    bindBuilderConfigClass(m);
}

} // namespace kiln::python
