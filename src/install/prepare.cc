// Fetching and building what the plan installs.
#include "install/prepare.h"

#include "base/file_system.h"
#include "base/str.h"
#include "install/built_sources.h"

namespace wv::install {
namespace {

// What the store is asked for: each installed wheel, and each built package's source archive.
struct Fetches {
  std::vector<const PlanItem*> wanted;
  std::vector<const lock::LockedFile*> files;  ///< one per `wanted`
  std::vector<const PlanItem*> builds;
};

Fetches fetches_of(const Plan& plan) {
  Fetches fetches;
  for (const PlanItem& item : plan.items) {
    if (!installs_files(item.action)) continue;
    if (item.build != nullptr) {
      fetches.builds.push_back(&item);
      if (const lock::LockedFile* source = source_file(*item.build)) {
        fetches.wanted.push_back(&item);
        fetches.files.push_back(source);
      }
      continue;
    }
    fetches.wanted.push_back(&item);
    fetches.files.push_back(item.file);
  }
  return fetches;
}

Result<void> fetch_all(const Fetches& fetches, WheelStore& store, const std::string& root,
                       PreparedWheels& prepared) {
  std::vector<Result<std::string>> paths = store.get_all(fetches.files);
  if (paths.size() != fetches.files.size()) {
    return make_error(ErrorCode::kIo, "the wheel store answered a different number of files");
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (!paths[i]) return std::move(paths[i]).error().with_note(unchanged_note(root));
    const PlanItem* item = fetches.wanted[i];
    if (item->build != nullptr) {
      prepared.sources[item] = std::move(*paths[i]);
    } else {
      prepared.wheels.push_back({item, std::move(*paths[i])});
    }
  }
  return {};
}

// Each built package's wheel, built for this environment's interpreter.
Result<void> build_all(const std::vector<const PlanItem*>& builds, const SyncOptions& options,
                       const std::string& root, PreparedWheels& prepared) {
  for (const PlanItem* item : builds) {
    BuildRequest request;
    request.package = item->build;
    request.archive_path = prepared.archive_of(item);
    request.directory = source_directory(*item->build, options);
    request.editable = installs_editable(*item->build, options);
    request.python = path_join(root, "bin/python");
    Result<std::string> built = options.builder->build_wheel(request);
    if (!built) return std::move(built).error().with_note(unchanged_note(root));
    prepared.wheels.push_back({item, std::move(*built)});
  }
  return {};
}

}  // namespace

std::string unchanged_note(const std::string& root) {
  return str_cat("nothing was changed in ", in_backticks(root));
}

std::string PreparedWheels::archive_of(const PlanItem* item) const {
  auto archive = sources.find(item);
  return archive == sources.end() ? std::string() : archive->second;
}

Result<PreparedWheels> prepare(const Plan& plan, const SyncOptions& options, WheelStore& store,
                               const std::string& root) {
  const Fetches fetches = fetches_of(plan);
  WV_TRY(check_buildable(fetches.builds, options));
  PreparedWheels prepared;
  WV_TRY(fetch_all(fetches, store, root, prepared));
  WV_TRY(build_all(fetches.builds, options, root, prepared));
  return prepared;
}

}  // namespace wv::install
