// Masking and stripping URL user-info (base/credentials.h).
#include "src/base/credentials.h"

#include "src/base/str.h"

namespace wv {
namespace {

// RFC 3986 authority = [ userinfo "@" ] host [ ":" port ], all of it drawn from unreserved,
// pct-encoded, sub-delims, ":", "@" and the IP-literal brackets. Anything else (a path's `/`,
// a backtick or space in prose) ends it. A sub-delim such as `'` or `)` is legal in a password,
// so prose punctuation right after a host is taken in too: that only ever hides more.
bool is_authority_char(char c) {
  return is_ascii_alnum(c) || std::string_view("-._~%!$&'()*+,;=:@[]").find(c) != std::string_view::npos;
}

// The scheme that ends at `scheme_end` (its `://`), lower-cased letters as written.
std::string_view scheme_before(std::string_view text, std::size_t scheme_end) {
  std::size_t start = scheme_end;
  while (start > 0 && (is_ascii_alnum(text[start - 1]) || text[start - 1] == '+' ||
                       text[start - 1] == '-' || text[start - 1] == '.')) {
    --start;
  }
  return text.substr(start, scheme_end - start);
}

// Rewrites the user-info of each URL authority in `text`: with `mask` set it becomes
// `****@`, else it is dropped with its `@`.
std::string rewrite_user_info(std::string_view text, bool mask) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;      // what is copied to `out` so far
  std::size_t search = 0;  // where the next `://` may start
  while (true) {
    const std::size_t scheme_end = text.find("://", search);
    if (scheme_end == std::string_view::npos) break;
    const std::size_t authority = scheme_end + 3;
    std::size_t end = authority;
    while (end < text.size() && is_authority_char(text[end])) ++end;
    const std::string_view host_part = text.substr(authority, end - authority);
    const std::size_t last_at = host_part.rfind('@');
    out.append(text.substr(at, authority - at));
    // An empty user-info (`http://@host`) hides nothing and stays as it is; so does an ssh
    // account name (`git+ssh://git@host`): keys authenticate, and the name is part of the
    // address a lock or an export must keep.
    const bool ssh_account = last_at != std::string_view::npos &&
                             host_part.substr(0, last_at).find(':') == std::string_view::npos &&
                             scheme_before(text, scheme_end).find("ssh") != std::string_view::npos;
    if (last_at != std::string_view::npos && last_at > 0 && !ssh_account) {
      if (mask) out += "****@";
      out.append(host_part.substr(last_at + 1));
    } else {
      out.append(host_part);
    }
    at = end;
    // A run that ends in `:` stopped at the `//` of a URL glued on (`a@b,https://u:p@h`).
    search = end > authority && text[end - 1] == ':' ? end - 1 : end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace

std::string redact_credentials(std::string_view text) { return rewrite_user_info(text, true); }

std::string strip_credentials(std::string_view url) { return rewrite_user_info(url, false); }

bool carries_credentials(std::string_view url) { return strip_credentials(url) != url; }

}  // namespace wv
