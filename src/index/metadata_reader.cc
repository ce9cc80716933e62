// MetadataReader: METADATA and variant.json of wheels, file digests and sizes.
#include "src/index/metadata_reader.h"

#include <utility>

#include "src/base/log.h"
#include "src/base/sha256.h"
#include "src/base/str.h"
#include "src/base/url.h"
#include "src/index/variants_json.h"

namespace wv::index {
namespace {

using pkg::Distribution;
using pkg::DistributionKind;

// The sha256 a listing gives for a file, "" when none.
std::string listed_sha256(const std::map<std::string, std::string>& hashes) {
  auto found = hashes.find("sha256");
  return found == hashes.end() ? std::string() : found->second;
}

bool is_not_found(const Result<std::string>& result) {
  return !result && result.error().code == ErrorCode::kNotFound;
}

}  // namespace

std::string dist_info_cache_key(const Distribution& wheel, std::string_view leaf) {
  const std::string sha256 = to_lower(wheel.sha256());
  if (sha256.empty()) return "";
  return str_cat("wheel-dist-info/", sha256, "/", wheel.name.str(), "/", leaf);
}

std::string file_size_cache_key(const Distribution& file) {
  const std::string sha256 = to_lower(file.sha256());
  if (sha256.empty()) return "";
  return str_cat("file-size/", sha256);
}

Result<std::string> MetadataReader::wheel_metadata(const Distribution& wheel) {
  return cached(metadata_, wheel.url, [&]() -> Result<std::string> {
    Result<std::string> text = read_metadata_uncached(wheel);
    if (!text) {
      return std::move(text).error().with_context(
          str_cat("reading the metadata of ", in_backticks(wheel.filename)));
    }
    return text;
  });
}

std::vector<Result<std::string>> MetadataReader::wheel_metadata_batch(
    const std::vector<Distribution>& wheels) {
  // The remote `.metadata` files as one parallel batch; the rest (local reads, range reads,
  // what the batch did not get) one by one through wheel_metadata().
  (void)prefetch_metadata(wheels);
  std::vector<Result<std::string>> results;
  results.reserve(wheels.size());
  for (const Distribution& wheel : wheels) results.push_back(wheel_metadata(wheel));
  return results;
}

std::vector<bool> MetadataReader::prefetch_metadata(const std::vector<Distribution>& wheels) {
  // The PEP 658 files of remote wheels not yet read go out as one parallel batch; a wheel read
  // locally is ready as it is; one read by range requests (no `.metadata`) is left to
  // wheel_metadata(), one by one.
  std::vector<bool> ready(wheels.size(), false);
  std::vector<FetchRequest> requests;
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const Distribution& wheel = wheels[i];
    if (metadata_.contains(wheel.url) || local_path(wheel.url)) {
      ready[i] = true;
      continue;
    }
    if (fetcher_ == nullptr || !is_http_url(wheel.url) ||
        wheel.core_metadata != pkg::CoreMetadataAvailability::kAvailable) {
      continue;
    }
    bool duplicate = false;
    for (std::size_t owner : owners) duplicate = duplicate || wheels[owner].url == wheel.url;
    if (duplicate) continue;
    requests.push_back(small_file_request(wheel.url + ".metadata", limits_.max_metadata_bytes,
                                          listed_sha256(wheel.core_metadata_hashes),
                                          refresh_.covers(wheel.name)));
    owners.push_back(i);
  }
  if (requests.empty()) return ready;
  std::vector<Result<FetchResponse>> responses = fetcher_->fetch_all(requests);
  for (std::size_t k = 0; k < responses.size(); ++k) {
    Result<FetchResponse>& response = responses[k];
    const Distribution& wheel = wheels[owners[k]];
    // Anything but a good answer is left to the single path, which retries and explains.
    if (!response || response->status != 200) continue;
    stats_.bytes_fetched += response->body.size();
    if (response->body.size() > limits_.max_metadata_bytes) continue;
    if (!check_sha256(response->body, wheel.core_metadata_hashes, "")) continue;
    ++stats_.metadata_pep658;
    metadata_.emplace(wheel.url, Result<std::string>(std::move(response->body)));
  }
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    ready[i] = ready[i] || metadata_.contains(wheels[i].url);
  }
  return ready;
}

Result<std::string> MetadataReader::read_metadata_uncached(const Distribution& wheel) {
  // 1. PEP 658: the `.metadata` file beside the distribution, checked against its hash.
  if (wheel.core_metadata == pkg::CoreMetadataAvailability::kAvailable) {
    std::string metadata_url = wheel.url + ".metadata";
    Result<std::string> text =
        small_files_.read(metadata_url, limits_.max_metadata_bytes, Limit::kMetadataBytes,
                          listed_sha256(wheel.core_metadata_hashes), refresh_.covers(wheel.name));
    if (text) {
      WV_TRY(small_files_.check_sha256_or_refetch(
          *text, metadata_url, limits_.max_metadata_bytes, wheel.core_metadata_hashes,
          str_cat("core metadata file ", in_backticks(metadata_url))));
      ++stats_.metadata_pep658;
      return text;
    }
    // The index promised a file it does not serve: fall back to the wheel itself.
    if (!is_not_found(text)) return text;
    log_debug(str_cat("index lists ", metadata_url, " but it is missing; reading the wheel"));
  }
  // 2. The wheel's own `*.dist-info/METADATA`.
  return read_dist_info(wheel, "METADATA");
}

Result<std::string> MetadataReader::read_dist_info(const Distribution& wheel,
                                                   const std::string& leaf) {
  if (wheel.kind != DistributionKind::kWheel) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(wheel.filename), " is not a wheel: wvlock reads metadata "
                              "of wheels only (it does not build source distributions)"));
  }
  DistInfoEntry wanted{wheel.name, leaf};
  if (std::optional<std::string> path = local_path(wheel.url)) {
    ++stats_.metadata_local_zip;
    return read_dist_info_file(*path, wanted, limits_);
  }
  if (!is_http_url(wheel.url)) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat("cannot read ", in_backticks(wheel.url), ": unsupported URL scheme"));
  }
  if (fetcher_ == nullptr) {
    return make_error(ErrorCode::kUnsupported,
                      str_cat(in_backticks(wheel.url), " is remote but network access is off"));
  }
  // A wheel's dist-info is fixed by its bytes: kept under the wheel's sha256, it serves later
  // runs without range requests (which no response cache keeps), offline runs too.
  const std::string key = dist_info_cache_key(wheel, leaf);
  if (derived_ != nullptr && !key.empty()) {
    if (std::optional<std::string> kept = derived_->load_derived(key)) {
      ++stats_.dist_info_reused;
      return std::move(*kept);
    }
  }
  Result<std::string> content = fetch_remote_dist_info(wheel, wanted);
  if (content && derived_ != nullptr && !key.empty()) derived_->store_derived(key, *content);
  return content;
}

Result<std::string> MetadataReader::fetch_remote_dist_info(const Distribution& wheel,
                                                           const DistInfoEntry& wanted) {
  RangeReadStats range;
  Result<std::string> content =
      fetch_dist_info_file(*fetcher_, wheel.url, wheel.size, wanted, limits_, &range);
  if (content && range.file_size) learn_size(wheel, *range.file_size);
  ++stats_.metadata_range;
  if (range.whole_file) ++stats_.metadata_whole_wheel;
  stats_.range_requests += range.requests;
  stats_.bytes_fetched += range.bytes;
  const bool damaged = !content && (content.error().code == ErrorCode::kParse ||
                                    content.error().code == ErrorCode::kIntegrity);
  if (damaged && !wheel.sha256().empty()) {
    // A range answer that disagrees with itself or the file (kIntegrity) is a damaged transfer
    // too. Bytes read by range carry no hash, and a malformed wheel makes its version unavailable:
    // a transfer damaged on the way must not pass for a broken wheel (the lock would quietly
    // take another version). Read the whole wheel and check it against the index's sha256;
    // only a wheel that matches it and still does not parse is broken.
    WV_ASSIGN_OR_RETURN(std::string whole,
                        refetch_rejected(*fetcher_, wheel.url, limits_.max_wheel_bytes,
                                         content.error(), kOneOffHeader));
    WV_TRY(check_sha256(whole, wheel.hashes, str_cat("wheel ", in_backticks(wheel.url))));
    learn_size(wheel, whole.size());
    return read_dist_info_from_buffer(whole, wanted, wheel.filename, limits_);
  }
  return content;
}

Result<std::string> MetadataReader::file_sha256(const Distribution& file) {
  if (std::string listed = file.sha256(); !listed.empty()) return listed;
  return cached(hashes_, file.url, [&]() -> Result<std::string> {
    if (std::optional<std::string> path = local_path(file.url)) return sha256_file_hex(*path);
    WV_ASSIGN_OR_RETURN(std::string bytes,
                        small_files_.read(file.url, limits_.max_wheel_bytes, Limit::kDownloadBytes));
    learn_size(file, bytes.size());
    return sha256_hex(bytes);
  });
}

void MetadataReader::learn_size(const Distribution& file, std::uint64_t size) {
  sizes_[file.url] = size;
  // Kept with the dist-info files read by range: a later run that reuses those learns the size
  // from here, so its lockfile is the same as this run's.
  const std::string key = file_size_cache_key(file);
  if (derived_ != nullptr && !key.empty()) derived_->store_derived(key, std::to_string(size));
}

std::optional<std::uint64_t> MetadataReader::file_size(const Distribution& file) {
  if (file.size) return file.size;
  if (auto learned = sizes_.find(file.url); learned != sizes_.end()) {
    return learned->second;
  }
  if (std::optional<std::string> path = local_path(file.url)) {
    Result<FileInfo> info = file_system_.stat_followed(*path);  // a linked wheel reads as its target
    if (info && info->type == FileType::kRegular) return info->size;
    return std::nullopt;
  }
  const std::string key = file_size_cache_key(file);
  if (derived_ == nullptr || key.empty()) return std::nullopt;
  std::optional<std::string> kept = derived_->load_derived(key);
  return kept ? parse_uint64(*kept) : std::nullopt;
}

Result<pkg::VariantsMetadata> MetadataReader::wheel_variant_metadata(const Distribution& wheel) {
  return cached(wheel_variants_, wheel.url, [&]() -> Result<pkg::VariantsMetadata> {
    if (wheel.variant_label.empty()) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat(in_backticks(wheel.filename), " is not a variant wheel"));
    }
    WV_ASSIGN_OR_RETURN(std::string text, read_dist_info(wheel, "variant.json"));
    return parse_wheel_variant_json(text, wheel.variant_label, wheel.filename);
  });
}

}  // namespace wv::index
