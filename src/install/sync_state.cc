// The no-op state record: identities by lstat, written and compared as text.
#include "src/install/sync_state.h"

#include <sys/stat.h>

#include <charconv>
#include <chrono>
#include <set>

#include "src/base/file_system.h"
#include "src/base/platform.h"
#include "src/base/str.h"
#include "src/install/environment.h"

namespace wv::install {
namespace {

constexpr std::string_view kHeader = "wvlock-state 1\n";

struct Identity {
  char text[128];    ///< "device:inode:mode:size:mtime:ctime", or "-" when absent
  std::size_t size = 0;
  std::int64_t newest_ns = 0;
  bool whole_seconds = true;  ///< both times without a sub-second part
  std::string_view view() const { return {text, size}; }
};

// A path's identity, the link itself when it is one: whatever replaces, writes, truncates,
// renames over or removes it changes the change time at least, which no user call sets back.
// Formatted without allocating: a no-op sync compares dozens of them.
Identity identity_of(const char* path) {
  Identity identity;
  struct ::stat info {};
  if (::lstat(path, &info) != 0) {
    identity.text[0] = '-';
    identity.size = 1;
    return identity;
  }
  const std::int64_t modified = platform::modified_ns(info);
  const std::int64_t changed = platform::changed_ns(info);
  char* out = identity.text;
  char* const end = identity.text + sizeof identity.text;
  auto put = [&](auto value, bool last) {
    out = std::to_chars(out, end, value).ptr;
    if (!last) *out++ = ':';
  };
  put(static_cast<std::uint64_t>(info.st_dev), false);
  put(static_cast<std::uint64_t>(info.st_ino), false);
  put(static_cast<std::uint32_t>(info.st_mode), false);
  put(static_cast<std::int64_t>(info.st_size), false);
  put(modified, false);
  put(changed, true);
  identity.size = static_cast<std::size_t>(out - identity.text);
  identity.newest_ns = std::max(modified, changed);
  identity.whole_seconds = modified % 1'000'000'000 == 0 && changed % 1'000'000'000 == 0;
  return identity;
}

// The environment's own paths a sync's outcome depends on: the interpreter (the venv's link
// and what it ends at), the facts read from it, the journal of an interrupted sync (absent),
// the install folders (a distribution added or removed by any tool changes them) and each
// distribution's metadata folder and METADATA.
std::vector<std::string> environment_paths(const InstallScheme& scheme) {
  const std::string& root = scheme.root;
  std::vector<std::string> paths = {path_join(root, "pyvenv.cfg"), scheme.python,
                                    path_join(root, kFactsCacheName),
                                    path_join(root, kJournalName)};
  RealFileSystem file_system;
  if (Result<std::string> real = file_system.real_path(scheme.python); real && *real != scheme.python) {
    paths.push_back(*real);
  }
  for (const std::string& folder : std::set<std::string>{scheme.purelib, scheme.platlib}) {
    const std::string path = path_join(root, folder);
    paths.push_back(path);
    Result<std::vector<DirectoryEntry>> entries = file_system.list_directory(path);
    if (!entries) continue;
    for (const DirectoryEntry& entry : *entries) {
      if (!std::string_view(entry.name).ends_with(".dist-info")) continue;
      paths.push_back(path_join(path, entry.name));
      paths.push_back(path_join(path_join(path, entry.name), "METADATA"));
    }
  }
  return paths;
}

}  // namespace

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::optional<std::string> matching_state(const std::string& venv, std::string_view fingerprint) {
  RealFileSystem file_system;
  Result<std::string> text = file_system.read_file(path_join(venv, kStateName));
  if (!text || !text->starts_with(kHeader)) return std::nullopt;
  std::string_view rest = std::string_view(*text).substr(kHeader.size());
  auto next_line = [&rest]() -> std::optional<std::string_view> {
    const std::size_t end = rest.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    return line;
  };
  std::optional<std::string_view> line = next_line();
  if (!line || *line != str_cat("fingerprint ", fingerprint)) return std::nullopt;
  // Another sync changing the environment now: the full sync says so.
  Result<SyncLock> lock = SyncLock::acquire(venv);
  if (!lock) return std::nullopt;
  std::string path;  // one buffer for every watched path
  while ((line = next_line())) {
    if (*line == "output") return std::string(rest);
    if (!line->starts_with("watch ")) return std::nullopt;
    std::string_view watch = line->substr(6);
    const std::size_t space = watch.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    path.assign(watch.substr(space + 1));
    if (identity_of(path.c_str()).view() != watch.substr(0, space)) return std::nullopt;
  }
  return std::nullopt;
}

bool record_state(const InstallScheme& scheme, const StateRecord& record, std::int64_t since_ns) {
  std::vector<std::string> paths = record.watched;
  for (std::string& path : environment_paths(scheme)) paths.push_back(std::move(path));
  std::string text = str_cat(kHeader, "fingerprint ", record.fingerprint, "\n");
  std::int64_t newest = 0;
  bool whole_seconds = true;
  for (const std::string& path : paths) {
    if (path.find('\n') != std::string::npos) {
      forget_state(scheme.root);
      return false;
    }
    const Identity identity = identity_of(path.c_str());
    newest = std::max(newest, identity.newest_ns);
    whole_seconds = whole_seconds && identity.whole_seconds;
    text += str_cat("watch ", identity.view(), " ", path, "\n");
  }
  // File systems stamp times from a clock that lags by up to a tick (ms); those that keep
  // whole seconds (or coarser) get two seconds.
  const std::int64_t margin = whole_seconds ? 2'000'000'000 : 50'000'000;
  if (newest >= since_ns - margin) {
    forget_state(scheme.root);
    return false;
  }
  text += "output\n" + record.output;
  RealFileSystem file_system;
  return file_system.write_file_atomic(path_join(scheme.root, kStateName), text, false).has_value();
}

void forget_state(const std::string& venv) {
  RealFileSystem file_system;
  (void)file_system.remove(path_join(venv, kStateName));
}

}  // namespace wv::install
