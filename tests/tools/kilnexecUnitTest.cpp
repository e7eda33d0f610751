// kilnexec's pieces tested in-process: option parsing (profile grouping, shape specs with quoted names, memory
// pool units, percentiles, conflicts), the statistics of the performance summary (trtexec's median and percentile
// definitions, checked against an independent computation on shuffled random data) and the progress monitor's
// terminal and plain-line output.
#include "options.h"
#include "progressBar.h"
#include "report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace kilnexec
{
namespace
{

bool parse(std::vector<std::string> args, Options& options, std::string& error)
{
    args.insert(args.begin(), "kilnexec");
    std::vector<char const*> argv;
    for (std::string const& arg : args)
    {
        argv.push_back(arg.c_str());
    }
    return parseOptions(static_cast<int>(argv.size()), argv.data(), options, error);
}

std::string dims(ShapeSpec const& spec)
{
    return spec.name + "=" + dimsText(spec.dims);
}

TEST(KilnexecOptionsTest, ProfileGroupsAndInferenceProfile)
{
    Options o;
    std::string error;
    ASSERT_TRUE(parse({"--onnx=m.onnx", "--minShapes=x:1x3", "--maxShapes=x:4x3", "--profile=2", "--minShapes=x:5x3",
                          "--optShapes=x:6x3", "--maxShapes=x:8x3", "--shapes=x:7x3"},
        o, error))
        << error;
    ASSERT_EQ(o.profiles.size(), 3U);
    EXPECT_TRUE(o.profiles[0].hasMin && !o.profiles[0].hasOpt && o.profiles[0].hasMax);
    EXPECT_FALSE(o.profiles[1].hasMin || o.profiles[1].hasOpt || o.profiles[1].hasMax);
    EXPECT_EQ(dims(o.profiles[2].opt.at(0)), "x=6x3");
    EXPECT_EQ(o.inferenceProfile, 2);
    EXPECT_EQ(dims(o.shapes.at(0)), "x=7x3");

    Options repeated;
    ASSERT_TRUE(parse({"--onnx=m.onnx", "--minShapes=x:1x3", "--minShapes=x:2x3", "--maxShapes=x:9x3"}, repeated, error));
    ASSERT_EQ(repeated.profiles.size(), 2U);
    EXPECT_EQ(dims(repeated.profiles[1].min.at(0)), "x=2x3");
    EXPECT_EQ(dims(repeated.profiles[1].max.at(0)), "x=9x3");
    EXPECT_FALSE(repeated.profiles[0].hasMax);
}

TEST(KilnexecOptionsTest, ShapeSpecsWithQuotedAndColonNames)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    ASSERT_TRUE(parseShapeSpec("shapes", "'a,b:c':1x2,input:0:3x4x5,s:scalar", specs, error)) << error;
    ASSERT_EQ(specs.size(), 3U);
    EXPECT_EQ(dims(specs[0]), "a,b:c=1x2");
    EXPECT_EQ(dims(specs[1]), "input:0=3x4x5");
    EXPECT_EQ(dims(specs[2]), "s=scalar");
    for (char const* bad : {"x", ":1x2", "x:1x-2", "'x:1x2", "x:1x2,x:3"})
    {
        EXPECT_FALSE(parseShapeSpec("shapes", bad, specs, error)) << bad;
        EXPECT_EQ(error.rfind("kilnexec: --shapes=", 0), 0U) << error;
    }
}

TEST(KilnexecOptionsTest, MemoryPoolUnitsPercentilesAndTiming)
{
    Options o;
    std::string error;
    ASSERT_TRUE(parse({"--onnx=m.onnx", "--memPoolSize=workspace:1.5G,dlaSRAM:3K,tacticSharedMem:7B",
                          "--percentile=50,99.9", "--iterations=3", "--warmUp=12.5", "--duration=0.25", "--avgRuns=4"},
        o, error))
        << error;
    ASSERT_EQ(o.memPools.size(), 3U);
    EXPECT_EQ(o.memPools[0].second, 1.5 * 1024.0 * 1024.0 * 1024.0);
    EXPECT_EQ(o.memPools[1].second, 3.0 * 1024.0);
    EXPECT_EQ(o.memPools[2].second, 7.0);
    Options plain;
    ASSERT_TRUE(parse({"--onnx=m.onnx", "--memPoolSize=workspace:64"}, plain, error));
    EXPECT_EQ(plain.memPools.at(0).second, 64.0 * 1024.0 * 1024.0) << "MiB without a suffix, as trtexec";
    EXPECT_EQ(o.percentiles, (std::vector<double>{50.0, 99.9}));
    EXPECT_EQ(o.iterations, 3);
    EXPECT_EQ(o.warmUpMs, 12.5);
    EXPECT_EQ(o.durationS, 0.25);
    EXPECT_EQ(o.avgRuns, 4);
    Options defaults;
    ASSERT_TRUE(parse({"--onnx=m.onnx"}, defaults, error));
    EXPECT_EQ(defaults.iterations, 10);
    EXPECT_EQ(defaults.warmUpMs, 200.0);
    EXPECT_EQ(defaults.durationS, 3.0);
    EXPECT_EQ(defaults.avgRuns, 10);
    EXPECT_EQ(defaults.percentiles, (std::vector<double>{90.0, 95.0, 99.0}));
}

TEST(KilnexecOptionsTest, ConflictsAndBadValues)
{
    struct Case
    {
        std::vector<std::string> args;
        char const* message;
    };
    std::vector<Case> const cases = {{{"--onnx=a", "--stronglyTyped", "--best"}, "--stronglyTyped takes its types"},
        {{"--onnx=a", "--loadEngine=b"}, "exclude each other"},
        {{"--loadEngine=b", "--minShapes=x:1"}, "build flags"},
        {{"--onnx=a", "--profile=-1"}, "--profile=-1: expected a profile index"},
        {{"--onnx=a", "--avgRuns=1.5"}, "--avgRuns=1.5: expected a positive integer"},
        {{"--onnx=a", "--duration=abc"}, "--duration=abc: expected a non-negative number (seconds)"},
        {{"--onnx=a", "--memPoolSize=workspace:12Q"}, "'workspace:12Q' is not pool:size"},
        {{"--onnx=a", "--loadInputs='x:f"}, "is not 'name':file"},
        {{"--onnx=a", "--device=gpu:1"}, "expected cpu, gpu or a GPU index"},
        {{"--onnx=a", "--skipInference=1"}, "--skipInference takes no value"}};
    for (Case const& c : cases)
    {
        Options o;
        std::string error;
        EXPECT_FALSE(parse(c.args, o, error)) << c.args.back();
        EXPECT_NE(error.find(c.message), std::string::npos) << error;
        EXPECT_EQ(error.rfind("kilnexec: ", 0), 0U) << error;
    }
}

TEST(KilnexecStatisticsTest, MedianAndPercentilesFollowTrtexec)
{
    std::mt19937 rng(77);
    std::uniform_real_distribution<double> dist(0.1, 5.0);
    for (size_t n : {1U, 2U, 7U, 10U, 101U})
    {
        std::vector<double> values(n);
        for (double& v : values)
        {
            v = dist(rng);
        }
        std::vector<double> const percentiles = {0.0, 50.0, 90.0, 99.0, 100.0};
        Statistics const s = computeStatistics(values, percentiles);
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        double sum = 0.0;
        for (double v : values)
        {
            sum += v;
        }
        EXPECT_EQ(s.min, sorted.front());
        EXPECT_EQ(s.max, sorted.back());
        EXPECT_NEAR(s.mean, sum / static_cast<double>(n), 1e-12);
        double const median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
        EXPECT_EQ(s.median, median);
        ASSERT_EQ(s.percentiles.size(), percentiles.size());
        for (size_t i = 0; i < percentiles.size(); ++i)
        {
            // trtexec: exclude floor((1 - p/100) * n) runs from the top.
            long const exclude = static_cast<long>(std::floor((1.0 - percentiles[i] / 100.0) * static_cast<double>(n)));
            long const index = std::clamp<long>(static_cast<long>(n) - 1 - exclude, 0, static_cast<long>(n) - 1);
            EXPECT_EQ(s.percentiles[i], sorted[static_cast<size_t>(index)]) << "n " << n << " p " << percentiles[i];
        }
    }
    Statistics const empty = computeStatistics({}, {90.0});
    EXPECT_EQ(empty.percentiles.size(), 1U);
}

std::string captured(std::FILE* file)
{
    std::fflush(file);
    std::rewind(file);
    std::string text;
    char buffer[512];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    {
        text.append(buffer, n);
    }
    return text;
}

TEST(KilnexecProgressTest, PlainLinesOffATerminal)
{
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    ProgressBar bar(file, false);
    bar.phaseStart("Building engine", nullptr, 3);
    bar.phaseStart("Tactics", "Building engine", 2);
    EXPECT_TRUE(bar.stepComplete("Tactics", 0));
    bar.phaseFinish("Tactics");
    EXPECT_TRUE(bar.stepComplete("Building engine", 2));
    bar.phaseFinish("Building engine");
    std::string const text = captured(file);
    std::fclose(file);
    EXPECT_NE(text.find("[I] [build] Building engine: started (3 steps)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[I]   [build] Tactics: started (2 steps, part of Building engine)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[I]   [build] Tactics: finished in "), std::string::npos) << text;
    EXPECT_NE(text.find("[I] [build] Building engine: finished in "), std::string::npos) << text;
    EXPECT_EQ(text.find('\r'), std::string::npos) << "no carriage returns in logs";
}

TEST(KilnexecProgressTest, RedrawnBarOnATerminal)
{
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    ProgressBar bar(file, true);
    bar.phaseStart("Building engine", nullptr, 4);
    for (int32_t step = 0; step < 4; ++step)
    {
        EXPECT_TRUE(bar.stepComplete("Building engine", step));
    }
    bar.phaseFinish("Building engine");
    std::string const text = captured(file);
    std::fclose(file);
    EXPECT_NE(text.find("\r[I] [build] Building engine"), std::string::npos) << text;
    EXPECT_NE(text.find("[==========                              ] 1/4"), std::string::npos) << text;
    EXPECT_NE(text.find("[========================================] 4/4\n"), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "one line, redrawn in place";
}

} // namespace
} // namespace kilnexec
