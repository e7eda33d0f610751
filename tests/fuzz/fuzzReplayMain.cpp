// fuzzReplayMain.cpp — a main() for fuzz targets in builds without libFuzzer: feeds every file of the given
// corpus directories/files, then deterministic random and mutated inputs (through the target's own
// LLVMFuzzerCustomMutator too when it has one), to LLVMFuzzerTestOneInput.
// Usage: <target>Replay [--random N] [--seed S] [path...]
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" __attribute__((weak)) size_t LLVMFuzzerCustomMutator(
    uint8_t* data, size_t size, size_t maxSize, unsigned int seed);

namespace
{

using Bytes = std::vector<uint8_t>;

bool readFile(std::filesystem::path const& path, Bytes& out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return false;
    }
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

void collect(std::filesystem::path const& path, std::vector<std::filesystem::path>& files)
{
    namespace fs = std::filesystem;
    if (fs::is_directory(path))
    {
        for (auto const& entry : fs::recursive_directory_iterator(path))
        {
            if (entry.is_regular_file())
            {
                files.push_back(entry.path());
            }
        }
    }
    else if (fs::is_regular_file(path))
    {
        files.push_back(path);
    }
    else
    {
        std::fprintf(stderr, "fuzzReplay: skipping missing path %s\n", path.c_str());
    }
}

void runOne(Bytes const& input)
{
    // Copy into an exactly-sized heap buffer so that sanitizers see reads past the end.
    auto* buffer = static_cast<uint8_t*>(std::malloc(input.empty() ? 1 : input.size()));
    if (!input.empty())
    {
        std::memcpy(buffer, input.data(), input.size());
    }
    LLVMFuzzerTestOneInput(buffer, input.size());
    std::free(buffer);
}

Bytes mutate(Bytes input, std::mt19937_64& rng)
{
    std::uniform_int_distribution<int> kind(0, 3);
    switch (kind(rng))
    {
    case 0: // flip a few bytes
        for (int i = 0; i < 4 && !input.empty(); ++i)
        {
            input[rng() % input.size()] ^= static_cast<uint8_t>(1U << (rng() % 8));
        }
        break;
    case 1: // truncate
        input.resize(input.empty() ? 0 : rng() % input.size());
        break;
    case 2: // overwrite a 4-byte field with an extreme value
        if (input.size() >= 4)
        {
            uint32_t const extremes[] = {0U, 0xFFFFFFFFU, 0x7FFFFFFFU, 0x80000000U};
            std::memcpy(&input[rng() % (input.size() - 3)], &extremes[rng() % 4], 4);
        }
        break;
    default: // append garbage
        for (int i = 0; i < 16; ++i)
        {
            input.push_back(static_cast<uint8_t>(rng()));
        }
        break;
    }
    return input;
}

} // namespace

int main(int argc, char** argv)
{
    if (LLVMFuzzerInitialize != nullptr)
    {
        LLVMFuzzerInitialize(&argc, &argv);
    }

    long randomCount = 0;
    uint64_t seed = 0x6B696C6EULL; // fixed: replays are reproducible
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "--random" && i + 1 < argc)
        {
            randomCount = std::strtol(argv[++i], nullptr, 10);
        }
        else if (arg == "--seed" && i + 1 < argc)
        {
            seed = std::strtoull(argv[++i], nullptr, 10);
        }
        else
        {
            collect(arg, files);
        }
    }

    std::vector<Bytes> corpus;
    for (auto const& file : files)
    {
        Bytes bytes;
        if (readFile(file, bytes))
        {
            runOne(bytes);
            corpus.push_back(std::move(bytes));
        }
    }

    std::mt19937_64 rng(seed);
    runOne({});
    for (long i = 0; i < randomCount; ++i)
    {
        if (!corpus.empty() && (i % 4) == 3 && LLVMFuzzerCustomMutator != nullptr)
        {
            // A structure-aware target's own mutator, a few steps deep from a seed.
            Bytes input = corpus[rng() % corpus.size()];
            for (int step = 0; step < 1 + static_cast<int>(rng() % 4); ++step)
            {
                size_t const size = input.size();
                size_t const maxSize = size * 2 + 4096;
                input.resize(maxSize);
                input.resize(LLVMFuzzerCustomMutator(input.data(), size, maxSize, static_cast<unsigned int>(rng())));
            }
            runOne(input);
        }
        else if (!corpus.empty() && (i % 2) == 1)
        {
            runOne(mutate(corpus[rng() % corpus.size()], rng));
        }
        else
        {
            Bytes bytes(rng() % 4096);
            for (auto& b : bytes)
            {
                b = static_cast<uint8_t>(rng());
            }
            runOne(bytes);
        }
    }
    std::printf("fuzzReplay: %zu corpus inputs, %ld generated inputs, no crash\n", corpus.size(), randomCount);
    return 0;
}
