#include "src/install/direct_url.h"

#include <filesystem>

#include "src/base/json_writer.h"
#include "src/base/url.h"
#include "src/install/built_sources.h"

namespace wv::install {
namespace fs = std::filesystem;
namespace {

// `file://` and the absolute path, percent-encoded where a URL needs it (PEP 610 wants a URL);
// a folder without its trailing `/`, as pip writes it.
std::string file_url(const std::string& path) {
  return "file://" + percent_encode(absolute_path(path), "/");
}

// The file's own URL when the lock names it by one (https:// or file://), else the file:// URL
// of its verified local copy.
std::string url_of(const lock::LockedFile& file, const std::string& local_path) {
  return file.url.empty() ? file_url(local_path) : file.url;
}

// PEP 610 `archive_info`: `hashes`, and the legacy `hash` older readers look for.
void archive_info(JsonWriter& json, const lock::LockedFile& file) {
  json.key("archive_info").begin_object();
  json.field("hash", "sha256=" + file.sha256);
  json.key("hashes").begin_object().field("sha256", file.sha256).end();
  json.end();
}

}  // namespace

bool is_direct_reference(const lock::LockedPackage& package) {
  return package.directory || package.vcs || package.archive ||
         (!package.wheels.empty() && package.index.empty());
}

std::string direct_url_json(const lock::LockedPackage& package, const lock::LockedFile* wheel,
                            const std::string& local_path, const SyncOptions& options) {
  if (!is_direct_reference(package)) return "";
  JsonWriter json;
  json.begin_object();
  if (wheel != nullptr) {
    json.field("url", url_of(*wheel, local_path));
    archive_info(json, *wheel);
  } else if (package.vcs) {
    const lock::LockedVcs& vcs = *package.vcs;
    json.field("url", vcs.url.empty() ? file_url((fs::path(options.lock_dir) / vcs.path).string())
                                      : vcs.url);
    json.key("vcs_info").begin_object().field("vcs", vcs.type).field("commit_id", vcs.commit_id);
    if (!vcs.requested_revision.empty()) json.field("requested_revision", vcs.requested_revision);
    json.end();
    if (!vcs.subdirectory.empty()) json.field("subdirectory", vcs.subdirectory);
  } else if (package.directory) {
    json.field("url", file_url(source_directory(package, options)));
    json.key("dir_info").begin_object();
    if (installs_editable(package, options)) json.field("editable", true);
    json.end();
  } else if (package.archive) {
    json.field("url", url_of(package.archive->file, local_path));
    archive_info(json, package.archive->file);
    if (!package.archive->subdirectory.empty()) {
      json.field("subdirectory", package.archive->subdirectory);
    }
  } else {
    return "";  // nothing here names a file the spec could record
  }
  json.end();
  return json.text();
}

}  // namespace wv::install
