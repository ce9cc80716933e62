// Byte-compiling staged modules with the environment's interpreter.
#include "src/install/bytecode.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "src/base/process.h"

namespace wv::install {
namespace {

// Reads `INDEX<TAB>STAGED<TAB>INSTALLED` lines from the file in argv[1] and prints
// `INDEX<TAB>PYC` for each module it compiled. Member names cannot hold tabs or newlines
// (check_member_name refuses control characters).
constexpr const char* kCompileScript = R"(
import importlib.util, py_compile, sys
mode = py_compile.PycInvalidationMode.TIMESTAMP
with open(sys.argv[1], encoding="utf-8") as jobs:
    for line in jobs:
        index, staged, installed = line.rstrip("\n").split("\t")
        cfile = importlib.util.cache_from_source(staged)
        try:
            py_compile.compile(staged, cfile=cfile, dfile=installed, doraise=True,
                               invalidation_mode=mode)
        except (py_compile.PyCompileError, SyntaxError, ValueError, UnicodeError):
            continue
        print(index + "\t" + cfile)
)";

}  // namespace

Result<std::vector<CompiledFile>> compile_bytecode(const std::string& python,
                                                   const std::vector<CompileJob>& jobs,
                                                   const std::string& scratch, unsigned workers) {
  std::vector<CompiledFile> compiled;
  if (jobs.empty()) return compiled;
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, (jobs.size() + 63) / 64));
  RealFileSystem file_system;
  WV_TRY(file_system.create_directories(scratch));
  // Round robin, so each process gets a share of big and small modules alike.
  std::vector<std::string> lists(workers);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    lists[i % workers] += str_cat(i, "\t", jobs[i].staged, "\t", jobs[i].installed, "\n");
  }
  std::mutex mutex;
  std::optional<Error> failure;
  auto work = [&](unsigned w) {
    const std::string list = path_join(scratch, str_cat("compile-", w, ".txt"));
    Result<void> written = file_system.write_file_atomic(list, lists[w], false);
    Result<ProcessOutput> output =
        written ? run_process({python, "-I", "-c", kCompileScript, list},
                                      std::chrono::minutes(30), {"PYTHONHOME", "PYTHONPATH"})
                : Result<ProcessOutput>(written.error());
    std::lock_guard<std::mutex> lock(mutex);
    if (!output || output->exit_code != 0) {
      if (!failure) {
        failure = output ? make_error(ErrorCode::kIo,
                                      str_cat("byte-compiling with ", in_backticks(python),
                                              " failed (exit ", output->exit_code, ")"))
                         : std::move(output).error();
      }
      return;
    }
    for (std::string_view line : split(output->output, '\n')) {
      std::size_t tab = line.find('\t');
      std::optional<std::uint64_t> index =
          tab == std::string_view::npos ? std::nullopt : parse_uint64(line.substr(0, tab));
      if (!index || *index >= jobs.size()) continue;
      compiled.push_back(CompiledFile{static_cast<std::size_t>(*index), std::string(line.substr(tab + 1))});
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& thread : threads) thread.join();
  if (failure) return std::move(*failure);
  std::sort(compiled.begin(), compiled.end(),
            [](const CompiledFile& a, const CompiledFile& b) { return a.job < b.job; });
  return compiled;
}

}  // namespace wv::install
