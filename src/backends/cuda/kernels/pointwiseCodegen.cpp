// Source generation, NVRTC compilation and loading of fused pointwise kernels (see pointwiseCodegen.h). The formulas
// are those of the interpreter (pointwiseProgram.cu, activationMath.cuh), written out per instruction so that every
// value lives in a named register and constants are exact literals (their bit patterns).
#include "backends/cuda/kernels/pointwiseCodegen.h"

#include "backends/cuda/cudaCheck.h"

#include <nvrtc.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

namespace kiln::cuda
{
namespace
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

//! Device helpers every module starts with: 16-bit storage conversions (PTX, no headers needed) and the launch
//! argument struct (the layout of PwLaunchArgs).
constexpr char const* kPRELUDE = R"(
typedef unsigned short kiln_u16;
__device__ __forceinline__ float kiln_from_half(kiln_u16 b) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(b)); return f; }
__device__ __forceinline__ float kiln_from_bf16(kiln_u16 b) { return __uint_as_float(((unsigned)b) << 16); }
__device__ __forceinline__ kiln_u16 kiln_to_half(float f) { kiln_u16 b; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(b) : "f"(f)); return b; }
__device__ __forceinline__ kiln_u16 kiln_to_bf16(float f) { kiln_u16 b; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f)); return b; }
__device__ __forceinline__ float kiln_sign(float v) { return v != v ? v : (v > 0.f ? 1.f : (v < 0.f ? -1.f : 0.f)); }
__device__ __forceinline__ float kiln_softplus(float t) { return t > 0.f ? t + log1pf(expf(-t)) : log1pf(expf(t)); }
__device__ __forceinline__ float kiln_sigmoid(float v) { if (v >= 0.f) return 1.f / (1.f + expf(-v)); float e = expf(v); return e / (1.f + e); }
struct KilnPwArgs { const void* in[8]; void* out; long long n; long long row[8]; };
)";

static_assert(kPW_MAX_INPUTS == 8, "the generated KilnPwArgs declares 8 inputs");

std::string literal(float v)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof(bits));
    std::ostringstream os;
    os << "__uint_as_float(0x" << std::hex << bits << "u)";
    return os.str();
}

StatusOr<std::string> binaryExpr(int32_t code, std::string const& a, std::string const& b)
{
    switch (static_cast<ElementWiseOperation>(code))
    {
    case ElementWiseOperation::kSUM: return "(" + a + " + " + b + ")";
    case ElementWiseOperation::kPROD: return "(" + a + " * " + b + ")";
    case ElementWiseOperation::kMAX: return "fmaxf(" + a + ", " + b + ")";
    case ElementWiseOperation::kMIN: return "fminf(" + a + ", " + b + ")";
    case ElementWiseOperation::kSUB: return "(" + a + " - " + b + ")";
    case ElementWiseOperation::kDIV: return "(" + a + " / " + b + ")";
    case ElementWiseOperation::kPOW: return "powf(" + a + ", " + b + ")";
    default: return unsupported("pointwise codegen: elementwise operation " + std::to_string(code));
    }
}

StatusOr<std::string> unaryExpr(int32_t code, std::string const& a)
{
    char const* fn = nullptr;
    switch (static_cast<UnaryOperation>(code))
    {
    case UnaryOperation::kEXP: fn = "expf"; break;
    case UnaryOperation::kLOG: fn = "logf"; break;
    case UnaryOperation::kSQRT: fn = "sqrtf"; break;
    case UnaryOperation::kRECIP: return "(1.f / " + a + ")";
    case UnaryOperation::kABS: fn = "fabsf"; break;
    case UnaryOperation::kNEG: return "(-" + a + ")";
    case UnaryOperation::kSIN: fn = "sinf"; break;
    case UnaryOperation::kCOS: fn = "cosf"; break;
    case UnaryOperation::kTAN: fn = "tanf"; break;
    case UnaryOperation::kSINH: fn = "sinhf"; break;
    case UnaryOperation::kCOSH: fn = "coshf"; break;
    case UnaryOperation::kASIN: fn = "asinf"; break;
    case UnaryOperation::kACOS: fn = "acosf"; break;
    case UnaryOperation::kATAN: fn = "atanf"; break;
    case UnaryOperation::kASINH: fn = "asinhf"; break;
    case UnaryOperation::kACOSH: fn = "acoshf"; break;
    case UnaryOperation::kATANH: fn = "atanhf"; break;
    case UnaryOperation::kCEIL: fn = "ceilf"; break;
    case UnaryOperation::kFLOOR: fn = "floorf"; break;
    case UnaryOperation::kERF: fn = "erff"; break;
    case UnaryOperation::kSIGN: fn = "kiln_sign"; break;
    case UnaryOperation::kROUND: fn = "rintf"; break; // half to even
    default: return unsupported("pointwise codegen: unary operation " + std::to_string(code));
    }
    return std::string(fn) + "(" + a + ")";
}

//! The activation of `v` (a register name) with literal alpha / beta.
StatusOr<std::string> activationExpr(int32_t code, std::string const& v, float alphaValue, float betaValue)
{
    std::string const alpha = literal(alphaValue);
    std::string const beta = literal(betaValue);
    switch (static_cast<ActivationType>(code))
    {
    case ActivationType::kRELU: return "(" + v + " > 0.f ? " + v + " : 0.f)";
    case ActivationType::kSIGMOID: return "kiln_sigmoid(" + v + ")";
    case ActivationType::kTANH: return "tanhf(" + v + ")";
    case ActivationType::kLEAKY_RELU: return "(" + v + " >= 0.f ? " + v + " : " + alpha + " * " + v + ")";
    case ActivationType::kELU: return "(" + v + " >= 0.f ? " + v + " : " + alpha + " * expm1f(" + v + "))";
    case ActivationType::kSELU:
        return "(" + v + " > 0.f ? " + beta + " * " + v + " : " + beta + " * (" + alpha + " * expf(" + v + ") - " + alpha
            + "))";
    case ActivationType::kSOFTSIGN: return "(" + v + " / (1.f + fabsf(" + v + ")))";
    case ActivationType::kSOFTPLUS: return "(" + alpha + " * kiln_softplus(" + beta + " * " + v + "))";
    case ActivationType::kCLIP: return "fmaxf(" + alpha + ", fminf(" + beta + ", " + v + "))";
    case ActivationType::kHARD_SIGMOID: return "fmaxf(0.f, fminf(1.f, " + alpha + " * " + v + " + " + beta + "))";
    case ActivationType::kSCALED_TANH: return "(" + alpha + " * tanhf(" + beta + " * " + v + "))";
    case ActivationType::kTHRESHOLDED_RELU: return "(" + v + " > " + alpha + " ? " + v + " : 0.f)";
    case ActivationType::kGELU_ERF: return "(0.5f * " + v + " * (1.f + erff(" + v + " * 0.70710678118654752f)))";
    case ActivationType::kGELU_TANH:
        return "(0.5f * " + v + " * (1.f + tanhf(0.79788456080286536f * (" + v + " + 0.044715f * " + v + " * " + v
            + " * " + v + "))))";
    default: return unsupported("pointwise codegen: activation " + std::to_string(code));
    }
}

char const* storageType(DataType t)
{
    return t == DataType::kFLOAT ? "float" : "kiln_u16";
}

std::string loadExpr(DataType t, std::string const& ptr, std::string const& index)
{
    std::string const element = "((const " + std::string(storageType(t)) + "*)" + ptr + ")[" + index + "]";
    switch (t)
    {
    case DataType::kHALF: return "kiln_from_half(" + element + ")";
    case DataType::kBF16: return "kiln_from_bf16(" + element + ")";
    default: return element;
    }
}

std::string storeValue(DataType t, std::string const& v)
{
    switch (t)
    {
    case DataType::kHALF: return "kiln_to_half(" + v + ")";
    case DataType::kBF16: return "kiln_to_bf16(" + v + ")";
    default: return v;
    }
}

//! The program's statements for one element: inputs r0.. from `loads`, results after them; the value is rLAST.
StatusOr<std::string> programBody(PwCodegenSpec const& spec, std::vector<std::string> const& loads, std::string const& suffix)
{
    PointwiseProgram const& p = spec.program;
    std::ostringstream os;
    auto reg = [&](int32_t x) -> std::string {
        if (x >= 0)
        {
            return "r" + std::to_string(x) + suffix;
        }
        return literal(p.consts[static_cast<size_t>(-1 - x)]);
    };
    for (int32_t k = 0; k < p.nbInputs; ++k)
    {
        os << "    float r" << k << suffix << " = " << loads[static_cast<size_t>(k)] << ";\n";
    }
    for (size_t j = 0; j < p.code.size(); ++j)
    {
        PwInstruction const& in = p.code[j];
        std::string const a = reg(in.a);
        StatusOr<std::string> expr = unsupported("pointwise codegen: instruction kind");
        switch (in.op)
        {
        case PwOp::kBINARY: expr = binaryExpr(in.code, a, reg(in.b)); break;
        case PwOp::kUNARY: expr = unaryExpr(in.code, a); break;
        case PwOp::kACTIVATION:
            expr = activationExpr(in.code, a, p.consts[static_cast<size_t>(in.b)], p.consts[static_cast<size_t>(in.b) + 1]);
            break;
        case PwOp::kROUND:
            expr = static_cast<DataType>(in.code) == DataType::kHALF ? "kiln_from_half(kiln_to_half(" + a + "))"
                                                                     : "kiln_from_bf16(kiln_to_bf16(" + a + "))";
            break;
        }
        if (!expr.isOk())
        {
            return expr.status();
        }
        os << "    float r" << p.nbInputs + static_cast<int32_t>(j) << suffix << " = " << *expr << ";\n";
    }
    return os.str();
}

std::string indexOf(PwIndexing how, int32_t k, std::string const& i)
{
    switch (how)
    {
    case PwIndexing::kFULL: return i;
    case PwIndexing::kSCALAR: return "0";
    case PwIndexing::kROW: return "(" + i + " % a.row[" + std::to_string(k) + "])";
    }
    return i;
}

StatusOr<std::string> generate(PwCodegenSpec const& spec)
{
    PointwiseProgram const& p = spec.program;
    if (p.code.empty() || spec.inTypes.size() != static_cast<size_t>(p.nbInputs)
        || spec.indexing.size() != static_cast<size_t>(p.nbInputs))
    {
        return invalidArgument("pointwise codegen: the program and its input descriptions disagree");
    }
    std::string const last = "r" + std::to_string(p.nbInputs + static_cast<int32_t>(p.code.size()) - 1);
    std::ostringstream os;
    os << kPRELUDE;
    // One element per thread.
    std::vector<std::string> loads;
    for (int32_t k = 0; k < p.nbInputs; ++k)
    {
        loads.push_back(loadExpr(spec.inTypes[static_cast<size_t>(k)], "a.in[" + std::to_string(k) + "]",
            indexOf(spec.indexing[static_cast<size_t>(k)], k, "i")));
    }
    KILN_ASSIGN_OR_RETURN(std::string body, programBody(spec, loads, ""));
    os << "extern \"C\" __global__ void __launch_bounds__(256) kiln_pw_scalar(KilnPwArgs a)\n{\n"
       << "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += (long long)gridDim.x * "
          "blockDim.x)\n  {\n"
       << body << "    ((" << storageType(spec.outType) << "*)a.out)[i] = " << storeValue(spec.outType, last)
       << ";\n  }\n}\n";
    // Four elements per thread: kFULL inputs and the output move as one 8- or 16-byte vector.
    os << "extern \"C\" __global__ void __launch_bounds__(256) kiln_pw_vector(KilnPwArgs a)\n{\n"
       << "  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q * 4 < a.n; q += (long long)gridDim.x * "
          "blockDim.x)\n  {\n    long long const i = q * 4;\n";
    for (int32_t k = 0; k < p.nbInputs; ++k)
    {
        DataType const t = spec.inTypes[static_cast<size_t>(k)];
        if (spec.indexing[static_cast<size_t>(k)] == PwIndexing::kFULL)
        {
            char const* vec = t == DataType::kFLOAT ? "float4" : "uint2";
            os << "    " << vec << " const v" << k << " = ((const " << vec << "*)a.in[" << k << "])[q];\n";
        }
    }
    std::string const lanes[4] = {"x", "y", "z", "w"};
    std::vector<std::string> results;
    for (int32_t lane = 0; lane < 4; ++lane)
    {
        std::vector<std::string> laneLoads;
        for (int32_t k = 0; k < p.nbInputs; ++k)
        {
            DataType const t = spec.inTypes[static_cast<size_t>(k)];
            PwIndexing const how = spec.indexing[static_cast<size_t>(k)];
            if (how != PwIndexing::kFULL)
            {
                laneLoads.push_back(loadExpr(t, "a.in[" + std::to_string(k) + "]", indexOf(how, k, "(i + " + std::to_string(lane) + ")")));
                continue;
            }
            std::string const v = "v" + std::to_string(k);
            if (t == DataType::kFLOAT)
            {
                laneLoads.push_back(v + "." + lanes[lane]);
                continue;
            }
            std::string const word = v + "." + (lane < 2 ? "x" : "y");
            std::string const bits = lane % 2 == 0 ? "(kiln_u16)(" + word + " & 0xffffu)" : "(kiln_u16)(" + word + " >> 16)";
            laneLoads.push_back(t == DataType::kHALF ? "kiln_from_half(" + bits + ")" : "kiln_from_bf16(" + bits + ")");
        }
        KILN_ASSIGN_OR_RETURN(std::string laneBody, programBody(spec, laneLoads, "_" + std::to_string(lane)));
        os << laneBody;
        results.push_back(last + "_" + std::to_string(lane));
    }
    if (spec.outType == DataType::kFLOAT)
    {
        os << "    ((float4*)a.out)[q] = make_float4(" << results[0] << ", " << results[1] << ", " << results[2] << ", "
           << results[3] << ");\n";
    }
    else
    {
        auto bits = [&](int32_t lane) { return "(unsigned)" + storeValue(spec.outType, results[static_cast<size_t>(lane)]); };
        os << "    ((uint2*)a.out)[q] = make_uint2(" << bits(0) << " | (" << bits(1) << " << 16), " << bits(2) << " | ("
           << bits(3) << " << 16));\n";
    }
    os << "  }\n}\n";
    return os.str();
}

Status nvrtcStatus(nvrtcResult r, char const* what)
{
    return internalError(std::string("NVRTC ") + what + ": " + nvrtcGetErrorString(r));
}

//! Compiles `source` for the current device and loads both kernels.
StatusOr<std::shared_ptr<PwGeneratedKernel const>> compile(std::string const& source)
{
    int device = 0;
    KILN_CUDA_CHECK(cudaGetDevice(&device));
    int major = 0;
    int minor = 0;
    KILN_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    KILN_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    nvrtcProgram prog = nullptr;
    nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(), "kiln_pointwise.cu", 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS)
    {
        return nvrtcStatus(r, "program creation");
    }
    std::string const arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
    char const* options[] = {arch.c_str(), "--std=c++17"};
    r = nvrtcCompileProgram(prog, 2, options);
    if (r != NVRTC_SUCCESS)
    {
        size_t logSize = 0;
        nvrtcGetProgramLogSize(prog, &logSize);
        std::string log(logSize, '\0');
        nvrtcGetProgramLog(prog, log.data());
        nvrtcDestroyProgram(&prog);
        return internalError("NVRTC compilation of a fused pointwise kernel failed: " + log);
    }
    size_t size = 0;
    r = nvrtcGetCUBINSize(prog, &size);
    std::vector<char> cubin(size);
    if (r == NVRTC_SUCCESS)
    {
        r = nvrtcGetCUBIN(prog, cubin.data());
    }
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS)
    {
        return nvrtcStatus(r, "binary");
    }
    cudaLibrary_t library = nullptr;
    KILN_CUDA_CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    cudaKernel_t scalar = nullptr;
    cudaKernel_t vector = nullptr;
    KILN_CUDA_CHECK(cudaLibraryGetKernel(&scalar, library, "kiln_pw_scalar"));
    KILN_CUDA_CHECK(cudaLibraryGetKernel(&vector, library, "kiln_pw_vector"));
    // The library stays loaded for the process: kernels of any context may use it (cached below).
    return std::make_shared<PwGeneratedKernel const>(
        reinterpret_cast<void const*>(scalar), reinterpret_cast<void const*>(vector));
}

} // namespace

StatusOr<std::string> PwGeneratedKernel::source(PwCodegenSpec const& spec)
{
    return generate(spec);
}

StatusOr<std::shared_ptr<PwGeneratedKernel const>> PwGeneratedKernel::get(PwCodegenSpec const& spec)
{
    KILN_ASSIGN_OR_RETURN(std::string src, generate(spec));
    int device = 0;
    KILN_CUDA_CHECK(cudaGetDevice(&device));
    std::string const key = std::to_string(device) + "\n" + src;
    static std::mutex mutex;
    static std::map<std::string, StatusOr<std::shared_ptr<PwGeneratedKernel const>>> cache;
    std::lock_guard<std::mutex> lock(mutex); // one compilation per source, even when contexts race
    auto it = cache.find(key);
    if (it == cache.end())
    {
        it = cache.emplace(key, compile(src)).first;
    }
    return it->second;
}

Status PwGeneratedKernel::launch(PwLaunchArgs const& args, bool vectorized, cudaStream_t stream) const
{
    constexpr int64_t kTHREADS = 256;
    int64_t const items = vectorized ? args.n / 4 : args.n;
    int64_t const blocks = std::min<int64_t>((items + kTHREADS - 1) / kTHREADS, 65535LL * 8);
    PwLaunchArgs copy = args;
    void* params[] = {&copy};
    KILN_CUDA_CHECK(cudaLaunchKernel(vectorized ? mVector : mScalar, dim3(static_cast<unsigned>(std::max<int64_t>(blocks, 1))),
        dim3(kTHREADS), params, 0, stream));
    return Status::ok();
}

} // namespace kiln::cuda
