#include "src/base/percent.h"

#include "src/base/str.h"

namespace wv {

std::string percent_encode(std::string_view text, std::string_view keep) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (is_ascii_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        keep.find(c) != std::string_view::npos) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  // Most names and URLs have no escape: one copy, not a push_back per character.
  if (text.find('%') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = hex_digit_value(text[i + 1]);
      const int low = hex_digit_value(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

bool is_file_url(std::string_view url) { return url.size() >= 5 && iequals(url.substr(0, 5), "file:"); }

std::optional<std::string> file_url_to_path(std::string_view url) {
  if (!is_file_url(url)) return std::nullopt;
  url = url.substr(0, url.find('#'));
  url = url.substr(0, url.find('?'));
  std::string_view rest = url.substr(5);  // after "file:"
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const std::size_t slash = rest.find('/');
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && !iequals(host, "localhost")) return std::nullopt;
    if (slash == std::string_view::npos) return std::string("/");
    rest = rest.substr(slash);
  }
  if (rest.empty() || rest.front() != '/') return std::nullopt;
  std::string path = percent_decode(rest);
  if (path.find('\0') != std::string::npos) return std::nullopt;
  return path;
}

}  // namespace wv
