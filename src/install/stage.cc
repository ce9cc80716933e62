// Unpacking the prepared wheels in parallel and merging what they install.
#include "install/stage.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "base/str.h"
#include "install/direct_url.h"
#include "install/environment.h"
#include "install/requested.h"

namespace wv::install {
namespace {

/// Wheels unpacked at once (bounded: unpacking is mostly file creation).
constexpr std::size_t kMaxUnpackThreads = 8;

// What the unpack options of every wheel are made from. Each dist-info also records whether
// the package was asked for (REQUESTED) and, when the lock names it by location, where from
// (direct_url.json).
struct UnpackContext {
  const PreparedWheels& prepared;
  const StageRequest& request;
  const std::string& staging;
  std::set<std::string> requested;
  std::map<std::string, const lock::LockedPackage*> entry_of;
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
  const auto& [item, path] = context.prepared.wheels[number];
  const SyncOptions& options = context.request.options;
  UnpackOptions unpack;
  unpack.scheme = context.request.scheme;
  unpack.staging = str_cat(context.staging, "/", number);
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

// Every wheel unpacked, in parallel, each into its own numbered folder.
std::vector<std::optional<Result<UnpackedWheel>>> unpack_all(const UnpackContext& context) {
  const std::vector<PreparedWheel>& wheels = context.prepared.wheels;
  std::vector<std::optional<Result<UnpackedWheel>>> unpacked(wheels.size());
  std::atomic<std::size_t> next{0};
  auto work = [&]() {
    for (std::size_t i; (i = next.fetch_add(1)) < wheels.size();) {
      unpacked[i] = stage_wheel(*wheels[i].item, wheels[i].path, unpack_options_for(i, context));
    }
  };
  std::size_t workers = std::min<std::size_t>(
      {wheels.size(), std::max(1u, std::thread::hardware_concurrency()), kMaxUnpackThreads});
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  return unpacked;
}

// The unpacked wheel is the distribution the plan item names (and, built here, its version).
Result<void> check_unpacked(const PreparedWheel& wheel, const UnpackedWheel& unpacked,
                            const std::string& root) {
  const PlanItem& item = *wheel.item;
  if (unpacked.name != item.name) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(item.file ? item.file->name : wheel.path), " installs ",
                              in_backticks(unpacked.name), ", the lock expects ",
                              in_backticks(item.name)));
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
Result<void> check_file_over_folder(const StagedFiles& staged, const std::string& root) {
  namespace fs = std::filesystem;  // lexical only
  for (const std::string& rel : staged.placed) {
    for (fs::path parent = fs::path(rel).parent_path(); !parent.empty();
         parent = parent.parent_path()) {
      if (staged.source_of.count(parent.generic_string())) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat(staged.source(parent.generic_string()), " installs a file at ",
                                  in_backticks(parent.generic_string()), ", and ",
                                  staged.source(rel), " installs ", in_backticks(rel),
                                  " inside it"))
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

Result<UnpackedWheel> stage_wheel(const PlanItem& /*item*/, const std::string& wheel_path,
                                  const UnpackOptions& options) {
  return unpack_wheel(wheel_path, options);
}

Result<StagedFiles> stage(const PreparedWheels& prepared, const StageRequest& request,
                          const StagingFolder& staging) {
  std::vector<std::optional<Result<UnpackedWheel>>> unpacked =
      unpack_all(context_of(prepared, request, staging.path()));
  StagedFiles staged;
  staged.staging = staging.path();
  for (std::size_t i = 0; i < prepared.wheels.size(); ++i) {
    const PreparedWheel& wheel = prepared.wheels[i];
    staged.wheels.push_back(wheel.item->file ? wheel.item->file->name
                                             : std::string(path_filename(wheel.path)));
    Result<UnpackedWheel>& result = *unpacked[i];
    if (!result) return std::move(result).error().with_note(unchanged_note(request.root));
    WV_TRY(check_unpacked(wheel, *result, request.root));
    merge(i, *result, staged);
  }
  WV_TRY(check_file_over_folder(staged, request.root));
  return staged;
}

}  // namespace wv::install
