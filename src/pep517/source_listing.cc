#include "src/pep517/source_listing.h"

#include <filesystem>

#include "src/base/contained_path.h"
#include "src/base/credentials.h"
#include "src/base/file_system.h"
#include "src/base/url.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/pkg/metadata.h"
#include "src/pkg/wheel_filename.h"

namespace wv::build {
namespace fs = std::filesystem;
namespace {

std::string leaf_of(std::string_view location) {
  const std::size_t slash = location.find_last_of('/');
  return std::string(slash == std::string_view::npos ? location : location.substr(slash + 1));
}

}  // namespace

DirectPackageSource::DirectPackageSource(pkg::DirectSource source, pkg::PackageName name,
                                         Builder& builder, FetchFile fetch)
    : source_(std::move(source)), name_(std::move(name)), builder_(builder), fetch_(std::move(fetch)) {}

Result<std::string> DirectPackageSource::local_archive() {
  if (!local_.empty()) return local_;
  if (is_url(source_.location)) {
    WV_ASSIGN_OR_RETURN(local_, fetch_(source_.location, source_.sha256));
  } else {
    std::error_code ec;
    if (!fs::is_regular_file(source_.location, ec)) {
      return make_error(ErrorCode::kNotFound,
                        str_cat("the source of ", name_, ", ", in_backticks(source_.location),
                                ", is not a file"));
    }
    local_ = source_.location;
  }
  WV_ASSIGN_OR_RETURN(sha256_, sha256_file_hex(local_));
  if (!source_.sha256.empty() && source_.sha256 != sha256_) {
    return make_error(ErrorCode::kIntegrity,
                      str_cat(in_backticks(source_.location), " has sha256 ", sha256_,
                              ", and its URL says ", source_.sha256));
  }
  return local_;
}

Result<pkg::Distribution> DirectPackageSource::materialize() {
  pkg::Distribution file;
  file.direct = source_;
  file.url = source_.location;
  file.filename = leaf_of(source_.location);
  const std::string what = str_cat(name_, " from ", source_.describe());
  if (source_.kind == pkg::DirectKind::kArchive) {
    WV_ASSIGN_OR_RETURN(std::string local, local_archive());
    file.hashes["sha256"] = sha256_;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(local, ec);
    if (!ec) file.size = size;
    if (file.filename.ends_with(".whl")) {
      file.kind = pkg::DistributionKind::kWheel;
      WV_ASSIGN_OR_RETURN(metadata_, wheel_file_metadata(local));
    } else {
      file.kind = pkg::DistributionKind::kSdist;
      WV_ASSIGN_OR_RETURN(metadata_, builder_.sdist_metadata(local, sha256_, what));
    }
  } else {
    file.kind = pkg::DistributionKind::kSourceTree;
    std::string tree = source_.location;
    std::string cache_key;
    std::string tree_what = str_cat("the folder ", in_backticks(source_.location));
    if (source_.kind == pkg::DirectKind::kGit) {
      GitReference reference{source_.location, source_.tag, source_.branch, source_.rev};
      if (preferred_commit_.empty()) {
        WV_ASSIGN_OR_RETURN(file.commit_id, builder_.git().resolve(reference));
      } else {
        file.commit_id = preferred_commit_;
      }
      WV_ASSIGN_OR_RETURN(tree, builder_.git().checkout(source_.location, file.commit_id));
      file.url = tree;
      cache_key = str_cat("git-", file.commit_id,
                          source_.subdirectory.empty() ? "" : "-" + git_url_key(source_.subdirectory));
      tree_what = str_cat("the checkout of git ", in_backticks(strip_credentials(source_.location)),
                          " at commit ", file.commit_id.substr(0, 12));
    } else if (std::error_code ec; !fs::is_directory(source_.location, ec)) {
      return make_error(ErrorCode::kNotFound,
                        str_cat("the source of ", name_, ", ", in_backticks(source_.location),
                                ", is not a folder"));
    }
    // The subdirectory stays inside the checkout or folder, links followed (contained_path.h);
    // the tree's own files are kept inside it by tree_metadata.
    if (!source_.subdirectory.empty()) {
      WV_ASSIGN_OR_RETURN(tree, resolve_inside(tree, source_.subdirectory, tree_what));
    }
    WV_ASSIGN_OR_RETURN(metadata_, builder_.tree_metadata(tree, what, cache_key));
  }
  WV_ASSIGN_OR_RETURN(pkg::CoreMetadata metadata, pkg::parse_metadata(metadata_));
  if (metadata.name != name_) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat(source_.describe(), " holds ", in_backticks(metadata.name_as_written),
                              ", not ", in_backticks(name_.str())));
  }
  file.name = metadata.name;
  file.version = metadata.version;
  file.requires_python = metadata.requires_python_raw;
  return file;
}

Result<std::vector<pkg::Distribution>> DirectPackageSource::distributions(const pkg::PackageName& name) {
  if (name != name_) {
    return make_error(ErrorCode::kNotFound, str_cat(source_.describe(), " holds only ", name_));
  }
  if (!listed_) {
    listed_ = materialize();
    // kNotFound would read as "not on this index" to the catalog: a missing folder, file or
    // git tag is the project's mistake, and says so.
    if (!*listed_ && listed_->error().code == ErrorCode::kNotFound) {
      Error error = listed_->error();
      error.code = ErrorCode::kInvalidInput;
      listed_ = Result<pkg::Distribution>(std::move(error));
    }
  }
  if (!*listed_) return listed_->error();
  return std::vector<pkg::Distribution>{**listed_};
}

Result<std::string> DirectPackageSource::wheel_metadata(const pkg::Distribution& file) {
  if (!listed_ || !*listed_ || !(file == **listed_)) {
    return make_error(ErrorCode::kNotFound, str_cat(in_backticks(file.filename), " is not from ",
                                                    source_.describe()));
  }
  return metadata_;
}

std::vector<Result<std::string>> DirectPackageSource::wheel_metadata_batch(
    const std::vector<pkg::Distribution>& files) {
  std::vector<Result<std::string>> results;
  for (const pkg::Distribution& file : files) results.push_back(wheel_metadata(file));
  return results;
}

Result<pkg::VariantsMetadata> DirectPackageSource::variants_metadata(const pkg::PackageName&,
                                                                     const pkg::Version&) {
  return make_error(ErrorCode::kNotFound, "a direct source has no variant metadata");
}

Result<std::string> DirectPackageSource::file_sha256(const pkg::Distribution& file) {
  if (file.kind == pkg::DistributionKind::kSourceTree) {
    return make_error(ErrorCode::kInvalidInput, "a source tree has no sha256");
  }
  WV_TRY(local_archive());
  return sha256_;
}

Result<pkg::VariantsMetadata> DirectPackageSource::wheel_variant_metadata(const pkg::Distribution&) {
  return make_error(ErrorCode::kNotFound, "a direct source has no variant metadata");
}

Result<std::string> BuildingSource::wheel_metadata(const pkg::Distribution& file) {
  if (file.kind != pkg::DistributionKind::kSdist) return inner_.wheel_metadata(file);
  WV_ASSIGN_OR_RETURN(std::string sha256, inner_.file_sha256(file));
  std::string local = file.url;
  if (Result<std::string> path = file_url_to_path(local)) local = std::move(*path);
  if (is_url(local)) {
    WV_ASSIGN_OR_RETURN(local, fetch_(file.url, sha256));
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(local, ec);
    if (!ec) fetched_sizes_[file.url] = size;
  }
  return builder_.sdist_metadata(local, sha256,
                                 str_cat(file.name.str(), " ", file.version.to_string(), " (",
                                         file.filename, ")"));
}

std::vector<Result<std::string>> BuildingSource::wheel_metadata_batch(
    const std::vector<pkg::Distribution>& files) {
  std::vector<pkg::Distribution> wheels;
  for (const pkg::Distribution& file : files) {
    if (file.kind != pkg::DistributionKind::kSdist) wheels.push_back(file);
  }
  std::vector<Result<std::string>> fetched = inner_.wheel_metadata_batch(wheels);
  std::vector<Result<std::string>> results;
  std::size_t next = 0;
  for (const pkg::Distribution& file : files) {
    if (file.kind == pkg::DistributionKind::kSdist) {
      results.push_back(wheel_metadata(file));
    } else {
      results.push_back(std::move(fetched[next++]));
    }
  }
  return results;
}

std::vector<bool> BuildingSource::prefetch_metadata(const std::vector<pkg::Distribution>& files) {
  std::vector<pkg::Distribution> wheels;
  for (const pkg::Distribution& file : files) {
    if (file.kind == pkg::DistributionKind::kWheel) wheels.push_back(file);
  }
  std::vector<bool> fetched = inner_.prefetch_metadata(wheels);
  std::vector<bool> ready;
  std::size_t next = 0;
  for (const pkg::Distribution& file : files) {
    ready.push_back(file.kind == pkg::DistributionKind::kWheel && fetched[next++]);
  }
  return ready;
}

}  // namespace wv::build
