// kilnOnnxConformance: runs the ONNX backend node tests (Debian's libonnx-testdata) through Kiln's parser, builder
// and CPU runtime, one forked process per test (a crash or hang fails that test only), prints one line per test
// and optionally writes a Markdown summary listing every test that did not pass.
//
// Usage: kilnOnnxConformance [--data DIR] [--filter REGEX] [--jobs N] [--timeout SECONDS] [--summary FILE.md]
//                            [--min-pass-rate FRACTION] [--no-fork] [--verbose] [--quiet]
// Exit code: 0 when the pass rate reaches --min-pass-rate (default 0), 1 otherwise, 2 on bad arguments.
#include "caseRunner.h"
#include "summary.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace
{

using namespace kiln::conformance;
namespace fs = std::filesystem;

struct Options
{
    std::string data{"/usr/share/libonnx-testdata/data/node"};
    std::string filter;
    std::string summary;
    int jobs{1};
    int timeoutSeconds{120};
    double minPassRate{0.0};
    bool fork{true};
    bool verbose{false};
    bool quiet{false};
};

bool parseOptions(int argc, char** argv, Options& o)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string const a = argv[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= argc)
            {
                std::cerr << "kilnOnnxConformance: " << a << " needs a value\n";
                return false;
            }
            out = argv[++i];
            return true;
        };
        std::string v;
        if (a == "--data") { if (!value(o.data)) return false; }
        else if (a == "--filter") { if (!value(o.filter)) return false; }
        else if (a == "--summary") { if (!value(o.summary)) return false; }
        else if (a == "--jobs") { if (!value(v)) return false; o.jobs = std::max(1, std::atoi(v.c_str())); }
        else if (a == "--timeout") { if (!value(v)) return false; o.timeoutSeconds = std::max(1, std::atoi(v.c_str())); }
        else if (a == "--min-pass-rate") { if (!value(v)) return false; o.minPassRate = std::atof(v.c_str()); }
        else if (a == "--no-fork") { o.fork = false; }
        else if (a == "--verbose") { o.verbose = true; }
        else if (a == "--quiet") { o.quiet = true; }
        else
        {
            std::cerr << "kilnOnnxConformance: unknown argument " << a << "\n";
            return false;
        }
    }
    return true;
}

std::string oneLine(std::string s)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '\t', ' ');
    return s;
}

//! A running child: the test it runs, its pid, the read end of its result pipe, and when it started.
struct Child
{
    size_t index;
    pid_t pid;
    int fd;
    std::chrono::steady_clock::time_point start;
    std::string output;
};

CaseResult decodeChild(Child& c, int status)
{
    if (WIFSIGNALED(status))
    {
        return {Outcome::kCRASH, std::string("process killed by signal ") + strsignal(WTERMSIG(status))};
    }
    auto const tab = c.output.find('\t');
    if (tab == std::string::npos)
    {
        return {Outcome::kCRASH, "process exited with status " + std::to_string(WEXITSTATUS(status))
                + " without a result"};
    }
    int const code = std::atoi(c.output.substr(0, tab).c_str());
    return {static_cast<Outcome>(code), c.output.substr(tab + 1)};
}

void drain(Child& c)
{
    char buffer[4096];
    ssize_t n = 0;
    while ((n = read(c.fd, buffer, sizeof(buffer))) > 0)
    {
        c.output.append(buffer, static_cast<size_t>(n));
    }
}

std::vector<CaseResult> runForked(std::vector<std::string> const& dirs, Options const& o,
    std::function<void(size_t, CaseResult const&)> const& report)
{
    std::vector<CaseResult> results(dirs.size());
    std::vector<Child> running;
    size_t next = 0;
    while (next < dirs.size() || !running.empty())
    {
        while (next < dirs.size() && static_cast<int>(running.size()) < o.jobs)
        {
            int fds[2];
            if (pipe(fds) != 0)
            {
                results[next] = {Outcome::kCRASH, "pipe() failed"};
                report(next, results[next]);
                ++next;
                continue;
            }
            std::cout.flush();
            std::cerr.flush();
            pid_t const pid = fork();
            if (pid == 0)
            {
                close(fds[0]);
                CaseResult const r = runCase(dirs[next], o.verbose);
                std::string const line = std::to_string(static_cast<int>(r.outcome)) + "\t" + oneLine(r.detail);
                ssize_t written = write(fds[1], line.data(), line.size());
                (void) written;
                close(fds[1]);
                _exit(0);
            }
            close(fds[1]);
            running.push_back({next, pid, fds[0], std::chrono::steady_clock::now(), {}});
            ++next;
        }
        for (size_t k = 0; k < running.size();)
        {
            Child& c = running[k];
            int status = 0;
            pid_t const done = waitpid(c.pid, &status, WNOHANG);
            bool const late = std::chrono::steady_clock::now() - c.start > std::chrono::seconds(o.timeoutSeconds);
            if (done == 0 && !late)
            {
                ++k;
                continue;
            }
            if (done == 0)
            {
                kill(c.pid, SIGKILL);
                waitpid(c.pid, &status, 0);
                results[c.index] = {Outcome::kTIMEOUT, "no result after " + std::to_string(o.timeoutSeconds) + " s"};
            }
            else
            {
                drain(c);
                results[c.index] = decodeChild(c, status);
            }
            close(c.fd);
            report(c.index, results[c.index]);
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return results;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    if (!parseOptions(argc, argv, o))
    {
        return 2;
    }
    std::error_code ec;
    if (!fs::is_directory(o.data, ec))
    {
        std::cerr << "kilnOnnxConformance: test data directory " << o.data << " does not exist"
                  << " (install the Debian package libonnx-testdata)\n";
        return 2;
    }
    std::regex filter;
    try
    {
        filter = std::regex(o.filter.empty() ? ".*" : o.filter);
    }
    catch (std::regex_error const& e)
    {
        std::cerr << "kilnOnnxConformance: bad --filter: " << e.what() << "\n";
        return 2;
    }
    std::vector<std::string> names;
    for (auto const& entry : fs::directory_iterator(o.data))
    {
        std::string const name = entry.path().filename().string();
        if (entry.is_directory() && fs::exists(entry.path() / "model.onnx") && std::regex_search(name, filter))
        {
            names.push_back(name);
        }
    }
    std::sort(names.begin(), names.end());
    std::vector<std::string> dirs;
    for (auto const& n : names)
    {
        dirs.push_back(o.data + "/" + n);
    }

    auto const start = std::chrono::steady_clock::now();
    auto report = [&](size_t i, CaseResult const& r) {
        if (!o.quiet || r.outcome != Outcome::kPASS)
        {
            std::cout << outcomeName(r.outcome) << " " << names[i] << (r.detail.empty() ? "" : ": ") << r.detail
                      << std::endl;
        }
    };
    std::vector<CaseResult> results;
    if (o.fork)
    {
        results = runForked(dirs, o, report);
    }
    else
    {
        for (size_t i = 0; i < dirs.size(); ++i)
        {
            results.push_back(runCase(dirs[i], o.verbose));
            report(i, results.back());
        }
    }
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Summary const summary = summarize(names, results);
    std::cout << "\n" << summaryLine(summary) << " in " << static_cast<int>(seconds) << " s\n";
    std::vector<std::string> opTypes;
    for (size_t i = 0; i < names.size() && !o.summary.empty(); ++i)
    {
        opTypes.push_back(primaryOpType(dirs[i], names[i]));
    }
    if (!o.summary.empty() && !writeMarkdownSummary(o.summary, summary, o.data, names, results, opTypes))
    {
        std::cerr << "kilnOnnxConformance: cannot write " << o.summary << "\n";
        return 1;
    }
    if (summary.passRate() + 1e-12 < o.minPassRate)
    {
        std::cout << "kilnOnnxConformance: pass rate " << summary.passRate() * 100.0 << "% is below the required "
                  << o.minPassRate * 100.0 << "%\n";
        return 1;
    }
    return 0;
}
