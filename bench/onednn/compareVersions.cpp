// Times the oneDNN primitives that dominate Kiln's CPU models (ResNet-50's convolutions, BERT-base's matrix
// multiplies, batch 1 and 16) against whichever oneDNN it is compiled with, so that two oneDNN versions can be
// compared on one machine (compareVersions.sh builds it against each and interleaves the runs). It compiles against
// oneDNN 2.x and 3.x (the primitive-descriptor and post-op APIs differ; see the DNNL_VERSION_MAJOR branches).
// Primitives are timed as Kiln runs them: source and destination in the layout oneDNN picks (format_tag::any)
// for convolutions, weights reordered once; matrix multiplies on plain row-major operands, as Kiln passes them;
// bias and ReLU (convolutions) or bias (matrix multiplies) fused. Output: one line per shape,
// "name batch count minMs medianMs GFLOP/s(min) impl", then the totals per model (sums of the minimum times
// weighted by how often each shape occurs). The minimum is the figure to compare on a shared machine: a thread
// preempted by other work (a scheduler quantum is ~12 ms here) inflates medians but rarely every run.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace
{
using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct Timed
{
    double minMs;
    double medianMs;
    std::string impl;
};

std::pair<double, double> minMedianMs(dnnl::stream& s, dnnl::primitive const& p, std::unordered_map<int, memory> const& args)
{
    for (int i = 0; i < 2; ++i)
    {
        p.execute(s, args);
    }
    s.wait();
    std::vector<double> times;
    auto const start = std::chrono::steady_clock::now();
    while (times.size() < 10 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 0.5)
    {
        auto const t0 = std::chrono::steady_clock::now();
        p.execute(s, args);
        s.wait();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return {times.front(), times[times.size() / 2]};
}

void fill(memory& m)
{
    float* p = static_cast<float*>(m.get_data_handle());
    size_t const n = m.get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i)
    {
        p[i] = static_cast<float>((i * 2654435761U) % 1000) / 1000.F - 0.5F;
    }
}

dnnl::primitive_attr reluAttr()
{
    dnnl::post_ops ops;
#if DNNL_VERSION_MAJOR >= 3
    ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.F, 0.F);
#else
    ops.append_eltwise(1.F, dnnl::algorithm::eltwise_relu, 0.F, 0.F);
#endif
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    return attr;
}

Timed conv(dnnl::engine& eng, dnnl::stream& s, int64_t n, int64_t c, int64_t k, int64_t kernel, int64_t stride,
    int64_t hw)
{
    int64_t const pad = kernel / 2;
    int64_t const out = (hw + 2 * pad - kernel) / stride + 1;
    memory::desc const src({n, c, hw, hw}, Dt::f32, Tag::any);
    memory::desc const wei({k, c, kernel, kernel}, Dt::f32, Tag::any);
    memory::desc const bias({k}, Dt::f32, Tag::a);
    memory::desc const dst({n, k, out, out}, Dt::f32, Tag::any);
    memory::dims const strides{stride, stride};
    memory::dims const dil{0, 0};
    memory::dims const pads{pad, pad};
#if DNNL_VERSION_MAJOR >= 3
    dnnl::convolution_forward::primitive_desc pd(eng, dnnl::prop_kind::forward_inference,
        dnnl::algorithm::convolution_direct, src, wei, bias, dst, strides, dil, pads, pads, reluAttr());
#else
    dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
        wei, bias, dst, strides, dil, pads, pads);
    dnnl::convolution_forward::primitive_desc pd(d, reluAttr(), eng);
#endif
    memory ms(pd.src_desc(), eng);
    memory mw(pd.weights_desc(), eng);
    memory mb(bias, eng);
    memory md(pd.dst_desc(), eng);
    fill(ms);
    fill(mw);
    fill(mb);
    dnnl::convolution_forward p(pd);
    auto const t = minMedianMs(s, p, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST, md}});
    return {t.first, t.second, pd.impl_info_str()};
}

Timed matmul(dnnl::engine& eng, dnnl::stream& s, int64_t batch, int64_t m, int64_t kk, int64_t n, bool bias)
{
    memory::desc const a({batch, m, kk}, Dt::f32, Tag::abc);
    memory::desc const b({bias ? 1 : batch, kk, n}, Dt::f32, Tag::abc);
    memory::desc const c({batch, m, n}, Dt::f32, Tag::abc);
    memory::desc const bd = bias ? memory::desc({1, 1, n}, Dt::f32, Tag::abc) : memory::desc();
#if DNNL_VERSION_MAJOR >= 3
    dnnl::matmul::primitive_desc pd(eng, a, b, bd, c);
#else
    dnnl::matmul::desc d(a, b, bd, c);
    dnnl::matmul::primitive_desc pd(d, eng);
#endif
    memory ma(a, eng);
    memory mbw(b, eng);
    memory mc(c, eng);
    fill(ma);
    fill(mbw);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mbw}, {DNNL_ARG_DST, mc}};
    if (bias)
    {
        memory mbias(bd, eng);
        fill(mbias);
        args.emplace(DNNL_ARG_BIAS, mbias);
    }
    dnnl::matmul p(pd);
    auto const t = minMedianMs(s, p, args);
    return {t.first, t.second, pd.impl_info_str()};
}

struct ConvShape
{
    char const* name;
    int64_t c, k, kernel, stride, hw, count;
};

struct MatmulShape
{
    char const* name;
    int64_t batchPerImage, m, k, n;
    bool bias;
    int64_t count;
};

} // namespace

int main(int argc, char** argv)
{
    std::vector<int64_t> batches{1, 16};
    if (argc > 1)
    {
        batches = {std::atoll(argv[1])};
    }
    // ResNet-50 v1.5: (name, in, out, kernel, stride, input size, occurrences).
    std::vector<ConvShape> const convs{{"stem7x7", 3, 64, 7, 2, 224, 1}, {"s1.1x1a", 64, 64, 1, 1, 56, 1},
        {"s1.1x1a'", 256, 64, 1, 1, 56, 2}, {"s1.3x3", 64, 64, 3, 1, 56, 3}, {"s1.1x1b", 64, 256, 1, 1, 56, 4},
        {"s2.1x1a", 256, 128, 1, 1, 56, 1}, {"s2.3x3/2", 128, 128, 3, 2, 56, 1}, {"s2.ds", 256, 512, 1, 2, 56, 1},
        {"s2.1x1b", 128, 512, 1, 1, 28, 4}, {"s2.1x1a'", 512, 128, 1, 1, 28, 3}, {"s2.3x3", 128, 128, 3, 1, 28, 3},
        {"s3.1x1a", 512, 256, 1, 1, 28, 1}, {"s3.3x3/2", 256, 256, 3, 2, 28, 1}, {"s3.ds", 512, 1024, 1, 2, 28, 1},
        {"s3.1x1b", 256, 1024, 1, 1, 14, 6}, {"s3.1x1a'", 1024, 256, 1, 1, 14, 5}, {"s3.3x3", 256, 256, 3, 1, 14, 5},
        {"s4.1x1a", 1024, 512, 1, 1, 14, 1}, {"s4.3x3/2", 512, 512, 3, 2, 14, 1}, {"s4.ds", 1024, 2048, 1, 2, 14, 1},
        {"s4.1x1b", 512, 2048, 1, 1, 7, 3}, {"s4.1x1a'", 2048, 512, 1, 1, 7, 2}, {"s4.3x3", 512, 512, 3, 1, 7, 2}};
    // BERT-base, sequence 128: per layer 4 projections 768x768, FFN 768->3072->768, attention Q.K^T and P.V per head.
    std::vector<MatmulShape> const matmuls{{"proj768", 1, 128, 768, 768, true, 48},
        {"ffn1", 1, 128, 768, 3072, true, 12}, {"ffn2", 1, 128, 3072, 768, true, 12},
        {"qk^T", 12, 128, 64, 128, false, 12}, {"pv", 12, 128, 128, 64, false, 12}};
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream s(eng);
    std::printf("# oneDNN %d.%d.%d\n", dnnl_version()->major, dnnl_version()->minor, dnnl_version()->patch);
    for (int64_t const n : batches)
    {
        double resnet = 0.0;
        double bert = 0.0;
        for (ConvShape const& c : convs)
        {
            Timed const t = conv(eng, s, n, c.c, c.k, c.kernel, c.stride, c.hw);
            int64_t const out = (c.hw + 2 * (c.kernel / 2) - c.kernel) / c.stride + 1;
            double const flops = 2.0 * n * c.k * out * out * c.c * c.kernel * c.kernel;
            std::printf("resnet50.%s %lld %lld %.4f %.4f %.1f %s\n", c.name, static_cast<long long>(n),
                static_cast<long long>(c.count), t.minMs, t.medianMs, flops / t.minMs * 1e-6, t.impl.c_str());
            resnet += t.minMs * static_cast<double>(c.count);
        }
        for (MatmulShape const& m : matmuls)
        {
            // Projections fold the batch into M (one [n*128, K] x [K, N] product); attention is batched per head.
            int64_t const batch = m.batchPerImage == 1 ? 1 : m.batchPerImage * n;
            int64_t const rows = m.batchPerImage == 1 ? m.m * n : m.m;
            Timed const t = matmul(eng, s, batch, rows, m.k, m.n, m.bias);
            double const flops = 2.0 * batch * rows * m.k * m.n;
            std::printf("bert.%s %lld %lld %.4f %.4f %.1f %s\n", m.name, static_cast<long long>(n),
                static_cast<long long>(m.count), t.minMs, t.medianMs, flops / t.minMs * 1e-6, t.impl.c_str());
            bert += t.minMs * static_cast<double>(m.count);
        }
        std::printf("total.resnet50-convolutions %lld 1 %.3f - - -\n", static_cast<long long>(n), resnet);
        std::printf("total.bert-matmuls %lld 1 %.3f - - -\n", static_cast<long long>(n), bert);
        std::fflush(stdout);
    }
    return 0;
}
