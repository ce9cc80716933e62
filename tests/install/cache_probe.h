// Helpers for the unpacked cache's hardening tests: what a folder outside the cache holds (so
// a test can say it was left byte for byte), and stderr captured while a step runs (its warnings).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace wv::test {

/// One path under a folder: its kind, bytes (or link target), link count, inode and mtime.
struct PathState {
  std::string what;
  std::uint64_t links = 0;
  std::uint64_t inode = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const PathState&) const = default;
};

/// `root` and every path under it, symlinks not followed.
inline std::map<std::string, PathState> snapshot(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<std::string, PathState> out;
  std::vector<fs::path> paths{root};
  for (const auto& entry : fs::recursive_directory_iterator(root)) paths.push_back(entry.path());
  for (const fs::path& path : paths) {
    struct ::stat raw {};
    ::lstat(path.c_str(), &raw);
    PathState state;
    state.links = raw.st_nlink;
    state.inode = raw.st_ino;
    state.mtime_ns = std::int64_t(raw.st_mtim.tv_sec) * 1'000'000'000 + raw.st_mtim.tv_nsec;
    if (S_ISLNK(raw.st_mode)) {
      state.what = "link " + fs::read_symlink(path).string();
    } else if (S_ISREG(raw.st_mode)) {
      std::ifstream in(path, std::ios::binary);
      state.what = "file " + std::string(std::istreambuf_iterator<char>(in), {});
    } else {
      state.what = "folder";  // its mtime changes when anything is made or removed in it
    }
    out[fs::relative(path, root).string()] = state;
  }
  return out;
}

/// Sends fd 2 to a file for one scope; text() is what was written there.
class StderrCapture {
 public:
  explicit StderrCapture(const std::string& file) : file_(file), saved_(::dup(STDERR_FILENO)) {
    std::fflush(stderr);
    std::FILE* out = std::fopen(file.c_str(), "w");
    ::dup2(::fileno(out), STDERR_FILENO);
    std::fclose(out);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    std::ifstream in(file_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::string file_;
  int saved_;
};

}  // namespace wv::test
