// libzip handles that close themselves, and opening an archive as an error value: what every
// reader of zip files (wheels here, .zip sdists and built wheels in src/build) shares.
#pragma once

#include <zip.h>

#include <memory>
#include <string>
#include <string_view>

#include "src/base/result.h"
#include "src/base/str.h"

namespace wv::install {

struct ZipCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;
using ZipFilePtr = std::unique_ptr<zip_file_t, ZipFileCloser>;

inline std::string zip_error_text(zip_error_t* error) {
  const char* text = zip_error_strerror(error);
  return text == nullptr ? std::string("unknown libzip error") : std::string(text);
}

/// Opens `path` read-only with the consistency checks; kIntegrity "WHAT is not a valid zip: ..."
/// when libzip refuses it (`what` names it: "wheel `x.whl`"). `checked`: a handle opened with
/// them already vouches for this file, so this one skips them (they read every member's local
/// header: 35 ms of a 12,000-member wheel's 60 ms open).
inline Result<ZipPtr> open_zip(const std::string& path, std::string_view what,
                               bool checked = false) {
  int error_code = 0;
  ZipPtr archive(zip_open(path.c_str(), ZIP_RDONLY | (checked ? 0 : ZIP_CHECKCONS), &error_code));
  if (archive) return archive;
  zip_error_t error;
  zip_error_init_with_code(&error, error_code);
  std::string text = zip_error_text(&error);
  zip_error_fini(&error);
  return make_error(ErrorCode::kIntegrity, str_cat(what, " is not a valid zip: ", text));
}

}  // namespace wv::install
