#include "src/base/contained_path.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "src/base/file_system.h"
#include "src/base/str.h"

namespace wv {
namespace {

// realpath(3) as a value: kNotFound when a piece of the path (or a link's target) is missing.
Result<std::string> real_path_of(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) != nullptr) return std::string(buffer);
  const int error = errno;
  return make_error(error == ENOENT || error == ENOTDIR ? ErrorCode::kNotFound : ErrorCode::kIo,
                    str_cat("cannot resolve ", in_backticks(path), ": ", std::strerror(error)));
}

// `path` is `root` or below it (both real paths, so a plain prefix test on whole pieces).
bool is_within(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

}  // namespace

Result<std::string> resolve_inside(const std::string& root, std::string_view relative,
                                   std::string_view what) {
  WV_ASSIGN_OR_RETURN(std::string real_root, real_path_of(root));
  if (relative.empty()) return real_root;
  Result<std::string> real = real_path_of(path_join(real_root, relative));
  if (!real) {
    if (real.error().code != ErrorCode::kNotFound) return std::move(real).error();
    return make_error(ErrorCode::kNotFound,
                      str_cat(in_backticks(relative), " does not exist in ", what));
  }
  if (is_within(*real, real_root)) return real;
  return make_error(ErrorCode::kInvalidInput,
                    str_cat(in_backticks(relative), " in ", what, " leads to ", in_backticks(*real),
                            ", outside it (through a symbolic link): wvlock reads and builds only "
                            "what is inside a source tree"));
}

}  // namespace wv
