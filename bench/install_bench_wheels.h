// Generated wheels for the install benchmark: real zips, deflated at level 1, with RECORDs
// (sha256 + size). A wheel is a list of members, each generated from its own seed, so the
// members can be written in parallel: every thread deflates its share into a part archive,
// then the wheel takes the parts' deflated bytes as they are (zip_source_zip with
// ZIP_FL_COMPRESSED: no second deflate) and adds RECORD. Large binaries are streamed from a
// generator while libzip reads them, hashed on the way, so no member is held in memory whole.
#pragma once

#include <zip.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "src/base/sha256.h"
#include "src/base/str.h"

namespace bench {

enum class Content {
  kPython,  ///< a Python module
  kHeader,  ///< a C++ header
  kBinary,  ///< a shared library's bytes (streamed)
  kFixed,   ///< `fixed`, as it is (METADATA, WHEEL, ...)
};

struct Member {
  std::string name;
  Content content = Content::kFixed;
  std::uint64_t size = 0;  ///< for generated content
  std::uint64_t seed = 0;
  bool executable = false;
  std::string fixed;
  std::string digest;  ///< "sha256=<base64>", set once the member is written
};

/// Code-like text of about `size` bytes: deflates about 4x, as real sources do.
inline std::string code_text(Content kind, std::uint64_t seed, std::uint64_t size) {
  std::mt19937 random(static_cast<std::uint32_t>(seed));
  std::string text;
  text.reserve(size + 128);
  for (int n = 0; text.size() < size; ++n) {
    if (kind == Content::kHeader) {
      text += wv::str_cat("TORCH_API at::Tensor op_", n, "(const at::Tensor& self, int64_t dim = ",
                          random() % 1000, ");  // ", random(), "\n");
    } else {
      text += wv::str_cat("def function_", n, "(x, y=", random() % 1000, "):\n    return x * ", n,
                          " + y  # ", random(), "\n\n");
    }
  }
  return text;
}

/// Bytes that deflate about 2.5x, like a shared library's code and tables: stretches of
/// random bytes (incompressible) between runs of one byte (padding, zeroed tables). Random
/// bytes, not a small alphabet: mixed with runs, zlib deflates them 1.5-2x faster at level 1,
/// which keeps generating the torch-shaped wheel well under a minute on 2 cores.
class BinaryBytes {
 public:
  explicit BinaryBytes(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  void fill(char* out, std::size_t n) {
    while (n > 0) {
      if (left_ == 0) start_stretch();
      std::size_t k = std::min<std::size_t>(n, left_);
      if (run_) {
        std::memset(out, run_byte_, k);
      } else {
        std::size_t i = 0;
        for (; i + 8 <= k; i += 8) {
          std::uint64_t value = next();
          std::memcpy(out + i, &value, 8);
        }
        for (; i < k; ++i) out[i] = static_cast<char>(next());
      }
      out += k;
      n -= k;
      left_ -= k;
    }
  }

 private:
  std::uint64_t next() {  // xorshift64: cheap, and good enough to defeat deflate
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  void start_stretch() {
    std::uint64_t r = next();
    run_ = r % 100 < 45;
    left_ = run_ ? 16 + (r >> 8) % 2000 : 16 + (r >> 8) % 1000;
    run_byte_ = static_cast<char>(r >> 40);
  }
  std::uint64_t state_;
  std::uint64_t left_ = 0;
  bool run_ = false;
  char run_byte_ = 0;
};

/// A libzip source over BinaryBytes that hashes what it hands out into `member.digest`.
struct BinarySource {
  Member* member;
  std::optional<BinaryBytes> bytes;
  std::optional<wv::Sha256> hash;
  std::uint64_t done = 0;
  zip_error_t error;
};

inline zip_int64_t binary_source(void* state, void* data, zip_uint64_t length, zip_source_cmd_t command) {
  auto* source = static_cast<BinarySource*>(state);
  switch (command) {
    case ZIP_SOURCE_OPEN:  // (again, should libzip read twice: the digest is of one full pass)
      source->bytes.emplace(source->member->seed);
      source->hash.emplace();
      source->done = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      zip_uint64_t n = std::min<zip_uint64_t>(length, source->member->size - source->done);
      source->bytes->fill(static_cast<char*>(data), n);
      source->hash->update(std::string_view(static_cast<char*>(data), n));
      source->done += n;
      if (source->done == source->member->size && n > 0) {
        source->member->digest = "sha256=" + wv::hex_to_urlsafe_base64_nopad(source->hash->finish_hex());
      }
      return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      auto* stat = static_cast<zip_stat_t*>(data);
      zip_stat_init(stat);
      stat->size = source->member->size;
      stat->valid |= ZIP_STAT_SIZE;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&source->error, data, length);
    case ZIP_SOURCE_FREE:
      zip_error_fini(&source->error);
      delete source;
      return 0;
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                            ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default:
      zip_error_set(&source->error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
  }
}

inline zip_source_t* buffer_source(zip_t* archive, const std::string& content) {
  void* data = std::malloc(content.size() + 1);
  std::memcpy(data, content.data(), content.size());
  return zip_source_buffer(archive, data, content.size(), 1);
}

/// Adds `source` as `name`, deflated at level 1 (or as it is when the source is already
/// deflated), with a Unix mode. False (the source freed) on failure.
inline bool add_source(zip_t* archive, const std::string& name, zip_source_t* source, bool executable) {
  if (source == nullptr) return false;
  zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
  if (index < 0) {
    zip_source_free(source);
    return false;
  }
  auto at = static_cast<zip_uint64_t>(index);
  zip_file_set_external_attributes(archive, at, 0, ZIP_OPSYS_UNIX,
                                   (executable ? 0100755u : 0100644u) << 16);
  return zip_set_file_compression(archive, at, ZIP_CM_DEFLATE, 1) == 0;
}

/// Writes `members` (digests filled in) into a part archive at `path`.
inline bool write_part(const std::string& path, const std::vector<Member*>& members) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (archive == nullptr) return false;
  bool ok = true;
  for (Member* member : members) {
    zip_source_t* source = nullptr;
    if (member->content == Content::kBinary) {
      auto* state = new BinarySource{member, {}, {}, 0, {}};
      zip_error_init(&state->error);
      source = zip_source_function(archive, binary_source, state);
      if (source == nullptr) delete state;
    } else {
      std::string text = member->content == Content::kFixed
                             ? member->fixed
                             : code_text(member->content, member->seed, member->size);
      member->digest = wv::sha256_record_digest(text);
      member->size = text.size();
      source = buffer_source(archive, text);
    }
    ok = ok && add_source(archive, member->name, source, member->executable);
  }
  if (!ok) {
    zip_discard(archive);
    return false;
  }
  return zip_close(archive) == 0;
}

/// `members` split into `count` parts of about equal bytes: largest first onto the lightest.
inline std::vector<std::vector<Member*>> balance(std::vector<Member>& members, unsigned count) {
  std::vector<Member*> by_size;
  for (Member& member : members) by_size.push_back(&member);
  std::sort(by_size.begin(), by_size.end(), [](Member* a, Member* b) { return a->size > b->size; });
  std::vector<std::vector<Member*>> parts(count);
  std::vector<std::uint64_t> load(count, 0);
  for (Member* member : by_size) {
    auto lightest = std::min_element(load.begin(), load.end()) - load.begin();
    parts[lightest].push_back(member);
    load[lightest] += member->size + 4096;
  }
  return parts;
}

/// Each part written by its own thread.
inline bool write_parts(const std::vector<std::string>& paths, const std::vector<std::vector<Member*>>& parts) {
  std::vector<char> written(parts.size(), 0);
  std::vector<std::thread> workers;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    workers.emplace_back([&, p] { written[p] = write_part(paths[p], parts[p]); });
  }
  for (std::thread& worker : workers) worker.join();
  return std::all_of(written.begin(), written.end(), [](char w) { return w != 0; });
}

/// The wheel at `path`: the parts' deflated members in `members` order, then RECORD.
inline bool assemble(const std::string& path, const std::vector<Member>& members,
                     const std::vector<std::vector<Member*>>& parts,
                     const std::vector<std::string>& part_paths, const std::string& record_name) {
  std::vector<zip_t*> opened;
  std::vector<std::pair<zip_t*, zip_uint64_t>> where(members.size());  // member -> part, index
  bool ok = true;
  for (std::size_t p = 0; ok && p < parts.size(); ++p) {
    int error = 0;
    zip_t* part = zip_open(part_paths[p].c_str(), ZIP_RDONLY, &error);
    ok = part != nullptr;
    if (!ok) break;
    opened.push_back(part);
    for (std::size_t i = 0; i < parts[p].size(); ++i) where[parts[p][i] - members.data()] = {part, i};
  }
  int error = 0;
  zip_t* archive = ok ? zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error) : nullptr;
  ok = archive != nullptr;
  std::string record;
  for (std::size_t i = 0; ok && i < members.size(); ++i) {
    const Member& member = members[i];
    zip_source_t* source =
        zip_source_zip(archive, where[i].first, where[i].second, ZIP_FL_COMPRESSED, 0, -1);
    ok = add_source(archive, member.name, source, member.executable) && !member.digest.empty();
    record += wv::str_cat(member.name, ",", member.digest, ",", member.size, "\n");
  }
  record += record_name + ",,\n";
  ok = ok && add_source(archive, record_name, buffer_source(archive, record), false);
  if (archive != nullptr && !(ok && zip_close(archive) == 0)) {
    zip_discard(archive);  // (a failed zip_close leaves the archive open)
    ok = false;
  }
  for (zip_t* part : opened) zip_discard(part);
  return ok;
}

/// Writes the wheel `path` from `members` in `threads` parts, then RECORD. Written under a
/// temporary name and renamed, so a wheel at `path` is always complete.
inline bool write_wheel(const std::string& path, std::vector<Member>& members, unsigned threads,
                        const std::string& record_name) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(members.size())));
  std::vector<std::vector<Member*>> parts = balance(members, threads);
  std::vector<std::string> part_paths;
  for (unsigned p = 0; p < threads; ++p) part_paths.push_back(wv::str_cat(path, ".part", p));
  const std::string temporary = path + ".partial";
  bool ok = write_parts(part_paths, parts) && assemble(temporary, members, parts, part_paths, record_name);
  std::error_code ec;
  for (const std::string& part_path : part_paths) std::filesystem::remove(part_path, ec);
  if (ok) std::filesystem::rename(temporary, path, ec);
  else std::filesystem::remove(temporary, ec);
  return ok && !ec;
}

/// The members every generated wheel ends with (RECORD aside): the package's __init__.py,
/// whose VALUE the entry point names, and the dist-info files.
inline void add_init_and_dist_info(std::vector<Member>& members, const std::string& name,
                                   const std::string& version, bool purelib) {
  const std::string dist_info = wv::str_cat(name, "-", version, ".dist-info/");
  auto fixed = [&](const std::string& file, std::string text) {
    Member member;
    member.name = file;
    member.fixed = std::move(text);
    members.push_back(std::move(member));
  };
  fixed(name + "/__init__.py", "VALUE = 1\n");
  fixed(dist_info + "METADATA", wv::str_cat("Metadata-Version: 2.1\nName: ", name, "\nVersion: ", version, "\n\n"));
  fixed(dist_info + "WHEEL", wv::str_cat("Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: ",
                             purelib ? "true" : "false", "\nTag: py3-none-any\n"));
  fixed(dist_info + "entry_points.txt", wv::str_cat("[console_scripts]\n", name, "-run = ", name, ":VALUE\n"));
}

/// A small pure-Python wheel: `files` modules of 1-7 KB in folders of 50, and __init__.py.
inline std::vector<Member> small_wheel(const std::string& name, int files, std::mt19937& random) {
  std::vector<Member> members;
  for (int f = 0; f < files; ++f) {
    Member member;
    member.name = wv::str_cat(name, "/sub", f / 50, "/mod", f, ".py");
    member.content = Content::kPython;
    member.size = 1000 + random() % 6000;
    member.seed = random();
    members.push_back(std::move(member));
  }
  add_init_and_dist_info(members, name, "1.0", true);
  return members;
}

/// A wheel shaped like torch's: ~11,600 Python modules and headers of 1-20 KB, ~320
/// libraries of 50 KB-5 MB (log-uniform), and a few huge ones, ~1.56 GB in all. Tagged
/// py3-none-any (add_init_and_dist_info) so that it installs wherever the bench runs.
inline std::vector<Member> torchlike_wheel(const std::string& name, const std::string& version) {
  std::mt19937 random(2024);
  std::vector<Member> members;
  auto add = [&](std::string path, Content content, std::uint64_t size, bool executable) {
    Member member;
    member.name = std::move(path);
    member.content = content;
    member.size = size;
    member.seed = random();
    member.executable = executable;
    members.push_back(std::move(member));
  };
  const char* areas[] = {"nn", "_dynamo", "_inductor", "distributed", "testing", "utils", "fx", "onnx",
                         "ao", "export", "optim", "jit", "cuda", "sparse", "_functorch", "_refs"};
  for (int i = 0; i < 8000; ++i) {
    add(wv::str_cat(name, "/", areas[i % 16], "/sub", i / 16 / 25, "/m", i, ".py"), Content::kPython,
        1000 + random() % 19000, false);
  }
  const char* include_areas[] = {"ATen/ops", "c10/util", "torch/csrc/api", "caffe2/core", "pybind11", "ATen/cuda"};
  for (int i = 0; i < 3600; ++i) {
    add(wv::str_cat(name, "/include/", include_areas[i % 6], "/d", i / 6 / 40, "/h", i, ".h"),
        Content::kHeader, 1000 + random() % 19000, false);
  }
  std::uniform_real_distribution<double> log_size(std::log(50e3), std::log(5e6));
  for (int i = 0; i < 320; ++i) {
    add(wv::str_cat(name, "/lib/libpart", i, ".so"), Content::kBinary,
        static_cast<std::uint64_t>(std::exp(log_size(random))), true);
  }
  const std::pair<const char*, int> huge[] = {{"libtorch_cuda", 400}, {"libtorch_cpu", 250},
                                              {"libcudnn_engines", 150}, {"libnccl", 100},
                                              {"libcublasLt", 80}, {"libcusparse", 40},
                                              {"libcufft", 20}, {"libnvrtc", 10}};
  for (const auto& [library, megabytes] : huge) {
    add(wv::str_cat(name, "/lib/", library, ".so"), Content::kBinary,
        static_cast<std::uint64_t>(megabytes) * 1000000, true);
  }
  add_init_and_dist_info(members, name, version, false);
  return members;
}

/// One shared library of `megabytes` MB (torch's biggest is ~400 MB here) and __init__.py.
inline std::vector<Member> one_library_wheel(const std::string& name, const std::string& version,
                                             int megabytes) {
  std::vector<Member> members;
  Member library;
  library.name = wv::str_cat(name, "/lib/lib", name, ".so");
  library.content = Content::kBinary;
  library.size = static_cast<std::uint64_t>(megabytes) * 1000000;
  library.seed = 2024;
  library.executable = true;
  members.push_back(std::move(library));
  add_init_and_dist_info(members, name, version, false);
  return members;
}

struct WheelStats {
  std::uint64_t files = 0;
  std::uint64_t unpacked = 0;
  std::uint64_t deflated = 0;
  std::uint64_t huge_unpacked = 0;  ///< members of 10 MB or more
  std::uint64_t huge_deflated = 0;
  int huge = 0;
};

/// Read back from the archive, so reused wheels are described the same way.
inline bool wheel_stats(const std::string& path, WheelStats& stats) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  if (archive == nullptr) return false;
  zip_int64_t entries = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    zip_stat_t stat;
    if (zip_stat_index(archive, static_cast<zip_uint64_t>(i), 0, &stat) != 0) continue;
    ++stats.files;
    stats.unpacked += stat.size;
    stats.deflated += stat.comp_size;
    if (stat.size >= 10000000) {
      ++stats.huge;
      stats.huge_unpacked += stat.size;
      stats.huge_deflated += stat.comp_size;
    }
  }
  zip_discard(archive);
  return true;
}

}  // namespace bench
