// The git cache against repositories made here with the `git` program (no network): resolution
// checked against `git rev-parse` on the source, checkouts that outlive moved tags, force-pushes
// and a deleted remote, offline use, messages, credentials, and two checkouts at once.
#include "src/pep517/git.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "src/base/file_system.h"
#include "src/base/str.h"
#include "tests/support/temp_dir.h"

namespace wv::build {
namespace {

namespace fs = std::filesystem;

// Runs a shell command and returns its stdout, trimmed; the test fails when it fails.
std::string shell(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  REQUIRE(::pclose(pipe) == 0);
  return std::string(trim(out));
}

std::string read_text(const std::string& path) {
  return RealFileSystem().read_file(path).value_or(std::string());
}

// A source repository: main has c1 (annotated tag v1.0) then c2; feature branches off c2
// with c3. HEAD is main.
struct Source {
  test::TempDir dir;
  std::string repo = dir.file("src");
  std::string cache = dir.file("cache");

  Source() {
    shell("git init -q -b main " + repo);
    c1 = commit("a.txt", "one\n");
    git("tag -a -m release v1.0");
    c2 = commit("a.txt", "two\n");
    git("checkout -q -b feature");
    c3 = commit("b.txt", "feature\n");
    git("checkout -q main");
  }
  // An identity on every call: a fresh machine has no ~/.gitconfig, and annotated tags need one.
  std::string git(const std::string& args) {
    return shell(str_cat("git -C ", repo, " -c user.name=t -c user.email=t@t ", args));
  }
  std::string commit(const std::string& file, const std::string& content) {
    std::ofstream(path_join(repo, file)) << content;
    git("add -A");
    git("commit -q -m " + file);
    return git("rev-parse HEAD");
  }
  GitReference reference() const { return GitReference{repo, "", "", ""}; }

  std::string c1, c2, c3;
};

GitReference with_tag(GitReference reference, std::string tag) {
  reference.tag = std::move(tag);
  return reference;
}
GitReference with_branch(GitReference reference, std::string branch) {
  reference.branch = std::move(branch);
  return reference;
}
GitReference with_rev(GitReference reference, std::string rev) {
  reference.rev = std::move(rev);
  return reference;
}

std::string resolved(GitCache& cache, const GitReference& reference) {
  auto commit = cache.resolve(reference);
  INFO((commit ? "" : commit.error().to_string()));
  REQUIRE(commit.has_value());
  return *commit;
}

std::string checked_out(GitCache& cache, const std::string& url, const std::string& commit) {
  auto folder = cache.checkout(url, commit);
  INFO((folder ? "" : folder.error().to_string()));
  REQUIRE(folder.has_value());
  return *folder;
}

std::string error_text(const Result<std::string>& result) {
  REQUIRE_FALSE(result.has_value());
  return result.error().to_string();
}

bool contains(const std::string& text, std::string_view piece) {
  return text.find(piece) != std::string::npos;
}

// PATH replaced for one scope: an empty folder stands for "git is not installed".
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() {
    if (old_) {
      ::setenv("PATH", old_->c_str(), 1);
    } else {
      ::unsetenv("PATH");
    }
  }

 private:
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("git: tag, branch, rev and HEAD resolve to the source's commits", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  const GitReference base = source.reference();
  CHECK(resolved(cache, base) == source.c2);
  CHECK(resolved(cache, with_tag(base, "v1.0")) == source.c1);  // an annotated tag's commit
  CHECK(resolved(cache, with_branch(base, "feature")) == source.c3);
  CHECK(resolved(cache, with_branch(base, "main")) == source.c2);
  CHECK(resolved(cache, with_rev(base, source.c3)) == source.c3);
  CHECK(resolved(cache, with_rev(base, source.c1.substr(0, 9))) == source.c1);
  CHECK(resolved(cache, with_rev(base, "v1.0")) == source.c1);
  CHECK(resolved(cache, with_rev(base, "feature")) == source.c3);
  CHECK(resolved(cache, with_rev(base, "refs/heads/feature")) == source.c3);
  // file:// URLs are sources like paths
  CHECK(resolved(cache, with_tag(GitReference{"file://" + source.repo, "", "", ""}, "v1.0")) ==
        source.c1);

  CHECK(requested_revision(with_tag(base, "v1.0")) == "v1.0");
  CHECK(requested_revision(with_branch(base, "main")) == "main");
  CHECK(requested_revision(with_rev(base, source.c1)) == source.c1);
  CHECK(requested_revision(base).empty());
}

TEST_CASE("git: a checkout of the tag's commit holds the tag's files", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  const std::string commit = resolved(cache, with_tag(source.reference(), "v1.0"));
  const std::string folder = checked_out(cache, source.repo, commit);
  CHECK(folder == path_join(source.cache,
                            str_cat("checkouts/", git_url_key(source.repo), "/", commit)));
  CHECK(read_text(path_join(folder, "a.txt")) == "one\n");
  CHECK_FALSE(fs::exists(path_join(folder, "b.txt")));
  // The .git is kept, with the tags, so that setuptools-scm style backends can describe it.
  CHECK(shell("git -C " + folder + " rev-parse HEAD") == commit);
  CHECK(shell("git -C " + folder + " describe --tags") == "v1.0");
  // Nothing half-made is left next to it.
  for (const auto& entry : fs::directory_iterator(path_parent(folder))) {
    CHECK_FALSE(entry.path().filename().string().starts_with(".tmp-"));
  }
}

TEST_CASE("git: a moved tag and a force-push leave cached commits usable", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  const GitReference tag = with_tag(source.reference(), "v1.0");
  REQUIRE(resolved(cache, tag) == source.c1);
  REQUIRE(resolved(cache, source.reference()) == source.c2);

  // main is force-pushed to c4 (on c1), the tag moves there, and c2 and c3 are pruned away.
  source.git("reset -q --hard " + source.c1);
  const std::string c4 = source.commit("c.txt", "four\n");
  source.git("tag -f -a -m moved v1.0");
  source.git("branch -q -D feature");
  source.git("reflog expire --expire=now --all");
  source.git("gc -q --prune=now");
  REQUIRE(source.git("cat-file -e " + source.c2 + " 2>/dev/null && echo present || true").empty());

  CHECK(resolved(cache, tag) == c4);
  CHECK(resolved(cache, source.reference()) == c4);
  const std::string old_tag = checked_out(cache, source.repo, source.c1);
  CHECK(read_text(path_join(old_tag, "a.txt")) == "one\n");
  const std::string pushed_away = checked_out(cache, source.repo, source.c2);
  CHECK(read_text(path_join(pushed_away, "a.txt")) == "two\n");
}

TEST_CASE("git: a deleted remote: cached commits check out, offline resolves", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  REQUIRE(resolved(cache, source.reference()) == source.c2);
  REQUIRE(resolved(cache, with_branch(source.reference(), "feature")) == source.c3);
  fs::remove_all(source.repo);

  const std::string folder = checked_out(cache, source.repo, source.c2);
  CHECK(read_text(path_join(folder, "a.txt")) == "two\n");

  GitCache offline(source.cache, true);
  CHECK(resolved(offline, with_branch(source.reference(), "feature")) == source.c3);
  CHECK(resolved(offline, with_tag(source.reference(), "v1.0")) == source.c1);
  CHECK(resolved(offline, source.reference()) == source.c2);  // not pruned by later fetches
  CHECK(checked_out(offline, source.repo, source.c3) ==
        path_join(path_parent(folder), source.c3));

  // Online, the fetch fails: the message names the URL and git's words, and offers --offline.
  const std::string message = error_text(cache.resolve(source.reference()));
  CHECK(contains(message, "cannot fetch `" + source.repo + "`"));
  CHECK(contains(message, "--offline"));
}

TEST_CASE("git: offline, what the cache lacks is an error that names --offline", "[git]") {
  Source source;
  GitCache offline(source.cache, true);
  std::string message = error_text(offline.resolve(source.reference()));
  CHECK(contains(message, "is not in the git cache"));
  CHECK(contains(message, "run without --offline"));

  GitCache cache(source.cache, false);
  REQUIRE(resolved(cache, source.reference()) == source.c2);
  source.git("tag v2.0");
  message = error_text(offline.resolve(with_tag(source.reference(), "v2.0")));
  CHECK(contains(message, "tag `v2.0`"));
  CHECK(contains(message, "run without --offline"));
  message = error_text(offline.checkout(source.repo, std::string(40, 'a')));
  CHECK(contains(message, "run without --offline"));
  CHECK(resolved(cache, with_tag(source.reference(), "v2.0")) == source.c2);
}

TEST_CASE("git: an unknown tag or branch is named, with some that exist", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  std::string message = error_text(cache.resolve(with_tag(source.reference(), "v9.9")));
  CHECK(contains(message, "has no tag `v9.9`"));
  CHECK(contains(message, "`v1.0`"));
  message = error_text(cache.resolve(with_branch(source.reference(), "nope")));
  CHECK(contains(message, "has no branch `nope`"));
  CHECK(contains(message, "`feature`"));
  CHECK(contains(message, "`main`"));
  CHECK_FALSE(contains(message, "`HEAD`"));
  message = error_text(cache.resolve(with_rev(source.reference(), std::string(40, 'b'))));
  CHECK(contains(message, "has no commit or ref"));
  message = error_text(cache.checkout(source.repo, std::string(40, 'c')));
  CHECK(contains(message, "has no commit " + std::string(40, 'c')));
  // A HEAD that names no branch fails the default branch alone.
  source.git("symbolic-ref HEAD refs/heads/gone");
  CHECK(contains(error_text(cache.resolve(source.reference())), "remote ref HEAD"));
  CHECK(resolved(cache, with_tag(source.reference(), "v1.0")) == source.c1);
}

TEST_CASE("git: bad references are refused before git runs", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  GitReference two = with_branch(with_tag(source.reference(), "v1.0"), "main");
  CHECK(contains(error_text(cache.resolve(two)), "more than one of tag, branch and rev"));
  CHECK(contains(error_text(cache.resolve(with_rev(source.reference(), "--upload-pack=x"))),
                 "may not start with `-`"));
  CHECK(contains(error_text(cache.resolve(GitReference{})), "has no URL"));
  CHECK(contains(error_text(cache.checkout(source.repo, "v1.0")), "not a full commit id"));
  CHECK_FALSE(fs::exists(source.cache));
}

TEST_CASE("git: a second checkout returns the same folder without running git", "[git]") {
  Source source;
  GitCache cache(source.cache, false);
  const std::string folder = checked_out(cache, source.repo, source.c1);
  struct stat before {};
  REQUIRE(::stat(folder.c_str(), &before) == 0);
  {
    test::TempDir empty;
    ScopedPath no_git(empty.path());  // a git run would fail now
    GitCache again(source.cache, false);
    CHECK(checked_out(again, source.repo, source.c1) == folder);
    CHECK(checked_out(again, source.repo, to_lower(source.c1)) == folder);
  }
  struct stat after {};
  REQUIRE(::stat(folder.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_mtime == before.st_mtime);
}

TEST_CASE("git: without git installed the message says to install it", "[git]") {
  Source source;
  test::TempDir empty;
  ScopedPath no_git(empty.path());
  GitCache cache(source.cache, false);
  const std::string message = error_text(cache.resolve(source.reference()));
  CHECK(contains(message, "install git"));
  CHECK(contains(message, source.repo));
}

TEST_CASE("git: credentials in the URL never show", "[git]") {
  test::TempDir dir;
  const std::string url = "https://user:secret@127.0.0.1:9/x.git";  // refused at once
  GitCache cache(dir.file("cache"), false);
  std::string message = error_text(cache.resolve(with_tag(GitReference{url, "", "", ""}, "v1")));
  CHECK(contains(message, "https://****@127.0.0.1:9/x.git"));
  CHECK_FALSE(contains(message, "secret"));
  message = error_text(cache.checkout(url, std::string(40, 'd')));
  CHECK_FALSE(contains(message, "secret"));
  // Nor are they written anywhere in the cache.
  CHECK(git_url_key(url) == git_url_key("https://127.0.0.1:9/x.git"));
  for (const auto& entry : fs::recursive_directory_iterator(dir.file("cache"))) {
    CHECK_FALSE(contains(entry.path().string(), "secret"));
    if (entry.is_regular_file()) CHECK_FALSE(contains(read_text(entry.path()), "secret"));
  }
}

TEST_CASE("git: checkouts of one commit at once all succeed with the same tree", "[git]") {
  Source source;
  constexpr int kThreads = 4;
  std::vector<Result<std::string>> resolved_commits(kThreads, Error{});
  std::vector<Result<std::string>> folders(kThreads, Error{});
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      GitCache cache(source.cache, false);  // each its own object, as separate processes
      resolved_commits[i] = cache.resolve(with_tag(source.reference(), "v1.0"));
      folders[i] = cache.checkout(source.repo, source.c1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) {
    INFO((folders[i] ? "" : folders[i].error().to_string()));
    REQUIRE(resolved_commits[i].has_value());
    REQUIRE(folders[i].has_value());
    CHECK(*resolved_commits[i] == source.c1);
    CHECK(*folders[i] == *folders[0]);
  }
  CHECK(read_text(path_join(*folders[0], "a.txt")) == "one\n");
}

TEST_CASE("git: two processes checking out one commit at once both succeed", "[git]") {
  Source source;
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {  // the child only runs the cache and reports through its exit status
      GitCache cache(source.cache, false);
      auto commit = cache.resolve(with_branch(source.reference(), "feature"));
      auto folder = cache.checkout(source.repo, source.c3);
      ::_exit(commit && *commit == source.c3 && folder ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t child : children) {
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  GitCache cache(source.cache, true);
  const std::string folder = checked_out(cache, source.repo, source.c3);
  CHECK(read_text(path_join(folder, "b.txt")) == "feature\n");
}

}  // namespace wv::build
