// Fetching and building what the plan installs.
#include "src/install/prepare.h"

#include "src/base/file_system.h"
#include "src/base/log.h"
#include "src/base/str.h"
#include "src/install/built_sources.h"
#include "src/install/wheel_link.h"

#include <atomic>
#include <thread>

namespace wv::install {
namespace {

// Wheels of at least this size are extracted one at a time on every core; smaller ones side
// by side, one core each (a wheel of a few files cannot use more).
constexpr std::uint64_t kBigWheelBytes = 16ull << 20;

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

// The locked wheels whose entry is in the cache are prepared already: they are not fetched.
Result<void> take_cached(Fetches& fetches, UnpackedCache& cache, const WheelStore& store,
                         PreparedWheels& prepared) {
  Fetches rest;
  rest.builds = fetches.builds;
  for (std::size_t i = 0; i < fetches.wanted.size(); ++i) {
    const PlanItem* item = fetches.wanted[i];
    std::optional<CacheEntry> entry;
    if (item->build == nullptr) {
      WV_ASSIGN_OR_RETURN(entry, cache.find(item->file->sha256));
    }
    if (!entry) {
      rest.wanted.push_back(item);
      rest.files.push_back(fetches.files[i]);
      continue;
    }
    prepared.wheels.push_back({item, store.local_path(*item->file), std::move(entry)});
    ++prepared.cache_hits;
  }
  fetches = std::move(rest);
  return {};
}

// The check get() would have made of a wheel handed over unverified.
Result<void> verify(const PreparedWheel& wheel) {
  const lock::LockedFile& file = *wheel.item->file;
  return verify_file(wheel.path, file.sha256, file.size, file.name);
}

// Every wheel still unverified, checked in plan order: the first failure is what fetching
// them all before extracting any would have reported.
Result<void> check_unverified(PreparedWheels& prepared, const std::string& root) {
  for (PreparedWheel& wheel : prepared.wheels) {
    if (!wheel.unverified) continue;
    if (Result<void> checked = verify(wheel); !checked) {
      return std::move(checked).error().with_note(unchanged_note(root));
    }
    wheel.unverified = false;
  }
  return {};
}

// `defer`: the cache extracts what is fetched, so a local wheel is checked as it is extracted
// (extract_one), not read once more before.
Result<void> fetch_all(const Fetches& fetches, WheelStore& store, const std::string& root,
                       bool defer, PreparedWheels& prepared) {
  std::vector<std::string> deferred(fetches.files.size());
  std::vector<const lock::LockedFile*> asked;
  for (std::size_t i = 0; i < fetches.files.size(); ++i) {
    if (defer && fetches.wanted[i]->build == nullptr) {
      deferred[i] = store.unverified_path(*fetches.files[i]);
    }
    if (deferred[i].empty()) asked.push_back(fetches.files[i]);
  }
  std::vector<Result<std::string>> paths = store.get_all(asked);
  if (paths.size() != asked.size()) {
    return make_error(ErrorCode::kIo, "the wheel store answered a different number of files");
  }
  for (std::size_t i = 0, j = 0; i < fetches.files.size(); ++i) {
    const PlanItem* item = fetches.wanted[i];
    if (!deferred[i].empty()) {
      prepared.wheels.push_back({item, std::move(deferred[i]), std::nullopt, true});
      continue;
    }
    Result<std::string>& path = paths[j++];
    if (!path) {
      WV_TRY(check_unverified(prepared, root));  // an earlier wheel's failure comes first
      return std::move(path).error().with_note(unchanged_note(root));
    }
    if (item->build != nullptr) {
      prepared.sources[item] = std::move(*path);
    } else {
      prepared.wheels.push_back({item, std::move(*path), std::nullopt});
    }
  }
  return {};
}

// One fetched wheel into the cache; `threads` inflate its members. An unverified big wheel is
// hashed beside its extraction (ExtractOptions::check), a small one before it.
Result<void> extract_one(UnpackedCache& cache, PreparedWheel& wheel, const SyncOptions& options,
                         unsigned threads) {
  ExtractOptions extract;
  extract.limits = options.limits;
  extract.wheel_name = wheel.item->file->name;
  extract.threads = threads;
  if (wheel.unverified && wheel.item->file->size.value_or(0) < kBigWheelBytes) {
    WV_TRY(verify(wheel));
    wheel.unverified = false;
  }
  std::optional<Result<void>> checked;  // the check's own answer, once it ran
  if (wheel.unverified) {
    extract.check = [&]() {
      checked = verify(wheel);
      return *checked;
    };
  }
  Result<CacheEntry> entry =
      cache.add(wheel.item->file->sha256, wheel.path, extract, options.reinstall);
  if (checked && !*checked) return std::move(*checked).error();
  if (checked) wheel.unverified = false;
  if (!entry && entry.error().code == ErrorCode::kIo) {
    // The cache's file system failed (full, read-only): the wheel is unpacked in the
    // environment instead, where a real problem with it is reported all the same.
    if (wheel.unverified) WV_TRY(verify(wheel));
    wheel.unverified = false;
    log_warning(str_cat(entry.error().message, "; unpacking ", in_backticks(wheel.item->file->name),
                        " in the environment instead of through the cache"));
    return {};
  }
  if (!entry) return std::move(entry).error();
  WV_TRY(check_layout(entry->contents, entry->wheel));
  wheel.entry = std::move(*entry);
  return {};
}

// Every fetched locked wheel extracted into the cache: big ones first, each on every core, then
// the small ones side by side.
Result<void> extract_all(UnpackedCache& cache, PreparedWheels& prepared, const SyncOptions& options,
                         const std::string& root) {
  std::vector<PreparedWheel*> big;
  std::vector<PreparedWheel*> small;
  for (PreparedWheel& wheel : prepared.wheels) {
    if (wheel.entry || wheel.item->build != nullptr) continue;
    const std::uint64_t size = wheel.item->file->size.value_or(0);
    (size >= kBigWheelBytes ? big : small).push_back(&wheel);
  }
  for (PreparedWheel* wheel : big) {
    if (Result<void> done = extract_one(cache, *wheel, options, 0); !done) {
      WV_TRY(check_unverified(prepared, root));  // a wheel that does not match comes first
      return std::move(done).error().with_note(unchanged_note(root));
    }
  }
  std::vector<std::optional<Error>> errors(small.size());
  std::atomic<std::size_t> next{0};
  auto work = [&]() {
    for (std::size_t i; (i = next.fetch_add(1)) < small.size();) {
      if (Result<void> done = extract_one(cache, *small[i], options, 1); !done) {
        errors[i] = std::move(done).error();
      }
    }
  };
  std::vector<std::thread> threads;
  const std::size_t workers =
      std::min<std::size_t>(small.size(), std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  for (std::optional<Error>& error : errors) {
    if (!error) continue;
    WV_TRY(check_unverified(prepared, root));  // a wheel that does not match comes first
    return std::move(*error).with_note(unchanged_note(root));
  }
  // A wheel the cache's file system refused has no entry: it unpacks in the environment.
  for (const std::vector<PreparedWheel*>* group : {&big, &small}) {
    for (const PreparedWheel* wheel : *group) prepared.extracted += wheel->entry ? 1 : 0;
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

// The one word a sync says about a read-only cache: it is not a problem, and it explains why
// the sync unpacks and copies more than a sync with a writable cache.
void note_read_only(const std::string& cache_dir) {
  log_info(str_cat("note: the cache ", in_backticks(cache_dir),
                   " is read-only for this user: wheels are read from it, unpacked or copied "
                   "into the environment, and nothing is written to it"));
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
                               const std::string& root, FileSystem& file_system) {
  const Fetches fetches = fetches_of(plan);
  WV_TRY(check_buildable(fetches.builds, options));
  PreparedWheels prepared;
  Fetches wanted = fetches;
  std::optional<UnpackedCache> cache;
  if (!options.cache_dir.empty()) {
    // A cache this user cannot write (a site-wide one another user filled) is only read:
    // its entries are linked (copied where hard links to another user's files are refused),
    // the other wheels unpack in the environment, and nothing is written to it.
    const bool read_only = !cache_writable(options.cache_dir);
    if (read_only && !fetches.wanted.empty()) note_read_only(options.cache_dir);
    cache.emplace(file_system, options.cache_dir, read_only);
    Result<CacheLock> lock = read_only ? CacheLock::acquire_read_only(cache->root())
                                       : CacheLock::acquire(cache->root(), false);
    if (lock) {
      prepared.cache_lock = std::move(*lock);
      if (!options.reinstall) WV_TRY(take_cached(wanted, *cache, store, prepared));
    } else if (read_only) {
      log_debug(str_cat("cache: ", lock.error().message, "; no unpacked wheels are read from it"));
      cache.reset();
    } else {
      // A cache that cannot be used (read-only, not a folder) costs speed, not the sync.
      log_warning(str_cat(lock.error().message, "; unpacking each wheel in the environment "
                                                "instead of through the cache"));
      cache.reset();
    }
  }
  const bool extracts = cache && !cache->read_only();
  WV_TRY(fetch_all(wanted, store, root, extracts, prepared));
  if (extracts) WV_TRY(extract_all(*cache, prepared, options, root));
  if (prepared.extracted > 0) prepared.flush = std::make_unique<BackgroundFlush>(cache->root());
  WV_TRY(check_unverified(prepared, root));  // none is left: extract_all checked each
  WV_TRY(build_all(fetches.builds, options, root, prepared));
  return prepared;
}

}  // namespace wv::install
