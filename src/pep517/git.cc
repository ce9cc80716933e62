// Git sources: a bare database per URL, resolution of tag/branch/rev/HEAD to a commit, and
// immutable checkouts (layout and limits in git.h).
//
// Concurrency: one flock(2) per database (db/<key>.lock) serializes everything that writes
// under that key (init, fetch, pins, making a checkout), across processes and threads alike
// (each call opens the file anew, and flock locks belong to the open file). A checkout is made
// under a temporary name and renamed into place, so the lock-free fast path (the folder
// exists) never sees half a tree, and a process killed halfway leaves only a temporary folder
// that the next one removes.
#include "src/pep517/git.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "src/base/credentials.h"
#include "src/base/file_system.h"
#include "src/base/hash.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/base/process.h"

namespace wv::build {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kNetworkTimeout = std::chrono::minutes(10);
constexpr milliseconds kLocalTimeout = std::chrono::seconds(60);
// A clone and a checkout write a whole tree: a large repository outlasts a local query.
constexpr milliseconds kTreeTimeout = std::chrono::minutes(10);
constexpr std::size_t kTailLines = 8;
constexpr std::string_view kTempPrefix = ".tmp-";
// The remote's HEAD, outside refs/remotes/origin/ so that a fetch without it does not prune it.
constexpr std::string_view kRemoteHead = "refs/wvlock/remote-head";

// Passed through from our environment when set: the ssh agent and command (ssh URLs), and the
// proxy and CA settings the network layer honors too (a machine behind a proxy fetches nothing
// without them). Nothing else of the user's environment reaches git.
constexpr const char* kPassedThrough[] = {
    "SSH_AUTH_SOCK", "GIT_SSH_COMMAND", "http_proxy",    "https_proxy",   "HTTPS_PROXY",
    "all_proxy",     "ALL_PROXY",       "no_proxy",      "NO_PROXY",      "SSL_CERT_FILE",
    "SSL_CERT_DIR",  "GIT_SSL_CAINFO"};

bool is_hex(std::string_view text) {
  for (char c : text) {
    if (!is_ascii_digit(c) && !(c >= 'a' && c <= 'f')) return false;
  }
  return !text.empty();
}

bool is_full_commit(std::string_view text) { return text.size() == 40 && is_hex(text); }

// The last piece of the URL's path without `.git`, in characters safe in a folder name.
std::string readable_tail(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  std::string_view tail = url.substr(url.find_last_of("/:") + 1);  // npos + 1 = 0
  if (tail.ends_with(".git")) tail.remove_suffix(4);
  std::string out;
  for (char c : tail.substr(0, 40)) {
    out.push_back(is_ascii_alnum(c) || c == '.' || c == '_' || c == '-' ? c : '-');
  }
  if (out.empty() || out.front() == '.') out.insert(0, "repo-");  // never `.`, `..` or hidden
  return out;
}

// The last lines of git's output, credentials masked and control characters made visible: what
// a failed call shows.
std::string output_tail(std::string_view output) {
  std::vector<std::string_view> lines;
  for (std::string_view line : split(trim(output), '\n')) {
    if (!trim(line).empty()) lines.push_back(trim(line));
  }
  if (lines.size() > kTailLines) lines.erase(lines.begin(), lines.end() - kTailLines);
  return printable_text(redact_credentials(join(lines, "\n")));
}

// A name git gets as an argument: one starting with `-` would be read as an option.
Result<void> check_argument(std::string_view what, std::string_view value,
                            std::string_view shown_url) {
  bool bad = !value.empty() && value.front() == '-';
  for (char c : value) bad |= static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  if (!bad) return {};
  return make_error(ErrorCode::kInvalidInput,
                    str_cat("the git source ", in_backticks(shown_url), " has an invalid ", what,
                            " ", in_backticks(redact_credentials(value)),
                            ": it may not start with `-` or hold control characters"));
}

// git is looked up on our PATH (it may live in /usr/local/bin); it then runs with a clean one.
Result<std::string> find_git() {
  const char* path = std::getenv("PATH");
  for (std::string_view folder : split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (folder.empty()) continue;
    std::string candidate = path_join(folder, "git");
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return make_error(ErrorCode::kNotFound,
                    "git is not installed (no `git` on PATH): install git (Debian: `apt-get "
                    "install git`) to use git sources");
}

// HOME is a folder of the cache, so no ~/.gitconfig (credential helpers, url rewrites,
// autocrlf) changes what is fetched or checked out. ssh still finds the user's keys and
// known_hosts: it takes them from the password database, not from HOME.
std::vector<std::string> clean_environment(const std::string& home) {
  std::vector<std::string> environment = {
      "PATH=/usr/bin:/bin",    "HOME=" + home,          "GIT_CONFIG_NOSYSTEM=1",
      "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/true", "SSH_ASKPASS=/bin/true",
      "LANG=C",                "LC_ALL=C"};
  for (const char* name : kPassedThrough) {
    if (const char* value = std::getenv(name)) environment.push_back(str_cat(name, "=", value));
  }
  // A passphrase or host-key question fails at once instead of waiting for a terminal.
  if (std::getenv("GIT_SSH_COMMAND") == nullptr) {
    environment.push_back("GIT_SSH_COMMAND=ssh -o BatchMode=yes");
  }
  return environment;
}

// An exclusive flock(2) on a file, released when the object dies (closing the descriptor).
class FileLock {
 public:
  static Result<FileLock> acquire(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return make_error(ErrorCode::kIo, str_cat("cannot open the lock file ", in_backticks(path),
                                                ": ", std::strerror(errno)));
    }
    int locked = 0;
    do {
      locked = ::flock(fd, LOCK_EX);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) {
      const int saved = errno;
      ::close(fd);
      return make_error(ErrorCode::kIo,
                        str_cat("cannot lock ", in_backticks(path), ": ", std::strerror(saved)));
    }
    return FileLock(fd);
  }
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

// One repository's place in the cache and how git runs on it.
struct Repository {
  std::string url;        // as given: git needs the credentials in it
  std::string shown;      // for messages: credentials masked
  std::string database;   // <root>/db/<key>
  std::string checkouts;  // <root>/checkouts/<key>
  std::string home;       // <root>/home
  std::string program;    // git's path
  std::vector<std::string> environment;
};

// Runs git in the clean environment; an error only when it cannot start. `log` merges stderr
// and keeps the output's end (what a failure shows); without it stdout alone is kept (parsed).
Result<ProcessOutput> run_git(const Repository& repository,
                                      const std::vector<std::string>& args, milliseconds timeout,
                                      bool log) {
  ProcessOptions options;
  // protocol.file.allow: file:// URLs and paths are sources like any other. gc and
  // maintenance never run on their own: they would drop commits no ref reaches any more.
  options.argv = {repository.program,  "-c", "protocol.file.allow=always", "-c", "gc.auto=0",
                  "-c", "maintenance.auto=false", "-c", "advice.detachedHead=false"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.timeout = timeout;
  options.environment = repository.environment;
  options.merge_stderr = log;
  options.keep_tail = log;
  options.max_output = log ? 64 * 1024 : 1 << 20;
  options.own_process_group = true;  // the deadline also kills ssh and git-remote-https
  return run_process(options);
}

// Runs git and requires success; the error names what was being done and shows git's end.
Result<void> run_git_checked(const Repository& repository, const std::vector<std::string>& args,
                             milliseconds timeout, std::string_view doing,
                             std::string_view next_step) {
  WV_ASSIGN_OR_RETURN(ProcessOutput output, run_git(repository, args, timeout, true));
  if (output.exit_code == 0) return {};
  std::string why = output.timed_out
                        ? str_cat("git did not finish within ", timeout.count() / 1000, " s")
                        : str_cat("git failed (exit ", output.exit_code, ")");
  const std::string tail = output_tail(output.output);
  Error error = make_error(output.timed_out ? ErrorCode::kNetwork : ErrorCode::kIo,
                           str_cat(doing, ": ", why, tail.empty() ? "" : ":\n", tail));
  return std::move(error).with_note(std::string(next_step));
}

// The commit `expression` names in the database (`refs/tags/v1^{commit}`), or "" when none.
Result<std::string> commit_of(const Repository& repository, const std::string& expression) {
  WV_ASSIGN_OR_RETURN(ProcessOutput output,
                      run_git(repository,
                              {"--git-dir=" + repository.database, "rev-parse", "--verify",
                               "--quiet", expression + "^{commit}"},
                              kLocalTimeout, false));
  const std::string commit(trim(output.output));
  return output.exit_code == 0 && is_full_commit(commit) ? commit : std::string();
}

// Up to five names of the refs under `prefix` (`refs/tags/`), newest first, for messages.
std::string some_refs(const Repository& repository, const std::string& prefix) {
  auto output = run_git(repository,
                        {"--git-dir=" + repository.database, "for-each-ref",
                         "--sort=-creatordate", "--count=6", "--format=%(refname)", prefix},
                        kLocalTimeout, false);
  if (!output || output->exit_code != 0) return "";
  std::vector<std::string> names;
  for (std::string_view line : split(trim(output->output), '\n')) {
    std::string_view name = trim(line);
    if (name.size() <= prefix.size()) continue;
    if (names.size() < 5) names.push_back(in_backticks(name.substr(prefix.size())));
  }
  return join(names, ", ");
}

bool has_database(const Repository& repository) {
  return RealFileSystem().exists(path_join(repository.database, "HEAD"));
}

Result<void> init_database(const Repository& repository) {
  if (has_database(repository)) return {};
  return run_git_checked(repository,
                         {"init", "--quiet", "--bare", "--template=", repository.database},
                         kLocalTimeout,
                         str_cat("cannot create the git cache database ",
                                 in_backticks(repository.database)),
                         "check that the cache folder is writable (--cache-dir)");
}

// Fetches the branches and tags, plus `extra` refspecs. Moved and deleted branches and
// tags follow the remote (--force --prune); what they pointed at stays in the database. No
// FETCH_HEAD: it would record the URL.
Result<void> fetch(const Repository& repository, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--git-dir=" + repository.database,
                                   "fetch",
                                   "--quiet",
                                   "--force",
                                   "--prune",
                                   "--no-write-fetch-head",
                                   "--",
                                   repository.url,
                                   "+refs/heads/*:refs/remotes/origin/*",
                                   "+refs/tags/*:refs/tags/*"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_git_checked(repository, args, kNetworkTimeout,
                         str_cat("cannot fetch ", in_backticks(repository.shown)),
                         "check the URL and your access to it, or run with --offline to use "
                         "what the cache holds");
}

// Fetches one commit by its id, for one that no branch or tag reaches any more. Not every
// server serves those, so a failure is only "not found".
bool fetch_commit(const Repository& repository, const std::string& commit) {
  auto output = run_git(repository,
                        {"--git-dir=" + repository.database, "fetch", "--quiet",
                         "--no-write-fetch-head", "--", repository.url,
                         str_cat(commit, ":refs/wvlock/", commit)},
                        kNetworkTimeout, true);
  return output && output->exit_code == 0;
}

// Keeps `commit` reachable from a ref of wvlock's own, which no fetch prunes, so it survives
// force-pushes and moved tags.
Result<void> pin(const Repository& repository, const std::string& commit) {
  return run_git_checked(repository,
                         {"--git-dir=" + repository.database, "update-ref",
                          "refs/wvlock/" + commit, commit},
                         kLocalTimeout,
                         str_cat("cannot record commit ", commit, " in the git cache of ",
                                 in_backticks(repository.shown)),
                         "check that the cache folder is writable (--cache-dir)");
}

// What a reference may name in the database, in the order tried.
std::vector<std::string> candidates(const GitReference& reference) {
  if (!reference.tag.empty()) return {"refs/tags/" + reference.tag};
  if (!reference.branch.empty()) return {"refs/remotes/origin/" + reference.branch};
  if (reference.rev.empty()) return {std::string(kRemoteHead)};
  const std::string& rev = reference.rev;
  // A commit id first when it looks like one, else the name itself last (`refs/pull/1/head`).
  if (is_hex(to_lower(rev))) {
    return {to_lower(rev), "refs/tags/" + rev, "refs/remotes/origin/" + rev};
  }
  return {"refs/tags/" + rev, "refs/remotes/origin/" + rev, rev};
}

// The error for a reference the database does not hold: which one, some that exist, and what
// to do (fetch, or fix the project file).
Error not_found(const Repository& repository, const GitReference& reference, bool offline) {
  std::string what;
  std::string existing;
  if (!reference.tag.empty()) {
    what = str_cat("tag ", in_backticks(reference.tag));
    existing = some_refs(repository, "refs/tags/");
  } else if (!reference.branch.empty()) {
    what = str_cat("branch ", in_backticks(reference.branch));
    existing = some_refs(repository, "refs/remotes/origin/");
  } else if (!reference.rev.empty()) {
    what = str_cat("commit or ref ", in_backticks(reference.rev));
  } else {
    what = "default branch (HEAD)";
  }
  std::string message =
      str_cat(offline ? "the git cache's copy of " : "", in_backticks(repository.shown),
              " has no ", what);
  if (!existing.empty()) message += str_cat(" (it has ", existing, ")");
  Error error = make_error(ErrorCode::kNotFound, std::move(message));
  return std::move(error).with_note(
      offline ? "run without --offline to fetch it"
              : "fix the git source in pyproject.toml (tag, branch or rev)");
}

Result<std::string> find_commit(const Repository& repository, const GitReference& reference,
                                bool offline) {
  for (const std::string& candidate : candidates(reference)) {
    WV_ASSIGN_OR_RETURN(std::string commit, commit_of(repository, candidate));
    if (!commit.empty()) return commit;
  }
  return not_found(repository, reference, offline);
}

// Refspecs beyond branches and tags: the remote's HEAD when no ref is named (only then, since
// a server's HEAD may name no branch at all), a full ref name as a rev (`refs/pull/1/head`,
// `refs/heads/main`) under its own name.
std::vector<std::string> extra_refspecs(const GitReference& reference) {
  const std::string& rev = reference.rev;
  if (reference.tag.empty() && reference.branch.empty() && rev.empty()) {
    return {str_cat("+HEAD:", kRemoteHead)};
  }
  if (!rev.starts_with("refs/") || rev.starts_with("refs/tags/")) return {};
  return {str_cat("+", rev, ":", rev)};
}

Result<void> check_reference(const GitReference& reference, std::string_view shown) {
  if (reference.url.empty()) {
    return make_error(ErrorCode::kInvalidInput, "a git source has no URL (`git = ...`)");
  }
  const int given = !reference.tag.empty() + !reference.branch.empty() + !reference.rev.empty();
  if (given > 1) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("the git source ", in_backticks(shown),
                              " names more than one of tag, branch and rev: keep one"));
  }
  WV_TRY(check_argument("URL", reference.url, shown));
  WV_TRY(check_argument("tag", reference.tag, shown));
  WV_TRY(check_argument("branch", reference.branch, shown));
  return check_argument("rev", reference.rev, shown);
}

// Makes sure the database holds `commit`, fetching (branches and tags, then the commit by id)
// only when it lacks it and not offline, so a gone or rewritten remote does not matter.
Result<void> ensure_commit(const Repository& repository, const std::string& commit,
                           bool offline) {
  WV_ASSIGN_OR_RETURN(std::string found, commit_of(repository, commit));
  if (found.empty() && offline) {
    Error error = make_error(ErrorCode::kNotFound,
                             str_cat("commit ", commit, " of ", in_backticks(repository.shown),
                                     " is not in the git cache"));
    return std::move(error).with_note("run without --offline to fetch it");
  }
  if (found.empty()) {
    WV_TRY(init_database(repository));
    WV_TRY(fetch(repository, {}));
    WV_ASSIGN_OR_RETURN(found, commit_of(repository, commit));
    if (found.empty() && fetch_commit(repository, commit)) {
      WV_ASSIGN_OR_RETURN(found, commit_of(repository, commit));
    }
  }
  if (found.empty()) {
    Error error = make_error(ErrorCode::kNotFound, str_cat(in_backticks(repository.shown),
                                                           " has no commit ", commit));
    return std::move(error).with_note(
        "it may have been force-pushed away: run `wvlock lock` to lock the source anew");
  }
  return pin(repository, commit);
}

// Takes the database's lock, creating the cache's folders on the way.
Result<FileLock> lock_database(const Repository& repository) {
  RealFileSystem file_system;
  WV_TRY(file_system.create_directories(path_parent(repository.database)));
  WV_TRY(file_system.create_directories(repository.home));
  return FileLock::acquire(repository.database + ".lock");
}

Result<bool> is_directory(const std::string& path) {
  auto info = RealFileSystem().stat(path);
  if (!info) return info.error().code == ErrorCode::kNotFound ? Result<bool>(false)
                                                              : Result<bool>(info.error());
  return info->type == FileType::kDirectory;
}

// Temporary folders of checkouts killed halfway; only called under the database's lock, so
// none of them is being written.
Result<void> remove_stale_temporaries(const std::string& folder) {
  RealFileSystem file_system;
  WV_ASSIGN_OR_RETURN(auto entries, file_system.list_directory(folder));
  for (const DirectoryEntry& entry : entries) {
    if (entry.name.starts_with(kTempPrefix)) {
      WV_TRY(file_system.remove_all(path_join(folder, entry.name)));
    }
  }
  return {};
}

// The tree of `commit`, written under a temporary name and renamed to `folder`. It is a clone
// of the database with objects hard-linked (--local: cheap, yet self-contained, unlike
// --shared's alternates) and the tags, so a setuptools-scm style backend finds the `.git` and
// the version it describes.
Result<void> make_checkout(const Repository& repository, const std::string& commit,
                           const std::string& folder) {
  RealFileSystem file_system;
  WV_TRY(file_system.create_directories(repository.checkouts));
  WV_TRY(remove_stale_temporaries(repository.checkouts));
  const std::string temporary = path_join(repository.checkouts, str_cat(kTempPrefix, commit));
  const std::string doing = str_cat("cannot check out commit ", commit, " of ",
                                    in_backticks(repository.shown));
  const char* next = "check that the cache folder is writable and has room (--cache-dir)";
  WV_TRY(run_git_checked(repository,
                         {"clone", "--quiet", "--local", "--no-checkout", "--template=",
                          "--", repository.database, temporary},
                         kTreeTimeout, doing, next));
  WV_TRY(run_git_checked(repository,
                         {"-C", temporary, "checkout", "--quiet", "--detach", commit},
                         kTreeTimeout, doing, next));
  return file_system.rename(temporary, folder);
}

// A repository on this machine is one repository however the lock's folder or the working
// directory spelled its path (`--project ../app` reads `../repo` as `../app/../repo`): it is
// keyed by its absolute path, so an offline sync finds what the lock fetched.
std::string repository_key(const std::string& url) {
  if (is_url(url)) return git_url_key(url);
  std::error_code ec;
  if (!std::filesystem::is_directory(url, ec)) return git_url_key(url);
  const std::filesystem::path absolute =
      std::filesystem::weakly_canonical(std::filesystem::absolute(url, ec), ec);
  return ec ? git_url_key(url) : git_url_key(absolute.string());
}

// Where the cache keeps `part` (db, checkouts) of the repository at `url`.
std::string keyed_folder(const std::string& root, std::string_view part, const std::string& url) {
  return path_join(root, str_cat(part, "/", repository_key(url)));
}

Result<Repository> open_repository(const std::string& root, const std::string& url) {
  Repository repository;
  repository.url = url;
  repository.shown = redact_credentials(url);
  repository.database = keyed_folder(root, "db", url);
  repository.checkouts = keyed_folder(root, "checkouts", url);
  repository.home = path_join(root, "home");
  repository.environment = clean_environment(repository.home);
  auto program = find_git();
  if (!program) {
    return make_error(program.error().code, str_cat("cannot use the git source ",
                                                    in_backticks(repository.shown), ": ",
                                                    program.error().message));
  }
  repository.program = std::move(*program);
  return repository;
}

}  // namespace

std::string requested_revision(const GitReference& reference) {
  if (!reference.tag.empty()) return reference.tag;
  if (!reference.branch.empty()) return reference.branch;
  return reference.rev;
}

std::string git_url_key(const std::string& url) {
  const std::string bare = strip_credentials(url);
  return str_cat(readable_tail(bare), "-", hash128(bare).to_hex().substr(0, 16));
}

GitCache::GitCache(std::string root, bool offline) : root_(std::move(root)), offline_(offline) {}

Result<std::string> GitCache::resolve(const GitReference& reference) {
  const std::string shown = redact_credentials(reference.url);
  WV_TRY(check_reference(reference, shown));
  WV_ASSIGN_OR_RETURN(Repository repository, open_repository(root_, reference.url));
  WV_ASSIGN_OR_RETURN(FileLock lock, lock_database(repository));
  if (offline_ && !has_database(repository)) {
    Error error = make_error(ErrorCode::kNotFound,
                             str_cat(in_backticks(shown), " is not in the git cache"));
    return std::move(error).with_note("run without --offline to fetch it");
  }
  if (!offline_) {
    WV_TRY(init_database(repository));
    WV_TRY(fetch(repository, extra_refspecs(reference)));
  }
  auto commit = find_commit(repository, reference, offline_);
  if (!commit && !offline_ && is_full_commit(to_lower(reference.rev)) &&
      fetch_commit(repository, to_lower(reference.rev))) {
    commit = find_commit(repository, reference, offline_);
  }
  if (!commit) return std::move(commit).error();
  WV_TRY(pin(repository, *commit));
  return commit;
}

Result<std::string> GitCache::checkout(const std::string& url, const std::string& commit_id) {
  const std::string shown = redact_credentials(url);
  const std::string commit = to_lower(commit_id);
  if (!is_full_commit(commit)) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("cannot check out ", in_backticks(commit_id), " of ",
                              in_backticks(shown), ": not a full commit id (40 hex digits)"));
  }
  WV_TRY(check_argument("URL", url, shown));
  const std::string folder = path_join(keyed_folder(root_, "checkouts", url), commit);
  // Made once and renamed into place: present means complete, so no git and no lock.
  WV_ASSIGN_OR_RETURN(bool present, is_directory(folder));
  if (present) return folder;
  WV_ASSIGN_OR_RETURN(Repository repository, open_repository(root_, url));
  WV_ASSIGN_OR_RETURN(FileLock lock, lock_database(repository));
  WV_ASSIGN_OR_RETURN(present, is_directory(folder));  // made while we waited for the lock
  if (present) return folder;
  WV_TRY(ensure_commit(repository, commit, offline_));
  WV_TRY(make_checkout(repository, commit, folder));
  return folder;
}

}  // namespace wv::build
