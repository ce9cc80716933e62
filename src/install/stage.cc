// Unpacking the prepared wheels in parallel and merging what they install.
#include "src/install/stage.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <thread>

#include "src/base/str.h"
#include "src/base/sha256.h"
#include "src/install/bytecode.h"
#include "src/install/direct_url.h"
#include "src/install/environment.h"
#include "src/install/requested.h"

namespace wv::install {
namespace {

/// Wheels unpacked at once (bounded: unpacking is mostly file creation).
constexpr std::size_t kMaxUnpackThreads = 8;

// Wheel `number`'s own folder in the staging folder.
std::string wheel_staging(const std::string& staging, std::size_t number) {
  return path_join(staging, std::to_string(number));
}

// What the unpack options of every wheel are made from. Each dist-info also records whether
// the package was asked for (REQUESTED) and, when the lock names it by location, where from
// (direct_url.json).
struct UnpackContext {
  const PreparedWheels& prepared;
  const StageRequest& request;
  const std::string& staging;
  std::set<pkg::PackageName> requested;
  std::map<pkg::PackageName, const lock::LockedPackage*> entry_of;
};

UnpackContext context_of(const PreparedWheels& prepared, const StageRequest& request,
                         const std::string& staging) {
  const SyncOptions& options = request.options;
  UnpackContext context{prepared, request, staging,
                        requested_packages(request.lockfile, request.selection.target,
                                           options.select.groups, options.select.dependencies,
                                           options.install_project),
                        {}};
  for (const ChosenWheel& chosen : request.selection.wheels) {
    context.entry_of[chosen.package->name] = chosen.package;
  }
  return context;
}

// Wheel `number`'s unpack options. Read-only on the context: the unpacking threads share it.
UnpackOptions unpack_options_for(std::size_t number, const UnpackContext& context) {
  const PlanItem* item = context.prepared.wheels[number].item;
  const std::string& path = context.prepared.wheels[number].path;
  const SyncOptions& options = context.request.options;
  UnpackOptions unpack;
  unpack.scheme = context.request.scheme;
  unpack.staging = wheel_staging(context.staging, number);
  unpack.limits = options.limits;
  if (item->build != nullptr) {
    auto identity = context.request.identities.find(item->name);
    WV_CHECK(identity != context.request.identities.end(), "a built package has no identity");
    unpack.recorded_source = identity->second.name;
    unpack.recorded_digest = identity->second.digest;
    unpack.direct_url_json = direct_url_json(*item->build, nullptr,
                                             context.prepared.archive_of(item), options);
  } else {
    unpack.wheel_name = item->file->name;
    unpack.wheel_sha256 = item->file->sha256;
    if (auto entry = context.entry_of.find(item->name); entry != context.entry_of.end()) {
      unpack.direct_url_json = direct_url_json(*entry->second, item->file, path, options);
    }
  }
  unpack.requested = context.requested.count(item->name) > 0;
  return unpack;
}

// Every wheel staged, in parallel, each into its own numbered folder.
std::vector<std::optional<Result<LinkedWheel>>> stage_all(const UnpackContext& context) {
  const std::vector<PreparedWheel>& wheels = context.prepared.wheels;
  std::vector<std::optional<Result<LinkedWheel>>> staged(wheels.size());
  std::atomic<std::size_t> next{0};
  auto work = [&]() {
    for (std::size_t i; (i = next.fetch_add(1)) < wheels.size();) {
      UnpackOptions options = unpack_options_for(i, context);
      // Several wheels unpack at once; a private extraction inflates on one core.
      options.threads = wheels.size() > 1 ? 1 : 0;
      staged[i] = stage_wheel(context.request.file_system, wheels[i], options,
                              context.request.options.link_mode);
    }
  };
  std::size_t workers = std::min<std::size_t>(
      {wheels.size(), std::max(1u, std::thread::hardware_concurrency()), kMaxUnpackThreads});
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  return staged;
}

// The modules of purelib and platlib (not scripts or data) that byte code is made for.
bool compiles(const std::string& rel, const InstallScheme& scheme) {
  auto under = [&](const std::string& folder) {
    return !folder.empty() && rel.size() > folder.size() &&
           rel.compare(0, folder.size(), folder) == 0 && rel[folder.size()] == '/';
  };
  return rel.size() > 3 && rel.compare(rel.size() - 3, 3, ".py") == 0 &&
         (under(scheme.purelib) || under(scheme.platlib));
}

// `--compile-bytecode`: every staged module compiled, each .pyc added to its wheel's RECORD.
Result<void> compile_all(std::vector<LinkedWheel*>& wheels, const StageRequest& request,
                         const std::string& staging) {
  struct Source {
    std::size_t wheel;
    std::string staged_root;  ///< the wheel's numbered staging folder
  };
  std::vector<CompileJob> jobs;
  std::vector<Source> sources;
  for (std::size_t w = 0; w < wheels.size(); ++w) {
    const std::string folder = wheel_staging(staging, w);
    for (const std::string& rel : wheels[w]->unpacked.files) {
      if (!compiles(rel, request.scheme)) continue;
      jobs.push_back(CompileJob{path_join(folder, rel), path_join(request.root, rel)});
      sources.push_back(Source{w, folder});
    }
  }
  WV_ASSIGN_OR_RETURN(std::vector<CompiledFile> compiled,
                      compile_bytecode(path_join(request.root, "bin/python"), jobs,
                                       path_join(staging, "compile")));
  for (const CompiledFile& file : compiled) {
    const Source& source = sources[file.job];
    if (file.pyc.compare(0, source.staged_root.size() + 1, source.staged_root + "/") != 0) continue;
    WV_ASSIGN_OR_RETURN(std::string digest, request.file_system.content_sha256(file.pyc));
    WV_ASSIGN_OR_RETURN(FileInfo info, request.file_system.stat(file.pyc));
    add_record_row(*wheels[source.wheel], file.pyc.substr(source.staged_root.size() + 1),
                   str_cat("sha256=", hex_to_urlsafe_base64_nopad(digest)), info.size);
  }
  return {};
}

// The unpacked wheel is the distribution the plan item names (and, built here, its version).
Result<void> check_unpacked(const PreparedWheel& wheel, const UnpackedWheel& unpacked,
                            const std::string& root) {
  const PlanItem& item = *wheel.item;
  if (unpacked.name != item.name.str()) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(item.file ? item.file->name : wheel.path), " installs ",
                              in_backticks(unpacked.name), ", the lock expects ",
                              in_backticks(item.name.str())));
  }
  if (item.build != nullptr && !item.version.empty() && unpacked.version != item.version) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat("building ", item.name, " gave version ", unpacked.version,
                              ", and the lock says ", item.version,
                              ": its source changed since the lock"))
        .with_note("run `wvlock lock` to lock what the source is now")
        .with_note(unchanged_note(root));
  }
  return {};
}

// Wheel `number`'s files join the merge; a later wheel takes a destination over.
void merge(std::size_t number, UnpackedWheel& unpacked, StagedFiles& staged) {
  for (std::size_t f = 0; f < unpacked.files.size(); ++f) {
    std::string& rel = unpacked.files[f];
    staged.member_of[{number, rel}] =
        f < unpacked.members.size() ? unpacked.members[f] : std::string();
    auto [it, fresh] = staged.source_of.emplace(rel, number);
    if (fresh) staged.placed.push_back(std::move(rel));
    else it->second = number;
  }
}

// A file of one wheel where another puts a folder cannot both be installed.
// The paths are clean (members checked, scheme folders from sysconfig): a folder above one is
// its text up to a `/`, which spares parsing each of a big wheel's 12,000 paths.
Result<void> check_file_over_folder(const StagedFiles& staged, const std::string& root) {
  for (const std::string& rel : staged.placed) {
    for (std::size_t slash = rel.rfind('/'); slash != std::string::npos && slash > 0;
         slash = rel.rfind('/', slash - 1)) {
      const std::string parent = rel.substr(0, slash);
      if (staged.source_of.count(parent)) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(staged.source(parent), " installs a file at ",
                                  in_backticks(parent), ", and ", staged.source(rel),
                                  " installs ", in_backticks(rel), " inside it"))
            .with_note(unchanged_note(root));
      }
    }
  }
  return {};
}

}  // namespace

StagingFolder::StagingFolder(FileSystem& file_system, const std::string& root)
    : file_system_(file_system),
      name_(str_cat(kStagingPrefix, "-", ::getpid())),
      path_(path_join(root, name_)) {}

StagingFolder::~StagingFolder() { (void)file_system_.remove_all(path_); }

Result<void> StagingFolder::create() {
  (void)file_system_.remove_all(path_);
  return file_system_.create_directories(path_);
}

std::string StagedFiles::source(const std::string& rel) const {
  auto winner = source_of.find(rel);
  if (winner == source_of.end()) return in_backticks(rel);
  const std::string& wheel = wheels[winner->second];
  auto member = member_of.find({winner->second, rel});
  return member == member_of.end() || member->second.empty()
             ? str_cat("wheel ", in_backticks(wheel), "'s installed metadata")
             : str_cat(in_backticks(member->second), " of wheel ", in_backticks(wheel));
}

std::string StagedFiles::staged_rel(const std::string& rel) const {
  auto winner = source_of.find(rel);
  return str_cat(winner == source_of.end() ? std::size_t{0} : winner->second, "/", rel);
}

std::string StagedFiles::staged_path(const std::string& rel) const {
  return path_join(staging, staged_rel(rel));
}

Result<LinkedWheel> stage_wheel(FileSystem& file_system, const PreparedWheel& wheel,
                                const UnpackOptions& options, LinkMode mode) {
  if (wheel.entry) return link_wheel(file_system, wheel.entry->contents, wheel.entry->tree, options, mode);
  return unpack_linked(file_system, wheel.path, options);
}

Result<StagedFiles> stage(const PreparedWheels& prepared, const StageRequest& request,
                          const StagingFolder& staging) {
  const UnpackContext context = context_of(prepared, request, staging.path());
  std::vector<std::optional<Result<LinkedWheel>>> linked = stage_all(context);
  std::vector<LinkedWheel*> wheels;
  for (std::size_t i = 0; i < prepared.wheels.size(); ++i) {
    Result<LinkedWheel>& result = *linked[i];
    if (!result) return std::move(result).error().with_note(unchanged_note(request.root));
    WV_TRY(check_unpacked(prepared.wheels[i], result->unpacked, request.root));
    wheels.push_back(&*result);
  }
  if (request.options.compile_bytecode) {
    if (Result<void> compiled = compile_all(wheels, request, staging.path()); !compiled) {
      return std::move(compiled).error().with_note(unchanged_note(request.root));
    }
  }
  StagedFiles staged;
  staged.staging = staging.path();
  for (std::size_t i = 0; i < prepared.wheels.size(); ++i) {
    const PreparedWheel& wheel = prepared.wheels[i];
    staged.wheels.push_back(wheel.item->file ? wheel.item->file->name
                                             : std::string(path_filename(wheel.path)));
    WV_TRY(write_record(request.file_system, *wheels[i], wheel_staging(staging.path(), i)));
    staged.links.add(wheels[i]->counts);
    merge(i, wheels[i]->unpacked, staged);
  }
  WV_TRY(check_file_over_folder(staged, request.root));
  return staged;
}

}  // namespace wv::install
