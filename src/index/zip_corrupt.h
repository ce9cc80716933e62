// Internal to src/index's wheel readers: the error of a wheel that is not a valid zip, one
// text for the libzip reader (wheel_zip.cc) and the range reader (wheel_range.cc).
#pragma once

#include <string_view>

#include "src/base/result.h"
#include "src/base/str.h"

namespace wv::index {

inline Error corrupt(std::string_view what, std::string_view detail) {
  return make_error(ErrorCode::kParse,
                    str_cat("wheel ", in_backticks(what), " is not a valid zip: ", detail));
}

}  // namespace wv::index
