// Python-subclassable runtime callbacks: IOutputAllocator, IProfiler (and the printing trt.Profiler),
// IErrorRecorder, IGpuAllocator, IGpuAsyncAllocator and IDebugListener. Each trampoline takes the GIL for every
// call (the engine may call from any thread, with the GIL released by the calling binding) and never lets a
// Python exception reach C++: the exception is logged (pyCommon's reportCallbackError) and the C++ failure value
// is returned instead.
#include "bindRuntimeCommon.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdio>
#include <map>
#include <string>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

//! Address returned by a Python allocation callback: an int, None (failure) or an object owning memory. During a
//! run or build started from Python the memory must be on the engine's side (host for the CPU backend, device for
//! the CUDA backend); elsewhere either is taken.
void* resultAddress(py::handle result, char const* where)
{
    return reinterpret_cast<void*>(toAddress(result, where, /*writable=*/true, nullptr, currentPlacement()));
}

class PyOutputAllocator : public IOutputAllocator
{
public:
    void* reallocateOutput(char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment) noexcept
        override
    {
        return callPython("IOutputAllocator.reallocate_output", static_cast<void*>(nullptr), [&]() -> void* {
            py::function override = findOverride<IOutputAllocator>(this, "reallocate_output");
            if (!override)
            {
                reportCallbackError("IOutputAllocator", "reallocate_output is not implemented by the Python class");
                return nullptr;
            }
            py::object result = override(tensorName, addressObject(currentMemory), size, alignment);
            return resultAddress(result, "IOutputAllocator.reallocate_output");
        });
    }

    void* reallocateOutputAsync(char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment,
        cudaStream_t stream) noexcept override
    {
        bool overridden = false;
        void* result
            = callPython("IOutputAllocator.reallocate_output_async", static_cast<void*>(nullptr), [&]() -> void* {
                  py::function override = findOverride<IOutputAllocator>(this, "reallocate_output_async");
                  if (!override)
                  {
                      return nullptr;
                  }
                  overridden = true;
                  py::object value
                      = override(tensorName, addressObject(currentMemory), size, alignment, addressObject(stream));
                  return resultAddress(value, "IOutputAllocator.reallocate_output_async");
              });
        if (overridden)
        {
            return result;
        }
        // TensorRT's default: reallocate_output_async forwards to reallocate_output.
        return reallocateOutput(tensorName, currentMemory, size, alignment);
    }

    void notifyShape(char const* tensorName, Dims const& dims) noexcept override
    {
        callPythonVoid("IOutputAllocator.notify_shape", [&]() {
            py::function override = findOverride<IOutputAllocator>(this, "notify_shape");
            if (!override)
            {
                reportCallbackError("IOutputAllocator", "notify_shape is not implemented by the Python class");
                return;
            }
            override(tensorName, dims);
        });
    }
};

class PyProfiler : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        callPythonVoid("IProfiler.report_layer_time", [&]() {
            py::function override = findOverride<IProfiler>(this, "report_layer_time");
            if (!override)
            {
                reportCallbackError("IProfiler", "report_layer_time is not implemented by the Python class");
                return;
            }
            override(layerName, ms);
        });
    }
};

//! trt.Profiler: prints each layer's time ("<layer>: <ms>ms") to sys.stdout. Python subclasses may override
//! report_layer_time.
class PrintingProfiler : public PyProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        callPythonVoid("Profiler.report_layer_time", [&]() {
            py::function override = findOverride<PrintingProfiler>(this, "report_layer_time");
            if (override)
            {
                override(layerName, ms);
                return;
            }
            print(layerName, ms);
        });
    }

    static void print(char const* layerName, float ms)
    {
        py::print(py::str("{}: {}ms").format(layerName, ms));
    }
};

class PyErrorRecorder : public IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override
    {
        return callPython("IErrorRecorder.num_errors", int32_t{0}, [&]() {
            return call("num_errors")().cast<int32_t>();
        });
    }

    ErrorCode getErrorCode(int32_t errorIdx) const noexcept override
    {
        return callPython("IErrorRecorder.get_error_code", ErrorCode::kUNSPECIFIED_ERROR, [&]() {
            return call("get_error_code")(errorIdx).cast<ErrorCode>();
        });
    }

    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override
    {
        return callPython("IErrorRecorder.get_error_desc", static_cast<ErrorDesc>(""), [&]() -> ErrorDesc {
            std::string text = call("get_error_desc")(errorIdx).cast<std::string>();
            // The C++ caller only gets a pointer: keep the text (per index) for as long as the recorder lives.
            std::string& slot = mDescriptions[errorIdx];
            slot = std::move(text);
            return slot.c_str();
        });
    }

    bool hasOverflowed() const noexcept override
    {
        return callPython("IErrorRecorder.has_overflowed", false, [&]() {
            return call("has_overflowed")().cast<bool>();
        });
    }

    void clear() noexcept override
    {
        callPythonVoid("IErrorRecorder.clear", [&]() { call("clear")(); });
    }

    bool reportError(ErrorCode val, ErrorDesc desc) noexcept override
    {
        return callPython("IErrorRecorder.report_error", false, [&]() {
            return call("report_error")(val, desc != nullptr ? desc : "").cast<bool>();
        });
    }

    RefCount incRefCount() noexcept override
    {
        return ++mRefCount;
    }

    RefCount decRefCount() noexcept override
    {
        return --mRefCount;
    }

private:
    //! The Python override `name`; raises (inside callPython) when the subclass lacks it.
    py::function call(char const* name) const
    {
        py::function override = findOverride<IErrorRecorder>(this, name);
        if (!override)
        {
            throw std::runtime_error(std::string(name) + " is not implemented by the Python class");
        }
        return override;
    }

    std::atomic<RefCount> mRefCount{0};
    mutable std::map<int32_t, std::string> mDescriptions; // accessed with the GIL held
};

class PyGpuAllocator : public IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) noexcept override
    {
        return callPython("IGpuAllocator.allocate", static_cast<void*>(nullptr), [&]() -> void* {
            py::function override = findOverride<IGpuAllocator>(this, "allocate");
            if (!override)
            {
                reportCallbackError("IGpuAllocator", "allocate is not implemented by the Python class");
                return nullptr;
            }
            return resultAddress(override(size, alignment, flags), "IGpuAllocator.allocate");
        });
    }

    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override
    {
        return callPython("IGpuAllocator.reallocate", static_cast<void*>(nullptr), [&]() -> void* {
            py::function override = findOverride<IGpuAllocator>(this, "reallocate");
            if (!override)
            {
                return nullptr; // TensorRT's default: reallocation not supported
            }
            return resultAddress(override(addressObject(baseAddr), alignment, newSize), "IGpuAllocator.reallocate");
        });
    }

    bool deallocate(void* const memory) noexcept override
    {
        return callPython("IGpuAllocator.deallocate", false, [&]() {
            py::function override = findOverride<IGpuAllocator>(this, "deallocate");
            if (!override)
            {
                reportCallbackError("IGpuAllocator", "deallocate is not implemented by the Python class");
                return false;
            }
            return override(addressObject(memory)).cast<bool>();
        });
    }

    void* allocateAsync(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags,
        cudaStream_t stream) noexcept override
    {
        bool overridden = false;
        void* result = callPython("IGpuAllocator.allocate_async", static_cast<void*>(nullptr), [&]() -> void* {
            py::function override = findOverride<IGpuAllocator>(this, "allocate_async");
            if (!override)
            {
                return nullptr;
            }
            overridden = true;
            return resultAddress(
                override(size, alignment, flags, addressObject(stream)), "IGpuAllocator.allocate_async");
        });
        return overridden ? result : allocate(size, alignment, flags);
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        bool overridden = false;
        bool result = callPython("IGpuAllocator.deallocate_async", false, [&]() {
            py::function override = findOverride<IGpuAllocator>(this, "deallocate_async");
            if (!override)
            {
                return false;
            }
            overridden = true;
            return override(addressObject(memory), addressObject(stream)).cast<bool>();
        });
        return overridden ? result : deallocate(memory);
    }
};

class PyGpuAsyncAllocator : public IGpuAsyncAllocator
{
public:
    void* allocateAsync(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags,
        cudaStream_t stream) noexcept override
    {
        return callPython("IGpuAsyncAllocator.allocate_async", static_cast<void*>(nullptr), [&]() -> void* {
            py::function override = findOverride<IGpuAsyncAllocator>(this, "allocate_async");
            if (!override)
            {
                reportCallbackError("IGpuAsyncAllocator", "allocate_async is not implemented by the Python class");
                return nullptr;
            }
            return resultAddress(
                override(size, alignment, flags, addressObject(stream)), "IGpuAsyncAllocator.allocate_async");
        });
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        return callPython("IGpuAsyncAllocator.deallocate_async", false, [&]() {
            py::function override = findOverride<IGpuAsyncAllocator>(this, "deallocate_async");
            if (!override)
            {
                reportCallbackError("IGpuAsyncAllocator", "deallocate_async is not implemented by the Python class");
                return false;
            }
            return override(addressObject(memory), addressObject(stream)).cast<bool>();
        });
    }

    void* reallocate(void* const baseAddr, uint64_t alignment, uint64_t newSize) noexcept override
    {
        return callPython("IGpuAsyncAllocator.reallocate", static_cast<void*>(nullptr), [&]() -> void* {
            py::function override = findOverride<IGpuAsyncAllocator>(this, "reallocate");
            if (!override)
            {
                return nullptr;
            }
            return resultAddress(
                override(addressObject(baseAddr), alignment, newSize), "IGpuAsyncAllocator.reallocate");
        });
    }
};

class PyDebugListener : public IDebugListener
{
public:
    bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream) noexcept override
    {
        return callPython("IDebugListener.process_debug_tensor", false, [&]() {
            py::function override = findOverride<IDebugListener>(this, "process_debug_tensor");
            if (!override)
            {
                reportCallbackError("IDebugListener", "process_debug_tensor is not implemented by the Python class");
                return false;
            }
            py::object result = override(addressObject(addr), location, type, shape, name, addressObject(stream));
            return result.is_none() ? true : result.cast<bool>();
        });
    }
};

//! Copies the bytes a Python read(...) returned into `destination`; returns the count, or -1 on a bad result.
int64_t copyReadResult(py::handle result, void* destination, int64_t nbBytes, char const* where)
{
    if (result.is_none())
    {
        return 0;
    }
    Py_buffer view{};
    if (PyObject_GetBuffer(result.ptr(), &view, PyBUF_SIMPLE) != 0)
    {
        PyErr_Clear();
        reportCallbackError(where, "read must return bytes (or another contiguous buffer)");
        return -1;
    }
    int64_t const count = std::min<int64_t>(nbBytes, static_cast<int64_t>(view.len));
    std::memcpy(destination, view.buf, static_cast<size_t>(count));
    PyBuffer_Release(&view);
    return count;
}

KILN_IGNORE_DEPRECATED_BEGIN
class PyStreamReader : public IStreamReader
{
public:
    int64_t read(void* destination, int64_t nbBytes) noexcept override
    {
        return callPython("IStreamReader.read", int64_t{-1}, [&]() -> int64_t {
            py::function override = findOverride<IStreamReader>(this, "read");
            if (!override)
            {
                reportCallbackError("IStreamReader", "read is not implemented by the Python class");
                return -1;
            }
            return copyReadResult(override(nbBytes), destination, nbBytes, "IStreamReader.read");
        });
    }
};
KILN_IGNORE_DEPRECATED_END

class PyStreamReaderV2 : public IStreamReaderV2
{
public:
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) noexcept override
    {
        return callPython("IStreamReaderV2.read", int64_t{-1}, [&]() -> int64_t {
            py::function override = findOverride<IStreamReaderV2>(this, "read");
            if (!override)
            {
                reportCallbackError("IStreamReaderV2", "read is not implemented by the Python class");
                return -1;
            }
            return copyReadResult(
                override(nbBytes, addressObject(stream)), destination, nbBytes, "IStreamReaderV2.read");
        });
    }

    bool seek(int64_t offset, SeekPosition where) noexcept override
    {
        return callPython("IStreamReaderV2.seek", false, [&]() {
            py::function override = findOverride<IStreamReaderV2>(this, "seek");
            if (!override)
            {
                reportCallbackError("IStreamReaderV2", "seek is not implemented by the Python class");
                return false;
            }
            return override(offset, where).cast<bool>();
        });
    }
};

} // namespace

void bindRuntimeCallbacks(py::module_& m)
{
    py::class_<IOutputAllocator, PyOutputAllocator>(m, "IOutputAllocator",
        "Application-implemented allocator for outputs whose size is only known during execute_async_v3(). "
        "Subclasses call IOutputAllocator.__init__(self) and implement reallocate_output (or "
        "reallocate_output_async) and notify_shape.")
        .def(py::init<>())
        .def(
            "reallocate_output",
            [](IOutputAllocator& self, std::string const& tensorName, py::handle memory, uint64_t size,
                uint64_t alignment) -> py::object {
                KILN_IGNORE_DEPRECATED_BEGIN
                void* result = self.IOutputAllocator::reallocateOutput(tensorName.c_str(),
                    reinterpret_cast<void*>(toAddress(memory, "reallocate_output")), size, alignment);
                KILN_IGNORE_DEPRECATED_END
                return result == nullptr ? py::object(py::none()) : py::object(addressObject(result));
            },
            py::arg("tensor_name"), py::arg("memory"), py::arg("size"), py::arg("alignment"),
            "Return the address of at least `size` bytes for the output, or None when the request cannot be met.")
        .def(
            "reallocate_output_async",
            [](IOutputAllocator& self, std::string const& tensorName, py::handle memory, uint64_t size,
                uint64_t alignment, py::handle stream) -> py::object {
                // The base implementation calls reallocate_output (the Python override when there is one).
                void* result = self.IOutputAllocator::reallocateOutputAsync(tensorName.c_str(),
                    reinterpret_cast<void*>(toAddress(memory, "reallocate_output_async")), size, alignment,
                    static_cast<cudaStream_t>(toHandle(stream, "reallocate_output_async")));
                return result == nullptr ? py::object(py::none()) : py::object(addressObject(result));
            },
            py::arg("tensor_name"), py::arg("memory"), py::arg("size"), py::arg("alignment"), py::arg("stream"),
            "Like reallocate_output, ordered on `stream`. The default calls reallocate_output.")
        .def(
            "notify_shape", [](IOutputAllocator&, std::string const&, Dims const&) {}, py::arg("tensor_name"),
            py::arg("shape"), "Called with the final shape of the output before execution returns.");

    py::class_<IProfiler, PyProfiler>(m, "IProfiler",
        "Application-implemented per-layer timing callback. Subclasses implement report_layer_time(layer_name, ms).")
        .def(py::init<>())
        .def(
            "report_layer_time",
            [](IProfiler&, std::string const&, float) {
                throwRuntimeError("IProfiler.report_layer_time is not implemented (override it in a subclass)");
            },
            py::arg("layer_name"), py::arg("ms"), "Called with the time of one layer in milliseconds.");

    py::class_<PrintingProfiler, IProfiler>(m, "Profiler", "An IProfiler that prints each layer's time.")
        .def(py::init<>())
        .def(
            "report_layer_time",
            [](PrintingProfiler&, std::string const& layerName, float ms) {
                PrintingProfiler::print(layerName.c_str(), ms);
            },
            py::arg("layer_name"), py::arg("ms"), "Prints '<layer_name>: <ms>ms'.");

    py::class_<IErrorRecorder, PyErrorRecorder>(m, "IErrorRecorder",
        "Application-implemented error recorder. Subclasses implement num_errors, get_error_code, get_error_desc, "
        "has_overflowed, clear and report_error; reference counting is handled by Kiln.")
        .def(py::init<>())
        .def_property_readonly_static(
            "MAX_DESC_LENGTH", [](py::handle) { return IErrorRecorder::kMAX_DESC_LENGTH; })
        .def("num_errors", &IErrorRecorder::getNbErrors, "Number of errors recorded since the last clear().")
        .def("get_error_code", &IErrorRecorder::getErrorCode, py::arg("error_idx"), "Code of one error.")
        .def(
            "get_error_desc",
            [](IErrorRecorder& self, int32_t index) { return std::string(self.getErrorDesc(index)); },
            py::arg("error_idx"), "Description of one error.")
        .def("has_overflowed", &IErrorRecorder::hasOverflowed, "Whether errors were dropped.")
        .def("clear", &IErrorRecorder::clear, "Forget all errors.")
        .def(
            "report_error",
            [](IErrorRecorder& self, ErrorCode code, std::string const& desc) {
                return self.reportError(code, desc.c_str());
            },
            py::arg("val"), py::arg("desc"), "Record an error; return True if it must be treated as fatal.");

    py::class_<IGpuAllocator, PyGpuAllocator>(m, "IGpuAllocator",
        "Application-implemented device memory allocator. Subclasses implement allocate/deallocate (or their _async "
        "forms) returning integer addresses. On Kiln's CPU backend the memory is host memory.")
        .def(py::init<>())
        .def(
            "allocate",
            [](IGpuAllocator&, uint64_t, uint64_t, AllocatorFlags) -> py::object {
                throwRuntimeError("IGpuAllocator.allocate is not implemented (override it in a subclass)");
            },
            py::arg("size"), py::arg("alignment"), py::arg("flags"))
        .def(
            "deallocate",
            [](IGpuAllocator&, py::handle) -> bool {
                throwRuntimeError("IGpuAllocator.deallocate is not implemented (override it in a subclass)");
            },
            py::arg("memory"))
        .def(
            "reallocate", [](IGpuAllocator&, py::handle, uint64_t, uint64_t) { return py::none(); },
            py::arg("address"), py::arg("alignment"), py::arg("new_size"),
            "Resize an allocation; the default returns None (not supported).")
        .def(
            "allocate_async",
            [](IGpuAllocator& self, uint64_t size, uint64_t alignment, AllocatorFlags flags, py::handle) {
                KILN_IGNORE_DEPRECATED_BEGIN
                void* result = self.allocate(size, alignment, flags);
                KILN_IGNORE_DEPRECATED_END
                return result == nullptr ? py::object(py::none()) : py::object(addressObject(result));
            },
            py::arg("size"), py::arg("alignment"), py::arg("flags"), py::arg("stream"),
            "Stream-ordered allocate; the default calls allocate.")
        .def(
            "deallocate_async",
            [](IGpuAllocator& self, py::handle memory, py::handle) {
                KILN_IGNORE_DEPRECATED_BEGIN
                return self.deallocate(reinterpret_cast<void*>(toAddress(memory, "deallocate_async")));
                KILN_IGNORE_DEPRECATED_END
            },
            py::arg("memory"), py::arg("stream"), "Stream-ordered deallocate; the default calls deallocate.");

    py::class_<IGpuAsyncAllocator, IGpuAllocator, PyGpuAsyncAllocator>(m, "IGpuAsyncAllocator",
        "Application-implemented stream-ordered allocator: subclasses implement allocate_async and deallocate_async.")
        .def(py::init<>());

    py::class_<IDebugListener, PyDebugListener>(m, "IDebugListener",
        "Application-implemented callback for debug tensors (Kiln's engines have no debug tensors yet).")
        .def(py::init<>())
        .def(
            "process_debug_tensor",
            [](IDebugListener&, py::handle, TensorLocation, DataType, Dims const&, std::string const&,
                py::handle) -> bool {
                throwRuntimeError("IDebugListener.process_debug_tensor is not implemented (override it)");
            },
            py::arg("addr"), py::arg("location"), py::arg("type"), py::arg("shape"), py::arg("name"),
            py::arg("stream"));
    if (!isBound<SeekPosition>())
    {
        py::enum_<SeekPosition>(m, "SeekPosition", "Origin of an IStreamReaderV2.seek() offset.")
            .value("SET", SeekPosition::kSET)
            .value("CUR", SeekPosition::kCUR)
            .value("END", SeekPosition::kEND);
    }
    KILN_IGNORE_DEPRECATED_BEGIN
    py::class_<IStreamReader, PyStreamReader>(m, "IStreamReader",
        "Application-implemented reader for Runtime.deserialize_cuda_engine: implement read(size) -> bytes.")
        .def(py::init<>());
    KILN_IGNORE_DEPRECATED_END
    py::class_<IStreamReaderV2, PyStreamReaderV2>(m, "IStreamReaderV2",
        "Application-implemented seekable reader: implement read(size, stream) -> bytes and "
        "seek(offset, where: SeekPosition) -> bool.")
        .def(py::init<>());
}

} // namespace kiln::python
