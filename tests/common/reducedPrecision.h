// Test helper of the layer tests that build one network in FP32 on the CPU backend (the reference) and with kFP16 /
// kBF16 on the running test's backend, let the test check each reduced-precision plan, and compare the outputs on
// random inputs at several batch sizes (a dynamic first dimension).
#pragma once

#include "common/builtPlan.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{

struct ReducedPrecisionCheck
{
    std::function<void(NetworkRunner&)> build; //!< adds the layers, marks the outputs, sets the profile
    std::string input;                          //!< the one FP32 input, [N, ...]
    std::vector<int64_t> inputDims;             //!< its dims after N
    std::vector<std::string> outputs;
    std::vector<int64_t> batches{2, 4, 1};
    double fp16Tolerance{2e-2}; //!< atol = rtol
    double bf16Tolerance{8e-2};
    //! Called with each reduced-precision plan (after a successful build).
    std::function<void(Plan const&, nvinfer1::BuilderFlag)> checkPlan;
};

inline void checkReducedPrecisionMatchesFp32(ReducedPrecisionCheck const& c, std::mt19937& rng)
{
    NetworkRunner reference(BackendKind::kCPU, 0);
    c.build(reference);
    ASSERT_TRUE(reference.build()) << reference.logger().allErrors();
    for (nvinfer1::BuilderFlag flag : {nvinfer1::BuilderFlag::kFP16, nvinfer1::BuilderFlag::kBF16})
    {
        bool const fp16 = flag == nvinfer1::BuilderFlag::kFP16;
        SCOPED_TRACE(fp16 ? "kFP16" : "kBF16");
        NetworkRunner r;
        c.build(r);
        r.config().setFlag(flag);
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        auto plan = builtPlan(r);
        ASSERT_TRUE(plan.has_value());
        if (c.checkPlan)
        {
            c.checkPlan(*plan, flag);
        }
        double const tol = fp16 ? c.fp16Tolerance : c.bf16Tolerance;
        for (int64_t batch : c.batches)
        {
            SCOPED_TRACE("batch " + std::to_string(batch));
            std::vector<int64_t> dims{batch};
            dims.insert(dims.end(), c.inputDims.begin(), c.inputDims.end());
            std::map<std::string, HostTensor> inputs;
            inputs[c.input] = HostTensor::random(nvinfer1::DataType::kFLOAT, makeDims(dims), rng, -1.0, 1.0);
            std::map<std::string, HostTensor> const expected = reference.run(inputs);
            std::map<std::string, HostTensor> const actual = r.run(inputs);
            for (std::string const& name : c.outputs)
            {
                EXPECT_TRUE(allClose(actual.at(name), expected.at(name), tol, tol)) << name;
            }
        }
    }
}

} // namespace kiln::test
