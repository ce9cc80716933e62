#include "src/cli/script_environment.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "src/base/file_system.h"
#include "src/base/log.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/cli/project.h"
#include "src/cli/python_default.h"
#include "src/cli/sync_project.h"
#include "src/install/environment.h"
#include "lock/toml_value.h"
#include "src/pkg/inline_metadata.h"
#include "targets/detect/detect.h"
#include "targets/detect/env_vars.h"
#include "targets/project_file.h"

namespace wv::cli {
namespace {

// Written last: a folder without it is half built and is built again.
constexpr const char* kReadyMarker = ".wvlock-ready";

// The project's indexes and find-links as TOML for the script's project file, paths made
// absolute; "" outside a project. `[tool.wvlock]` keys only when the block has no such table.
Result<std::string> project_index_tables(const GlobalOptions& options, FileSystem& file_system,
                                         bool block_has_wvlock_table) {
  const std::string path = path_join(options.project_dir, "pyproject.toml");
  if (!file_system.exists(path)) return std::string();
  WV_ASSIGN_OR_RETURN(targets::ProjectConfig config,
                      targets::read_project_file(file_system, path,
                                                 project_default_pythons(file_system)));
  auto located = [&](const std::string& value) {
    if (is_url(value)) return value;
    return absolute_path(targets::resolve_project_path(config, value));
  };
  std::string text;
  if (!config.find_links.empty() && !block_has_wvlock_table) {
    std::vector<std::string> folders;
    for (const std::string& folder : config.find_links) folders.push_back(lock::toml_quote(located(folder)));
    text += str_cat("[tool.wvlock]\nfind-links = [", join(folders, ", "), "]\n\n");
  }
  for (const targets::IndexConfig& index : config.indexes) {
    text += str_cat("[[tool.wvlock.index]]\nname = ", lock::toml_quote(index.name),
                    "\nurl = ", lock::toml_quote(located(index.url)), "\n",
                    index.explicit_only ? "explicit = true\n" : "",
                    index.is_default ? "default = true\n" : "", "\n");
  }
  return text;
}

// The first `python3` on PATH, for the digest: found by name, never run (a cached
// environment costs no interpreter start before the script's own).
std::string python_on_path() {
  const char* path = std::getenv("PATH");
  for (std::string_view folder : split(path ? path : "", ':')) {
    if (folder.empty()) continue;
    std::string candidate = str_cat(folder, "/python3");
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "python3";
}

// The index flags and variables, which change what the script resolves against.
std::string index_overrides_text(const GlobalOptions& options) {
  const IndexOverrides& overrides = options.index_overrides;
  std::string text = str_cat(overrides.default_index.value_or(""), "\n", join(overrides.indexes, " "),
                             overrides.no_index ? "\nno-index" : "");
  for (const char* name : {"WVLOCK_DEFAULT_INDEX", "WVLOCK_INDEX"}) {
    const char* value = std::getenv(name);
    text += str_cat("\n", name, "=", value ? value : "");
  }
  return text;
}

// This host as one target: platform, libc or macOS, and its GPUs, as detected.
Result<std::string> host_target_table(const std::string& python) {
  detect::ProcessEnvironment environment;
  WV_ASSIGN_OR_RETURN(targets::HostProfile host,
                      detect::detect_host(detect::options_from_environment(environment)));
  const bool mac = host.os.value == targets::OsKind::kMacos;
  const std::string arch = host.arch.value.value_or("x86_64");
  std::string text = str_cat("[[tool.wvlock.target]]\nname = \"host\"\nplatform = \"",
                             mac ? "macos-arm64" : str_cat("linux-", arch), "\"\npython = \"",
                             python, "\"\n");
  if (mac && host.macos_version.known()) {
    text += str_cat("macos = \"", host.macos_version.value->to_string(), "\"\n");
  } else if (host.libc_version.known()) {
    text += str_cat(host.libc.value == targets::LibcKind::kMusl ? "musl" : "glibc", " = \"",
                    host.libc_version.value->to_string(), "\"\n");
  }
  if (host.cuda_driver_version.known()) {
    std::optional<targets::MajorMinor> capability = host.highest_compute_capability();
    text += str_cat("nvidia = { cuda-driver = \"", host.cuda_driver_version.value->to_string(), "\"",
                    capability ? str_cat(", compute-capability = \"", capability->to_string(), "\"")
                               : std::string(),
                    " }\n");
  }
  if (host.rocm_version.known() && host.gfx_archs.known() && !host.gfx_archs.value->empty()) {
    std::vector<std::string> gfx;
    for (const std::string& name : *host.gfx_archs.value) gfx.push_back(lock::toml_quote(name));
    text += str_cat("amd = { rocm = \"", host.rocm_version.value->to_string(), "\", gfx = [",
                    join(gfx, ", "), "] }\n");
  }
  return text;
}

// The script's project file: its block's keys under `[project]` (PEP 723's keys are
// `[project]`'s), its tables as written, then the project's indexes and the host target.
std::string script_project_file(const ScriptMetadata& script, std::string_view indexes,
                                std::string_view target) {
  return str_cat("# The environment of ", script.path,
                 " (PEP 723 inline metadata), written by `wvlock run`.\n"
                 "[project]\nname = \"script\"\nversion = \"0\"\n",
                 script.toml, "\n", indexes, target);
}

// An error from a step that printed its own reason (sync's exit code kept).
Error reported(int code, std::string message) {
  const ErrorCode error_code = code == kExitIo      ? ErrorCode::kNetwork
                               : code == kExitUsage ? ErrorCode::kInvalidInput
                                                    : ErrorCode::kUnavailable;
  return make_error(error_code, std::move(message));
}

}  // namespace

Result<std::optional<ScriptMetadata>> read_script_metadata(const std::string& path, bool forced) {
  RealFileSystem file_system;
  Result<std::string> text = file_system.read_file(path);
  if (!text) {
    if (!forced && text.error().code == ErrorCode::kNotFound) return std::optional<ScriptMetadata>();
    return text.error();
  }
  Result<std::optional<std::string>> block = pkg::inline_metadata(*text);
  if (!block) return std::move(block).error().with_context(in_backticks(path));
  if (!*block && !forced) return std::optional<ScriptMetadata>();
  return std::optional<ScriptMetadata>(ScriptMetadata{path, block->value_or("")});
}

Result<std::string> script_environment(const GlobalOptions& options, const ScriptMetadata& script) {
  RealFileSystem file_system;
  const bool has_wvlock_table = script.toml.find("[tool.wvlock") != std::string::npos;
  WV_ASSIGN_OR_RETURN(std::string indexes,
                      project_index_tables(options, file_system, has_wvlock_table));
  const std::string python = python_on_path();
  Result<std::string> real_python = file_system.real_path(python);
  const std::string digest = sha256_hex(str_cat("environments-v1\n", script.toml, "\n---\n", indexes,
                                                "\n---\n", index_overrides_text(options),
                                                "\n---\n", real_python ? *real_python : python));
  const std::string folder =
      path_join(path_join(cache_directory(options), "environments-v1"), digest.substr(0, 32));
  const std::string venv = path_join(folder, ".venv");
  // Unchanged metadata: no resolution, no sync, no host detection.
  if (file_system.exists(path_join(folder, kReadyMarker)) &&
      file_system.exists(path_join(venv, "bin/python"))) {
    return venv;
  }
  WV_TRY(file_system.create_directories(folder));
  // The Python is python3's, asked once here: the target's, and through `.python-version` the
  // one sync creates the environment with (interpreters are not searched twice).
  WV_ASSIGN_OR_RETURN(install::InterpreterFacts facts, install::read_interpreter(folder, python));
  const std::string version = facts.version.to_string();
  WV_ASSIGN_OR_RETURN(std::string target, host_target_table(version));
  WV_TRY(file_system.write_file_atomic(path_join(folder, "pyproject.toml"),
                                       script_project_file(script, indexes, target)));
  WV_TRY(file_system.write_file_atomic(path_join(folder, ".python-version"), version + "\n"));
  GlobalOptions inner = options;
  inner.project_dir = folder;
  log_info(str_cat("preparing the environment of ", script.path, " in ", folder));
  SyncCall call;
  call.plan_to_stderr = true;
  Arguments none({});
  if (int code = sync_project(inner, none, call); code != kExitOk) {
    return reported(code, str_cat("could not prepare the environment of ",
                                  in_backticks(script.path), " (see above)"));
  }
  WV_TRY(file_system.write_file_atomic(path_join(folder, kReadyMarker), digest + "\n"));
  return call.venv;
}

}  // namespace wv::cli
