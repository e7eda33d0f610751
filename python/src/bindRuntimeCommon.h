// Helpers shared by the runtime and parser bindings (bindRuntime*.cpp, bindParser.cpp): the bind functions of each
// topic, keeping Python callback objects alive while a C++ object uses them, turning Python objects into tensor
// addresses (ints, numpy arrays, __array_interface__, __cuda_array_interface__, DLPack), and binding enums only
// once when another area may already have bound them.
#pragma once

#include "bindings.h"
#include "deviceMemory.h"
#include "pyCommon.h"

#include "NvInferRuntime.h"

#include <cstdint>
#include <string>
#include <typeinfo>

namespace kiln::python
{

// ------------------------------------------------------------------------------------------------------------
// Bind functions of the runtime area, called in this order by bindRuntime().
// ------------------------------------------------------------------------------------------------------------

void bindRuntimeEnums(py::module_& m);     // enums of NvInferRuntime.h not bound elsewhere
void bindRuntimeCallbacks(py::module_& m); // IOutputAllocator, IProfiler/Profiler, IErrorRecorder, IGpuAllocator...
void bindRuntimeEngine(py::module_& m);    // Runtime, ICudaEngine, IEngineInspector, configs, Refitter
void bindRuntimeContext(py::module_& m);   // IExecutionContext

// ------------------------------------------------------------------------------------------------------------
// Keeping Python objects alive
// ------------------------------------------------------------------------------------------------------------

//! Stores `value` under `key` in the private reference table of the Python object `owner` (a class bound with
//! py::dynamic_attr()), replacing what was there; None removes the entry. The table lives in the owner's
//! __dict__, which Python clears only after the C++ object has been deleted, so callbacks set on an object stay
//! alive for as long as the C++ object can call them.
void keepRef(py::handle owner, std::string const& key, py::handle value);

//! The object stored under `key` (None when absent).
py::object getRef(py::handle owner, std::string const& key);

//! Removes every entry whose key starts with `prefix`.
void dropRefs(py::handle owner, std::string const& prefix);

//! The existing Python object of a C++ object bound with a registered type (the one Python created).
template <typename T>
py::object selfObject(T* self)
{
    return py::cast(self, py::return_value_policy::reference);
}

// ------------------------------------------------------------------------------------------------------------
// Addresses
// ------------------------------------------------------------------------------------------------------------

//! Where a Python memory object lives.
enum class MemoryKind
{
    kHOST,   //!< int, None, numpy arrays, __array_interface__, CPU DLPack tensors
    kDEVICE, //!< __cuda_array_interface__ or a CUDA DLPack tensor
};

//! The address of a Python memory object: an int (0 or None is the null pointer), an object with
//! __array_interface__ (numpy arrays, ...), __cuda_array_interface__ (v2/v3) or __dlpack__ (CPU or CUDA device).
//! Raises TypeError for anything else. When `kind` is given it receives where the memory lives. `writable`
//! requests writable memory: read-only arrays raise ValueError; arrays must be C-contiguous. `need` is where the
//! engine's tensors live: an object on the other side raises ValueError naming `what` and both sides (kUNKNOWN
//! accepts both; ints are always accepted, they are addresses the caller vouches for).
uintptr_t toAddress(py::handle memory, char const* what, bool writable = false, MemoryKind* kind = nullptr,
    Placement need = Placement::kUNKNOWN);

//! Where the tensors of `engine` live (its backend).
Placement enginePlacement(nvinfer1::ICudaEngine const& engine);

//! True when `memory` is a plain integer or None (an address, not an object that owns memory).
bool isRawAddress(py::handle memory);

//! A Python int for a pointer (0 for nullptr).
inline py::int_ addressObject(void const* pointer)
{
    return py::int_(reinterpret_cast<uintptr_t>(pointer));
}

//! A CUDA stream / event handle from a Python int (0 or None is the default stream).
void* toHandle(py::handle handle, char const* what);

// ------------------------------------------------------------------------------------------------------------
// Enums bound by several areas
// ------------------------------------------------------------------------------------------------------------

//! True when a C++ type already has a Python binding (bound by an earlier bind function).
template <typename T>
bool isBound()
{
    return py::detail::get_type_info(typeid(T)) != nullptr;
}

} // namespace kiln::python
