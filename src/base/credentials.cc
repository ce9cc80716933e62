// Masking and stripping URL user-info (base/credentials.h).
#include "base/credentials.h"

namespace wv {
namespace {

// Rewrites the user-info of each URL authority in `text`: with `mask` set it becomes
// `****@`, else it is dropped with its `@`.
std::string rewrite_user_info(std::string_view text, bool mask) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (true) {
    std::size_t scheme_end = text.find("://", at);
    if (scheme_end == std::string_view::npos) break;
    std::size_t authority = scheme_end + 3;
    std::size_t end = authority;
    // The authority ends at a path, query or fragment, or where the URL itself ends in prose.
    while (end < text.size() && std::string_view("/?#`'\" \t\r\n<>").find(text[end]) ==
                                    std::string_view::npos) {
      ++end;
    }
    std::string_view host_part = text.substr(authority, end - authority);
    std::size_t last_at = host_part.rfind('@');
    out.append(text.substr(at, authority - at));
    if (last_at != std::string_view::npos) {
      if (mask) out += "****@";
      out.append(host_part.substr(last_at + 1));
    } else {
      out.append(host_part);
    }
    at = end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace

std::string redact_credentials(std::string_view text) { return rewrite_user_info(text, true); }

std::string strip_credentials(std::string_view url) { return rewrite_user_info(url, false); }

}  // namespace wv
