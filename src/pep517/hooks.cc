// call_hook: the request and the result travel as JSON files (the one .cc of this layer that
// includes nlohmann), the backend's output only feeds messages.
#include "src/pep517/hooks.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "src/base/file_system.h"
#include "src/base/limits.h"
#include "src/base/str.h"
#include "src/pep517/hook_script.h"
#include "src/base/process.h"

namespace wv::build {

std::string_view hook_name(Hook hook) {
  switch (hook) {
    case Hook::kGetRequiresForBuildWheel: return "get_requires_for_build_wheel";
    case Hook::kGetRequiresForBuildEditable: return "get_requires_for_build_editable";
    case Hook::kPrepareMetadataForBuildWheel: return "prepare_metadata_for_build_wheel";
    case Hook::kPrepareMetadataForBuildEditable: return "prepare_metadata_for_build_editable";
    case Hook::kBuildWheel: return "build_wheel";
    case Hook::kBuildEditable: return "build_editable";
    case Hook::kBuildSdist: return "build_sdist";
  }
  return "unknown_hook";
}

namespace {

using Json = nlohmann::json;

// A backend's log is read from its end; this much of it is plenty for the last lines.
constexpr std::size_t kOutputTailBytes = 256 * 1024;
// A single line (a compiler's command line) longer than this is cut in messages.
constexpr std::size_t kLogLineChars = 500;

struct RunnerFiles {
  std::string script;
  std::string request;
  std::string result;
};

bool returns_requirements(Hook hook) {
  return hook == Hook::kGetRequiresForBuildWheel || hook == Hook::kGetRequiresForBuildEditable;
}

bool returns_folder(Hook hook) {
  return hook == Hook::kPrepareMetadataForBuildWheel ||
         hook == Hook::kPrepareMetadataForBuildEditable;
}

/// "`build_wheel` of demo 1.0 (sdist demo-1.0.tar.gz)": the subject of every message.
std::string subject(const HookCall& call) {
  return str_cat(in_backticks(hook_name(call.hook)), " of ", call.what);
}

/// The last `count` lines of `output`, each cut to kLogLineChars, its control characters made
/// visible: a backend's colours and terminal titles never reach ours raw.
std::vector<std::string> last_lines(std::string_view output, std::size_t count) {
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) {
    output.remove_suffix(1);
  }
  std::vector<std::string_view> lines = split(output, '\n');
  if (output.empty()) lines.clear();
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<long>(count));
  std::vector<std::string> result;
  for (std::string_view line : lines) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    result.push_back(line.size() > kLogLineChars
                         ? str_cat(printable_text(line.substr(0, kLogLineChars)), " [...]")
                         : printable_text(line));
  }
  return result;
}

/// The error's notes: the backend's last lines, indented under a heading.
Error with_log(Error error, const std::vector<std::string>& lines) {
  if (lines.empty()) return std::move(error).with_note("the backend printed nothing");
  error.notes.push_back(str_cat("the backend's last ", lines.size(), " lines of output:"));
  for (const std::string& line : lines) error.notes.push_back(str_cat("    ", line));
  return error;
}

/// Nothing of the caller's environment: a PATH that finds the build environment first, a HOME
/// and TMPDIR of the call's own (so no user configuration of pip or anything else is read).
std::vector<std::string> clean_environment(const HookCall& call) {
  std::vector<std::string> environment = {
      str_cat("PATH=", path_parent(call.python), ":/usr/bin:/bin"),
      str_cat("HOME=", path_join(call.work_dir, "home")),
      str_cat("TMPDIR=", path_join(call.work_dir, "tmp")),
      "LANG=C.UTF-8",
      "PYTHONNOUSERSITE=1",
      "PYTHONDONTWRITEBYTECODE=1",
  };
  environment.insert(environment.end(), call.extra_environment.begin(),
                     call.extra_environment.end());
  return environment;
}

Result<std::string> request_json(const HookCall& call) {
  try {
    Json request = {
        {"backend", call.backend},
        {"backend_path", call.backend_path},
        {"source_dir", call.source_dir},
        {"hook", hook_name(call.hook)},
        {"output_dir", call.output_dir},
        {"metadata_directory", call.metadata_directory},
    };
    return request.dump();
  } catch (const std::exception& exception) {  // a path that is not UTF-8
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot run ", subject(call), ": ", exception.what(),
                              "; use a build folder whose path is UTF-8"));
  }
}

/// Writes the runner script and its request into work_dir, with HOME and TMPDIR beside them.
Result<RunnerFiles> write_runner_files(const HookCall& call, FileSystem& files) {
  RunnerFiles runner{path_join(call.work_dir, "wvlock_hook_runner.py"),
                     path_join(call.work_dir, "request.json"),
                     path_join(call.work_dir, "result.json")};
  WV_ASSIGN_OR_RETURN(const std::string request, request_json(call));
  WV_TRY(files.create_directories(path_join(call.work_dir, "home")));
  WV_TRY(files.create_directories(path_join(call.work_dir, "tmp")));
  WV_TRY(files.write_file_atomic(runner.script, kHookRunnerScript, false));
  WV_TRY(files.write_file_atomic(runner.request, request, false));
  WV_TRY(files.remove(runner.result));  // a result is only ever this run's
  return runner;
}

Error timed_out(const HookCall& call, const std::vector<std::string>& log) {
  Error error = make_error(
      ErrorCode::kLimit,
      str_cat("cannot build ", call.what, ": ", in_backticks(hook_name(call.hook)),
              " of its build backend ", in_backticks(call.backend), " ran past the ",
              limit_spec(Limit::kBuildSeconds).name, " limit of ",
              limit_value(Limit::kBuildSeconds), " seconds and was stopped (timed out)"));
  error.notes.push_back(limit_raise_hint(Limit::kBuildSeconds));
  return with_log(std::move(error), log);
}

Error unavailable(const HookCall& call, const std::vector<std::string>& log) {
  return with_log(make_error(ErrorCode::kUnavailable,
                             str_cat("cannot build ", call.what, ": its build backend ",
                                     in_backticks(call.backend),
                                     " cannot be imported; the project's [build-system] "
                                     "`requires` must provide it")),
                  log);
}

Error failed(const HookCall& call, const ProcessOutput& output,
             const std::vector<std::string>& log) {
  const std::string how = output.exit_code < 0 ? std::string("was killed")
                                               : str_cat("exited with status ", output.exit_code);
  return with_log(make_error(ErrorCode::kUnavailable,
                             str_cat("cannot build ", call.what, ": the build backend ",
                                     in_backticks(call.backend), " failed in ",
                                     in_backticks(hook_name(call.hook)), " (", how,
                                     "); its output below says why: fix the build environment "
                                     "or the source, or use a version that has a wheel")),
                  log);
}

Error bad_result(const HookCall& call, std::string_view why) {
  return make_error(ErrorCode::kUnavailable,
                    str_cat("cannot build ", call.what, ": the build backend ",
                            in_backticks(call.backend), " answered ",
                            in_backticks(hook_name(call.hook)), " with ", why,
                            "; the backend breaks PEP 517 (report it to the project)"));
}

/// The basename a hook returned: a plain name that now exists in output_dir as the kind of
/// entry the hook makes (a .dist-info folder or a file).
Result<std::string> check_basename(const HookCall& call, const Json& value,
                                   const FileSystem& files) {
  if (!value.is_string()) return bad_result(call, "something other than a file name");
  std::string name = value.get<std::string>();
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return bad_result(call, str_cat(in_backticks(name), ", which is not a plain file name"));
  }
  const FileType expected = returns_folder(call.hook) ? FileType::kDirectory : FileType::kRegular;
  Result<FileInfo> info = files.stat(path_join(call.output_dir, name));
  if (!info || info->type != expected) {
    return bad_result(call, str_cat(in_backticks(name), ", which is not a ",
                                    expected == FileType::kDirectory ? "folder" : "file", " in ",
                                    in_backticks(call.output_dir)));
  }
  return name;
}

Result<std::vector<std::string>> check_requirements(const HookCall& call, const Json& value) {
  if (!value.is_array()) return bad_result(call, "something other than a list");
  std::vector<std::string> requirements;
  for (const Json& item : value) {
    if (!item.is_string()) return bad_result(call, "a list that holds something not a string");
    requirements.push_back(item.get<std::string>());
  }
  return requirements;
}

/// Reads the runner's result file (bounded) into a HookResult.
Result<HookResult> read_result(const HookCall& call, const RunnerFiles& runner,
                               const FileSystem& files) {
  Result<std::string> text = files.read_file(runner.result);
  if (!text) {
    return bad_result(call, str_cat("no result file (", std::move(text).error().message, ")"));
  }
  try {
    const Json result = Json::parse(*text);
    if (!result.is_object()) return bad_result(call, "a result file that is not an object");
    HookResult answer;
    if (auto invalid = result.find("invalid_backend"); invalid != result.end()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("cannot build ", call.what, ": ", invalid->get<std::string>(),
                                "; PEP 517 requires an in-tree backend to be imported from its "
                                "backend-path, inside the source tree: fix [build-system] in "
                                "pyproject.toml"));
    }
    if (auto missing = result.find("hook_missing"); missing != result.end()) {
      if (call.hook == Hook::kBuildWheel) {
        return bad_result(call, "no such hook, which PEP 517 requires of every backend");
      }
      answer.hook_missing = true;
      return answer;
    }
    auto value = result.find("return");
    if (value == result.end()) return bad_result(call, "a result file without a return value");
    if (returns_requirements(call.hook)) {
      WV_ASSIGN_OR_RETURN(answer.requirements, check_requirements(call, *value));
    } else {
      WV_ASSIGN_OR_RETURN(answer.basename, check_basename(call, *value, files));
    }
    return answer;
  } catch (const std::exception& exception) {
    return bad_result(call, str_cat("a garbled result file (", exception.what(), ")"));
  }
}

}  // namespace

Result<HookResult> call_hook(const HookCall& call) {
  RealFileSystem files;
  WV_ASSIGN_OR_RETURN(const RunnerFiles runner, write_runner_files(call, files));
  ProcessOptions options;
  options.argv = {call.python, "-I", runner.script, runner.request, runner.result};
  options.timeout = std::chrono::seconds(limit_value(Limit::kBuildSeconds));
  options.environment = clean_environment(call);
  options.working_directory = call.source_dir;
  options.merge_stderr = true;
  options.max_output = kOutputTailBytes;
  options.keep_tail = true;
  options.own_process_group = true;  // compilers the backend starts die with it
  Result<ProcessOutput> output = run_process(options);
  if (!output) {
    return std::move(output).error().with_context(str_cat("cannot run ", subject(call)));
  }
  const std::vector<std::string> log = last_lines(output->output, kHookLogLines);
  if (output->timed_out) return timed_out(call, log);
  if (output->exit_code == kBackendUnavailableExit) return unavailable(call, log);
  if (output->exit_code != 0) return failed(call, *output, log);
  Result<HookResult> result = read_result(call, runner, files);
  if (!result) return with_log(std::move(result).error(), log);
  result->log_tail = join(log, "\n");
  return result;
}

}  // namespace wv::build
