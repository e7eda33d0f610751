// Parity harness of the CUDA backend: build a network through the public API (for the CPU), read the built plan
// back, evaluate every tensor's shape, run each node with the CPU reference kernel (the oracle) and, on the same
// inputs, with the CUDA kernel (inputs uploaded, outputs poisoned before the run), and compare per node with the
// tolerance of the output's precision. Without a GPU the CPU half still runs (so the networks and the CUDA kernel
// table are checked everywhere) and the test then skips with a visible GTEST_SKIP() message.
#pragma once

#include "backends/cpu/cpuKernel.h"
#include "common/networkRunner.h"

#include "NvInfer.h"

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace kiln::test::cuda
{

//! Tolerances by precision: |gpu - cpu| <= atol + rtol * |cpu|; integer and BOOL outputs are compared exactly.
struct Tolerance
{
    double fp32Atol{1e-5};
    double fp32Rtol{1e-5};
    double fp16Atol{1e-3};
    double fp16Rtol{1e-3};  //!< about one FP16 ulp: float results rounded on either side of a tie
    double bf16Atol{8e-3};
    double bf16Rtol{8e-3};  //!< about one BF16 ulp
};

//! True when a CUDA device is usable; otherwise `why` says why not (for the skip message).
bool gpuAvailable(std::string& why);

//! Adds inputs and layers to the network and marks its outputs.
using NetworkFn = std::function<void(nvinfer1::INetworkDefinition& network)>;

struct ParityOptions
{
    //! Inputs by name; others get random values in [lo, hi] (integers: whole numbers; BOOL: 0/1).
    std::map<std::string, HostTensor> inputs;
    double lo{-2.0};
    double hi{2.0};
    Tolerance tolerance{};
    uint32_t seed{1234};
    bool stronglyTyped{true};
};

//! Build the network, run every node on CPU and GPU, and compare. Fails the test (never aborts) on any error;
//! returns the number of nodes compared on the GPU (0 when skipped).
int32_t checkParity(NetworkFn const& build, ParityOptions const& options = {});

//! One node without a network (for kinds the builder folds away, e.g. fills and shapes of static tensors): runs the
//! CPU reference kernel on `inputs` into tensors shaped like `outputs`, then the CUDA kernel, and compares. A
//! default-constructed HostTensor among `inputs` is an absent optional input. False
//! (after a test failure, or a skip without a GPU) when they differ or a step fails.
bool checkKernel(PlanNode const& node, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs,
    std::vector<WeightsView> const& weights = {}, Tolerance const& tolerance = {});

//! Harness self-test only: when on, the CPU reference outputs are altered before the comparison, which must then
//! fail (proves that the GPU half really compares).
void setPerturbExpectedForSelfTest(bool on);

//! Shorthand for tests: the Dims of a list.
nvinfer1::Dims dims(std::vector<int64_t> const& extents);

} // namespace kiln::test::cuda

//! Skip the rest of a test that needs a GPU (use after the CPU-only checks).
#define KILN_REQUIRE_GPU()                                                                                             \
    do                                                                                                                 \
    {                                                                                                                  \
        std::string kilnWhy_;                                                                                          \
        if (!::kiln::test::cuda::gpuAvailable(kilnWhy_))                                                               \
        {                                                                                                              \
            GTEST_SKIP() << "no CUDA GPU: " << kilnWhy_;                                                               \
        }                                                                                                              \
    } while (false)
