#include "src/pkg/direct_source.h"

#include <array>

#include "src/base/str.h"
#include "src/base/url.h"

namespace wv::pkg {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The path of a `file://` URL decoded (base/url.h's one decoder), or the error naming `url`.
Result<std::string> decoded_path(std::string_view text, std::string_view url) {
  std::optional<std::string> decoded = percent_decode(text);
  if (!decoded) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("invalid percent escape in ", in_backticks(url)));
  }
  return std::move(*decoded);
}

// Splits `#subdirectory=x&sha256=y` (also `egg=`, ignored) off a URL.
struct Fragment {
  std::string subdirectory;
  std::string sha256;
};

Result<Fragment> read_fragment(std::string_view fragment, std::string_view url) {
  Fragment result;
  for (std::string_view part : split(fragment, '&')) {
    if (part.empty()) continue;
    const std::size_t equals = part.find('=');
    const std::string_view key = part.substr(0, equals);
    const std::string_view value = equals == std::string_view::npos ? "" : part.substr(equals + 1);
    if (key == "subdirectory") {
      result.subdirectory = std::string(value);
    } else if (key == "sha256") {
      result.sha256 = to_lower(value);
    } else if (key == "egg" || key == "md5" || key == "sha1" || key == "sha384" ||
               key == "sha512" || key == "sha224") {
      continue;  // pip's legacy egg names; weaker or other digests are not checked
    } else {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("unknown fragment ", in_backticks(part), " in ", in_backticks(url),
                                ": expected `subdirectory=` or `sha256=`"));
    }
  }
  if (result.subdirectory.find("..") != std::string::npos || (!result.subdirectory.empty() &&
                                                              result.subdirectory[0] == '/')) {
    return make_error(ErrorCode::kInvalidInput,
                      str_cat("`subdirectory` in ", in_backticks(url),
                              " must be a relative path inside the source"));
  }
  return result;
}

}  // namespace

bool is_archive_name(std::string_view name) {
  // What build/sdist_archive.h reads.
  constexpr std::array<std::string_view, 4> kSuffixes = {".whl", ".tar.gz", ".zip", ".tgz"};
  for (std::string_view suffix : kSuffixes) {
    if (ends_with(name, suffix)) return true;
  }
  return false;
}

std::string DirectSource::requested_revision() const {
  if (!tag.empty()) return tag;
  if (!branch.empty()) return branch;
  return rev;
}

std::string DirectSource::key() const {
  std::string out;
  switch (kind) {
    case DirectKind::kDirectory: out = str_cat("path:", location); break;
    case DirectKind::kArchive:
      out = str_cat(is_url(location) ? "url:" : "path:", location);
      break;
    case DirectKind::kGit:
      out = str_cat("git:", location);
      if (!tag.empty()) out += "@tag=" + tag;
      if (!branch.empty()) out += "@branch=" + branch;
      if (!rev.empty()) out += "@rev=" + rev;
      break;
  }
  if (!subdirectory.empty()) out += "#" + subdirectory;
  if (editable) out += " (editable)";
  return out;
}

std::string DirectSource::describe() const {
  std::string out;
  switch (kind) {
    case DirectKind::kDirectory: out = str_cat("the folder ", in_backticks(location)); break;
    case DirectKind::kArchive: out = in_backticks(location); break;
    case DirectKind::kGit:
      out = str_cat("git ", in_backticks(location));
      if (!tag.empty()) out += " at tag " + tag;
      if (!branch.empty()) out += " at branch " + branch;
      if (!rev.empty()) out += " at " + rev;
      break;
  }
  if (!subdirectory.empty()) out += str_cat(" (subdirectory ", subdirectory, ")");
  return out;
}

Result<DirectSource> parse_direct_url(std::string_view url) {
  std::string_view rest = url;
  std::string_view fragment;
  if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
    fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  WV_ASSIGN_OR_RETURN(Fragment parts, read_fragment(fragment, url));
  DirectSource source;
  source.subdirectory = parts.subdirectory;
  if (rest.rfind("git+", 0) == 0) {
    source.kind = DirectKind::kGit;
    std::string_view repository = rest.substr(4);
    const std::size_t scheme_end = repository.find("://");
    if (scheme_end == std::string_view::npos) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("invalid git URL ", in_backticks(url),
                                ": expected `git+https://host/repo.git@REV`"));
    }
    // `@rev` after the path (an `@` in the authority is user info).
    const std::size_t path_start = repository.find('/', scheme_end + 3);
    const std::size_t at = repository.rfind('@');
    if (at != std::string_view::npos && path_start != std::string_view::npos && at > path_start) {
      source.rev = std::string(repository.substr(at + 1));
      repository = repository.substr(0, at);
      if (source.rev.empty()) {
        return make_error(ErrorCode::kInvalidInput,
                          str_cat("git URL ", in_backticks(url), " has an empty revision after `@`"));
      }
    }
    source.location = std::string(repository);
    if (is_url(source.location) && is_file_url(source.location)) {
      WV_ASSIGN_OR_RETURN(source.location, decoded_path(source.location.substr(7), url));
    }
    return source;
  }
  if (is_url(rest) && is_file_url(rest)) {
    std::string_view path = rest.substr(7);
    if (path.rfind("localhost/", 0) == 0) path = path.substr(9);
    if (path.empty() || path[0] != '/') {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("file URL ", in_backticks(url),
                                " must name an absolute path: `file:///abs/path`"));
    }
    WV_ASSIGN_OR_RETURN(source.location, decoded_path(path, url));
    while (source.location.size() > 1 && source.location.back() == '/') source.location.pop_back();
    source.kind = is_archive_name(source.location) ? DirectKind::kArchive : DirectKind::kDirectory;
    source.sha256 = parts.sha256;
    return source;
  }
  if (is_http_url(rest)) {
    if (!is_archive_name(rest)) {
      return make_error(ErrorCode::kInvalidInput,
                        str_cat("direct URL ", in_backticks(url),
                                " names no archive: expected a .whl, .tar.gz or .zip file (or "
                                "`git+https://` for a repository)"));
    }
    source.kind = DirectKind::kArchive;
    source.location = std::string(rest);
    source.sha256 = parts.sha256;
    return source;
  }
  return make_error(ErrorCode::kUnsupported,
                    str_cat("direct URL ", in_backticks(url),
                            ": wvlock takes `https://`, `file://` and `git+` URLs"));
}

}  // namespace wv::pkg
