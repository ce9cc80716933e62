// Zip reading for wheels from a local file or a buffer (the one .cc that includes libzip), which
// checks the CRC; the remote range reader is wheel_range.cc.
#include "src/index/wheel_zip.h"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "src/base/str.h"
#include "src/index/zip_corrupt.h"

namespace wv::index {
namespace {

std::string zip_error_text(zip_error_t* error) {
  const char* text = zip_error_strerror(error);
  return text == nullptr ? std::string("unknown libzip error") : std::string(text);
}

struct ZipCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};

// Reads the wanted entry from an opened archive.
Result<std::string> read_from_archive(zip_t* archive, const DistInfoEntry& wanted,
                                      std::string_view what, const SourceLimits& limits) {
  zip_int64_t count = zip_get_num_entries(archive, 0);
  std::vector<std::string> names;
  names.reserve(count > 0 ? static_cast<std::size_t>(count) : 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* name = zip_get_name(archive, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    names.emplace_back(name == nullptr ? "" : name);
  }
  WV_ASSIGN_OR_RETURN(std::size_t index, find_dist_info_entry(names, wanted, what));
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE)) {
    return corrupt(what, str_cat("cannot stat ", in_backticks(names[index])));
  }
  if (stat.size > limits.max_metadata_bytes) {
    return limit_error(Limit::kMetadataBytes,
                       str_cat(in_backticks(names[index]), " in ", in_backticks(what)), stat.size,
                       limits.max_metadata_bytes);
  }
  std::unique_ptr<zip_file_t, ZipFileCloser> file(zip_fopen_index(archive, index, 0));
  if (!file) {
    return corrupt(what, str_cat("cannot open ", in_backticks(names[index]), ": ",
                                 zip_error_text(zip_get_error(archive))));
  }
  std::string content(static_cast<std::size_t>(stat.size), '\0');
  std::size_t filled = 0;
  while (filled < content.size()) {
    zip_int64_t got = zip_fread(file.get(), content.data() + filled, content.size() - filled);
    if (got < 0) {
      return corrupt(what, str_cat("cannot read ", in_backticks(names[index]), ": ",
                                   zip_error_text(zip_file_get_error(file.get()))));
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  if (filled != content.size()) {
    return corrupt(what, str_cat(in_backticks(names[index]), " is truncated"));
  }
  // One more read reaches the end of the entry, where libzip checks the CRC.
  char extra = 0;
  if (zip_fread(file.get(), &extra, 1) != 0) {
    return corrupt(what, str_cat(in_backticks(names[index]), " fails its CRC or size check"));
  }
  return content;
}

}  // namespace

Result<std::size_t> find_dist_info_entry(const std::vector<std::string>& names,
                                         const DistInfoEntry& wanted, std::string_view what) {
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string_view name = names[i];
    std::size_t slash = name.find('/');
    if (slash == std::string_view::npos || name.substr(slash + 1) != wanted.leaf) continue;
    std::string_view folder = name.substr(0, slash);
    if (folder.size() > 10 && folder.substr(folder.size() - 10) == ".dist-info") {
      candidates.push_back(i);
    }
  }
  if (candidates.size() > 1) {
    // Several dist-info folders: keep those named after the project (`{name}-{version}.dist-info`).
    std::vector<std::size_t> named;
    for (std::size_t index : candidates) {
      std::string_view folder = std::string_view(names[index]).substr(0, names[index].find('/'));
      std::string_view stem = folder.substr(0, folder.find('-'));
      if (pkg::normalize_name(stem) == wanted.project.str()) named.push_back(index);
    }
    if (named.size() == 1) return named.front();
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("wheel ", in_backticks(what), " has ", candidates.size(),
                              " `.dist-info` folders with a ", in_backticks(wanted.leaf),
                              ", none of them clearly its own"));
  }
  if (candidates.empty()) {
    return make_error(ErrorCode::kNotFound, str_cat("wheel ", in_backticks(what), " has no `*.dist-info/",
                                                    wanted.leaf, "`"));
  }
  return candidates.front();
}

Result<std::string> read_dist_info_file(const std::string& zip_path, const DistInfoEntry& wanted,
                                        const SourceLimits& limits) {
  int error_code = 0;
  std::unique_ptr<zip_t, ZipCloser> archive(zip_open(zip_path.c_str(), ZIP_RDONLY, &error_code));
  if (!archive) {
    zip_error_t error;
    zip_error_init_with_code(&error, error_code);
    std::string text = zip_error_text(&error);
    zip_error_fini(&error);
    ErrorCode code = error_code == ZIP_ER_NOENT ? ErrorCode::kNotFound
                     : error_code == ZIP_ER_OPEN || error_code == ZIP_ER_READ ? ErrorCode::kIo
                                                                               : ErrorCode::kParse;
    return make_error(code, str_cat("cannot open wheel ", in_backticks(zip_path), ": ", text));
  }
  return read_from_archive(archive.get(), wanted, zip_path, limits);
}

Result<std::string> read_dist_info_from_buffer(std::string_view zip_bytes,
                                               const DistInfoEntry& wanted, std::string_view what,
                                               const SourceLimits& limits) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(zip_bytes.data(), zip_bytes.size(), 0, &error);
  if (source == nullptr) {
    std::string text = zip_error_text(&error);
    zip_error_fini(&error);
    return corrupt(what, text);
  }
  zip_t* raw = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (raw == nullptr) {
    zip_source_free(source);
    std::string text = zip_error_text(&error);
    zip_error_fini(&error);
    return corrupt(what, text);
  }
  zip_error_fini(&error);
  std::unique_ptr<zip_t, ZipCloser> archive(raw);
  return read_from_archive(archive.get(), wanted, what, limits);
}

}  // namespace wv::index
