#include "src/cli/environment_choice.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "src/base/file_system.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/cli/options.h"

namespace wv::cli {
namespace {

// Whether two spellings name one folder (`.venv`, `./.venv`, an absolute path, a symlink).
bool same_folder(const std::string& a, const std::string& b) {
  std::error_code error_a, error_b;
  std::filesystem::path canonical_a = std::filesystem::weakly_canonical(a, error_a);
  std::filesystem::path canonical_b = std::filesystem::weakly_canonical(b, error_b);
  if (error_a || error_b) return a == b;
  return canonical_a == canonical_b;
}

}  // namespace

Result<EnvironmentFlags> extract_environment_flags(Arguments& arguments) {
  EnvironmentFlags flags;
  WV_ASSIGN_OR_RETURN(flags.venv, arguments.extract_value("--venv"));
  flags.active = arguments.extract_flag("--active");
  flags.no_active = arguments.extract_flag("--no-active");
  if (flags.active && flags.no_active) {
    return make_error(ErrorCode::kInvalidInput, "`--active` and `--no-active` conflict");
  }
  if (flags.active && flags.venv) {
    return make_error(ErrorCode::kInvalidInput,
                      "`--active` and `--venv` conflict: each names the environment");
  }
  return flags;
}

EnvironmentChoice choose_environment(const GlobalOptions& options, const EnvironmentFlags& flags,
                                     const std::string& virtual_env) {
  EnvironmentChoice choice;
  choice.path = flags.venv ? *flags.venv : path_join(options.project_dir, ".venv");
  if (virtual_env.empty()) return choice;
  if (flags.active) {
    choice.path = virtual_env;
    return choice;
  }
  if (flags.no_active || same_folder(virtual_env, choice.path)) return choice;
  // uv's wording, so a uv user recognises it.
  std::string_view shown = choice.path;
  if (shown.substr(0, 2) == "./") shown.remove_prefix(2);
  choice.warning = str_cat(in_backticks(str_cat("VIRTUAL_ENV=", virtual_env)),
                           " does not match the project environment path ", in_backticks(shown),
                           " and will be ignored; use `--active` to target the active "
                           "environment instead");
  return choice;
}

bool uses_active_environment(const EnvironmentFlags& flags) {
  const char* active = std::getenv("VIRTUAL_ENV");
  return flags.active && active != nullptr && *active != '\0';
}

std::string environment_path(const GlobalOptions& options, const EnvironmentFlags& flags) {
  const char* active = std::getenv("VIRTUAL_ENV");
  EnvironmentChoice choice = choose_environment(options, flags, active ? active : "");
  if (!choice.warning.empty()) log_warning(choice.warning);
  return choice.path;
}

}  // namespace wv::cli
