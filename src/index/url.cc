// RFC 3986 reference resolution and the small URL helpers of url.h.
#include "src/index/url.h"

#include <vector>

#include "src/base/percent.h"
#include "src/base/str.h"

namespace wv::index {
namespace {

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

// The parts of an RFC 3986 URI reference (§3): scheme, authority, path, query, fragment.
struct UriParts {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};

// Appendix B's regular expression, hand-written.
UriParts split_uri(std::string_view text) {
  UriParts parts;
  std::size_t pos = 0;
  if (has_url_scheme(text)) {
    std::size_t colon = text.find(':');
    parts.scheme = std::string(text.substr(0, colon));
    pos = colon + 1;
  }
  if (text.substr(pos, 2) == "//") {
    std::size_t end = text.find_first_of("/?#", pos + 2);
    if (end == std::string_view::npos) end = text.size();
    parts.authority = std::string(text.substr(pos + 2, end - pos - 2));
    pos = end;
  }
  std::size_t end = text.find_first_of("?#", pos);
  if (end == std::string_view::npos) end = text.size();
  parts.path = std::string(text.substr(pos, end - pos));
  pos = end;
  if (pos < text.size() && text[pos] == '?') {
    end = text.find('#', pos);
    if (end == std::string_view::npos) end = text.size();
    parts.query = std::string(text.substr(pos + 1, end - pos - 1));
    pos = end;
  }
  if (pos < text.size() && text[pos] == '#') parts.fragment = std::string(text.substr(pos + 1));
  return parts;
}

// §5.2.4.
std::string remove_dot_segments(std::string_view input) {
  std::vector<std::string_view> output;
  bool absolute = !input.empty() && input.front() == '/';
  std::vector<std::string_view> segments = split(absolute ? input.substr(1) : input, '/');
  bool trailing_slash = false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::string_view segment = segments[i];
    bool last = i + 1 == segments.size();
    if (segment == ".") {
      if (last) trailing_slash = true;
    } else if (segment == "..") {
      // A relative path keeps the `..` it cannot cancel ("../x" stays "../x").
      if (!absolute && (output.empty() || output.back() == "..")) {
        output.push_back(segment);
      } else if (!output.empty()) {
        output.pop_back();
      }
      if (last) trailing_slash = true;
    } else {
      output.push_back(segment);
      trailing_slash = false;
    }
  }
  std::string result = absolute ? "/" : "";
  result += join(output, "/");
  if (trailing_slash && !output.empty()) result += '/';
  return result;
}

// §5.2.3.
std::string merge_paths(const UriParts& base, std::string_view reference_path) {
  if (base.authority && base.path.empty()) return str_cat("/", reference_path);
  std::size_t slash = base.path.rfind('/');
  if (slash == std::string::npos) return std::string(reference_path);
  return str_cat(std::string_view(base.path).substr(0, slash + 1), reference_path);
}

std::string compose(const UriParts& parts) {
  std::string out;
  if (parts.scheme) out += *parts.scheme + ":";
  if (parts.authority) out += "//" + *parts.authority;
  out += parts.path;
  if (parts.query) out += "?" + *parts.query;
  if (parts.fragment) out += "#" + *parts.fragment;
  return out;
}

}  // namespace

bool is_http_url(std::string_view url) {
  return starts_with_ci(url, "http://") || starts_with_ci(url, "https://");
}

bool is_file_url(std::string_view url) { return wv::is_file_url(url); }

bool has_url_scheme(std::string_view text) {
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (wvlock has no Windows drive letters).
  if (text.empty() || !is_ascii_alpha(text[0])) return false;
  std::size_t i = 1;
  while (i < text.size() && (is_ascii_alnum(text[i]) || text[i] == '+' || text[i] == '-' ||
                             text[i] == '.')) {
    ++i;
  }
  return i < text.size() && text[i] == ':';
}

std::string percent_decode(std::string_view text) { return wv::percent_decode(text); }

std::string percent_encode_path(std::string_view path) {
  return percent_encode(path, "/+=@:,!");
}

std::optional<std::string> file_url_to_path(std::string_view url) {
  return wv::file_url_to_path(url);
}

std::string path_to_file_url(std::string_view absolute_path) {
  return str_cat("file://", percent_encode_path(absolute_path));
}

std::string resolve_url(std::string_view base, std::string_view reference) {
  if (has_url_scheme(reference)) {
    UriParts parts = split_uri(reference);
    parts.path = remove_dot_segments(parts.path);
    return compose(parts);
  }
  if (!has_url_scheme(base)) {
    // A local path: the reference is a (percent-encoded) path relative to the page's folder.
    std::string decoded = percent_decode(strip_fragment(reference));
    std::size_t query = decoded.find('?');
    if (query != std::string::npos) decoded.resize(query);
    if (!decoded.empty() && decoded.front() == '/') return remove_dot_segments(decoded);
    std::string_view base_view = base;
    std::size_t slash = base_view.rfind('/');
    std::string joined = slash == std::string_view::npos
                             ? decoded
                             : str_cat(base_view.substr(0, slash + 1), decoded);
    if (joined.empty()) return joined;
    bool relative = joined.front() != '/';
    std::string normalised = remove_dot_segments(joined);
    // Keep a relative result relative ("./a" and "a" name the same file).
    if (relative && normalised.empty()) return ".";
    return normalised;
  }
  UriParts base_parts = split_uri(base);
  UriParts ref = split_uri(reference);
  UriParts target;
  target.scheme = base_parts.scheme;
  if (ref.authority) {
    target.authority = ref.authority;
    target.path = remove_dot_segments(ref.path);
    target.query = ref.query;
  } else {
    target.authority = base_parts.authority;
    if (ref.path.empty()) {
      target.path = base_parts.path;
      target.query = ref.query ? ref.query : base_parts.query;
    } else {
      target.path = ref.path.front() == '/' ? remove_dot_segments(ref.path)
                                            : remove_dot_segments(merge_paths(base_parts, ref.path));
      target.query = ref.query;
    }
  }
  target.fragment = ref.fragment;
  return compose(target);
}

std::string_view strip_fragment(std::string_view url) {
  std::size_t hash = url.find('#');
  return hash == std::string_view::npos ? url : url.substr(0, hash);
}

std::string_view url_fragment(std::string_view url) {
  std::size_t hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view() : url.substr(hash + 1);
}

std::optional<std::pair<std::string, std::string>> parse_hash_pair(std::string_view text) {
  text = trim(text);
  std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  std::string name = to_lower(trim(text.substr(0, equals)));
  std::string digest = to_lower(trim(text.substr(equals + 1)));
  if (name.empty() || digest.empty()) return std::nullopt;
  for (char c : name) {
    if (!is_ascii_alnum(c) && c != '_' && c != '-') return std::nullopt;
  }
  // Checked here, not by hex_digit_value() (another file, a call per character): a page
  // carries two 64-digit digests per file.
  for (char c : digest) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  return std::make_pair(std::move(name), std::move(digest));
}

std::string url_filename(std::string_view url) {
  url = strip_fragment(url);
  std::size_t query = url.find('?');
  if (query != std::string_view::npos) url = url.substr(0, query);
  std::size_t slash = url.rfind('/');
  return percent_decode(slash == std::string_view::npos ? url : url.substr(slash + 1));
}

std::string with_trailing_slash(std::string_view url) {
  std::string out(url);
  if (out.empty() || out.back() != '/') out.push_back('/');
  return out;
}

}  // namespace wv::index
