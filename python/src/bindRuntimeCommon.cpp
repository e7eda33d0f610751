// Implementation of the runtime bindings' shared helpers (bindRuntimeCommon.h): per-object reference tables that
// keep Python callbacks and buffers alive, and the conversion of Python memory objects (numpy, the CUDA array
// interface, DLPack) to tensor addresses, checked against where the engine's tensors live.
#include "bindRuntimeCommon.h"

#include <cstring>
#include <string>

namespace kiln::python
{

namespace
{

constexpr char const* kREF_TABLE = "_kiln_refs";

//! The reference table of `owner`, created on first use.
py::dict refTable(py::handle owner)
{
    py::dict attributes = owner.attr("__dict__");
    if (!attributes.contains(kREF_TABLE))
    {
        attributes[kREF_TABLE] = py::dict();
    }
    return attributes[kREF_TABLE];
}

//! Whether the strides of an __array_interface__ describe a C-contiguous array.
bool isCContiguous(py::dict const& interface)
{
    if (!interface.contains("strides") || interface["strides"].is_none())
    {
        return true;
    }
    py::tuple shape = interface["shape"];
    py::tuple strides = interface["strides"];
    std::string const typestr = py::str(interface["typestr"]);
    int64_t itemSize = 0;
    for (size_t i = 2; i < typestr.size(); ++i)
    {
        if (typestr[i] < '0' || typestr[i] > '9')
        {
            break;
        }
        itemSize = itemSize * 10 + (typestr[i] - '0');
    }
    int64_t expected = itemSize;
    for (ssize_t i = static_cast<ssize_t>(shape.size()) - 1; i >= 0; --i)
    {
        int64_t const extent = shape[i].cast<int64_t>();
        if (extent > 1 && strides[i].cast<int64_t>() != expected)
        {
            return false;
        }
        expected *= extent;
    }
    return true;
}

[[noreturn]] void rejectPlacement(char const* what, MemoryKind kind, std::string const& described)
{
    if (kind == MemoryKind::kDEVICE)
    {
        throwValueError(std::string(what) + ": the object is device memory (" + described
            + ") but the engine runs on Kiln's CPU backend, which needs host memory (e.g. a numpy array)");
    }
    throwValueError(std::string(what) + ": the object is host memory (" + described
        + ") but the engine runs on Kiln's CUDA backend, which needs device memory (an object with "
        + "__cuda_array_interface__ or a CUDA DLPack tensor, e.g. a torch CUDA tensor, or an integer device address)");
}

//! Address from an __array_interface__ or __cuda_array_interface__ dictionary (same layout for what is read here).
uintptr_t fromArrayInterface(py::dict interface, char const* what, bool writable, char const* protocol)
{
    py::object data = interface.contains("data") ? py::object(interface["data"]) : py::none();
    if (!py::isinstance<py::tuple>(data) || py::len(data) < 1)
    {
        throwTypeError(std::string(what) + ": " + protocol + " without a (pointer, read_only) data tuple; "
            + "pass an array or an integer address");
    }
    if (interface.contains("mask") && !interface["mask"].is_none())
    {
        throwValueError(std::string(what) + ": masked arrays (" + protocol + " with a mask) are not supported");
    }
    py::tuple pair = data;
    if (writable && pair.size() > 1 && pair[1].cast<bool>())
    {
        throwValueError(std::string(what) + ": the array is read-only but the tensor is written by the engine");
    }
    if (!interface.contains("shape") || !interface.contains("typestr"))
    {
        throwTypeError(std::string(what) + ": " + protocol + " without shape or typestr");
    }
    if (!isCContiguous(interface))
    {
        throwValueError(std::string(what) + ": the array is not C-contiguous (make a contiguous copy first, e.g. "
            + "numpy.ascontiguousarray or tensor.contiguous())");
    }
    return pair[0].is_none() ? 0 : pair[0].cast<uintptr_t>();
}

// DLPack's C structures (dlpack.h, stable ABI), as far as they are read here.
struct DlDevice
{
    int32_t deviceType;
    int32_t deviceId;
};
struct DlDataType
{
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};
struct DlTensor
{
    void* data;
    DlDevice device;
    int32_t ndim;
    DlDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byteOffset;
};
struct DlManagedTensor
{
    DlTensor tensor;
    void* managerContext;
    void (*deleter)(DlManagedTensor*);
};
struct DlManagedTensorVersioned
{
    uint32_t major;
    uint32_t minor;
    void* managerContext;
    void (*deleter)(DlManagedTensorVersioned*);
    uint64_t flags;
    DlTensor tensor;
};
constexpr int32_t kDL_CPU = 1;
constexpr int32_t kDL_CUDA = 2;
constexpr int32_t kDL_CUDA_HOST = 3;
constexpr int32_t kDL_CUDA_MANAGED = 13;
constexpr uint64_t kDL_FLAG_READ_ONLY = 1;

//! Address of a DLPack tensor on a CUDA device. The capsule is read but not consumed: its own destructor releases
//! the producer's tensor, while the caller keeps the original object (and so the memory) alive.
uintptr_t fromCudaDlpack(py::handle memory, char const* what, bool writable)
{
    py::object capsule = memory.attr("__dlpack__")();
    DlTensor const* tensor = nullptr;
    bool readOnly = false;
    if (PyCapsule_IsValid(capsule.ptr(), "dltensor") != 0)
    {
        auto* managed = static_cast<DlManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
        tensor = managed == nullptr ? nullptr : &managed->tensor;
    }
    else if (PyCapsule_IsValid(capsule.ptr(), "dltensor_versioned") != 0)
    {
        auto* managed
            = static_cast<DlManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
        tensor = managed == nullptr ? nullptr : &managed->tensor;
        readOnly = managed != nullptr && (managed->flags & kDL_FLAG_READ_ONLY) != 0;
    }
    if (tensor == nullptr)
    {
        PyErr_Clear();
        throwTypeError(std::string(what) + ": __dlpack__() did not return a DLPack capsule");
    }
    if (writable && readOnly)
    {
        throwValueError(std::string(what) + ": the DLPack tensor is read-only but the tensor is written by the engine");
    }
    if (tensor->dtype.lanes != 1)
    {
        throwValueError(std::string(what) + ": vector (multi-lane) DLPack types are not supported");
    }
    if (tensor->strides != nullptr)
    {
        int64_t expected = 1;
        for (int32_t i = tensor->ndim - 1; i >= 0; --i)
        {
            if (tensor->shape[i] > 1 && tensor->strides[i] != expected)
            {
                throwValueError(std::string(what) + ": the DLPack tensor is not C-contiguous (make a contiguous "
                    + "copy first, e.g. tensor.contiguous())");
            }
            expected *= tensor->shape[i];
        }
    }
    return reinterpret_cast<uintptr_t>(static_cast<char*>(tensor->data) + tensor->byteOffset);
}

//! Describes a memory object for error messages ("numpy.ndarray", ...).
std::string typeName(py::handle memory)
{
    py::handle type = py::type::of(memory);
    std::string module = py::hasattr(type, "__module__") ? std::string(py::str(type.attr("__module__"))) : "";
    std::string name = py::str(type.attr("__name__"));
    return module.empty() || module == "builtins" ? name : module + "." + name;
}

} // namespace

void keepRef(py::handle owner, std::string const& key, py::handle value)
{
    py::dict table = refTable(owner);
    if (value.is_none())
    {
        if (table.contains(key))
        {
            PyDict_DelItemString(table.ptr(), key.c_str());
        }
        return;
    }
    table[py::str(key)] = value;
}

py::object getRef(py::handle owner, std::string const& key)
{
    py::dict table = refTable(owner);
    if (table.contains(key))
    {
        return table[py::str(key)];
    }
    return py::none();
}

void dropRefs(py::handle owner, std::string const& prefix)
{
    py::dict table = refTable(owner);
    py::list doomed;
    for (auto item : table)
    {
        std::string const key = py::str(item.first);
        if (key.rfind(prefix, 0) == 0)
        {
            doomed.append(item.first);
        }
    }
    for (auto key : doomed)
    {
        PyDict_DelItem(table.ptr(), key.ptr());
    }
}

bool isRawAddress(py::handle memory)
{
    return memory.is_none() || (py::isinstance<py::int_>(memory) && !py::isinstance<py::bool_>(memory));
}

uintptr_t toAddress(py::handle memory, char const* what, bool writable, MemoryKind* kind, Placement need)
{
    if (kind != nullptr)
    {
        *kind = MemoryKind::kHOST;
    }
    if (memory.is_none())
    {
        return 0;
    }
    if (py::isinstance<py::int_>(memory) && !py::isinstance<py::bool_>(memory))
    {
        py::int_ value = py::reinterpret_borrow<py::int_>(memory);
        if (value < py::int_(0))
        {
            throwValueError(std::string(what) + ": a memory address cannot be negative");
        }
        return value.cast<uintptr_t>();
    }
    auto check = [&](MemoryKind found, std::string const& described) {
        if (kind != nullptr)
        {
            *kind = found;
        }
        if ((need == Placement::kHOST && found == MemoryKind::kDEVICE)
            || (need == Placement::kDEVICE && found == MemoryKind::kHOST))
        {
            rejectPlacement(what, found, described);
        }
    };
    if (py::hasattr(memory, "__array_interface__"))
    {
        check(MemoryKind::kHOST, typeName(memory) + " with __array_interface__");
        return fromArrayInterface(memory.attr("__array_interface__"), what, writable, "__array_interface__");
    }
    if (py::hasattr(memory, "__cuda_array_interface__"))
    {
        check(MemoryKind::kDEVICE, typeName(memory) + " with __cuda_array_interface__");
        py::dict interface = memory.attr("__cuda_array_interface__");
        int64_t const version = interface.contains("version") ? interface["version"].cast<int64_t>() : 0;
        if (version < 2)
        {
            throwValueError(std::string(what) + ": __cuda_array_interface__ version " + std::to_string(version)
                + " is not supported (need 2 or later)");
        }
        return fromArrayInterface(interface, what, writable, "__cuda_array_interface__");
    }
    if (py::hasattr(memory, "__dlpack__") && py::hasattr(memory, "__dlpack_device__"))
    {
        py::tuple device = memory.attr("__dlpack_device__")();
        int const deviceType = device[0].cast<int>();
        if (deviceType == kDL_CPU || deviceType == kDL_CUDA_HOST)
        {
            check(MemoryKind::kHOST, typeName(memory) + ", a DLPack tensor on the CPU");
            py::object array = py::module_::import("numpy").attr("from_dlpack")(memory);
            return fromArrayInterface(array.attr("__array_interface__"), what, writable, "__array_interface__");
        }
        if (deviceType == kDL_CUDA || deviceType == kDL_CUDA_MANAGED)
        {
            check(MemoryKind::kDEVICE, typeName(memory) + ", a DLPack tensor on CUDA device "
                + std::to_string(device[1].cast<int>()));
            return fromCudaDlpack(memory, what, writable);
        }
        throwValueError(std::string(what) + ": the DLPack tensor is on device type " + std::to_string(deviceType)
            + "; Kiln takes host memory (CPU backend) or CUDA device memory (CUDA backend)");
    }
    throwTypeError(std::string(what) + ": expected an integer address, None, or an object with __array_interface__, "
        + "__cuda_array_interface__ or __dlpack__ (got " + typeName(memory) + ")");
}

Placement enginePlacement(nvinfer1::ICudaEngine const& engine)
{
    return placementOf(kiln::getEngineBackend(&engine));
}

void* toHandle(py::handle handle, char const* what)
{
    if (handle.is_none())
    {
        return nullptr;
    }
    if (!py::isinstance<py::int_>(handle))
    {
        throwTypeError(std::string(what) + ": expected an integer handle or None");
    }
    return reinterpret_cast<void*>(handle.cast<uintptr_t>());
}

} // namespace kiln::python
