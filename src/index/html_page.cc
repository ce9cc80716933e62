// PEP 503 HTML project pages: a hand-written, linear scanner for the few elements a simple
// index uses (`<a>`, `<base>`, `<meta>`), tolerant of anything else (no regex, no recursion,
// never reads past the end). Browsers' rules where they matter: attribute names are
// case-insensitive, the first of duplicate attributes wins, comments are skipped.
#include <cstdint>

#include "src/base/hex.h"
#include "src/base/str.h"
#include "src/index/simple_page.h"
#include "src/base/url.h"

namespace wv::index {
namespace {

struct Tag {
  std::string name;  // lower case; "" for a closing tag or junk
  bool closing = false;
  std::vector<std::pair<std::string, std::string>> attributes;  // names lower case, raw values

  const std::string* attribute(std::string_view wanted) const {
    for (const auto& [key, value] : attributes) {
      if (key == wanted) return &value;
    }
    return nullptr;
  }
};

void append_utf8(std::string& out, std::uint32_t code_point) {
  if (code_point == 0 || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    code_point = 0xFFFD;  // what HTML parsers substitute
  }
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

bool is_tag_name_char(char c) { return is_ascii_alnum(c) || c == '-' || c == ':' || c == '_'; }

// Parses the tag starting at html[pos] == '<'; returns the offset just past its '>' (or the end
// of input for an unterminated tag).
std::size_t parse_tag(std::string_view html, std::size_t pos, Tag& tag) {
  std::size_t i = pos + 1;
  if (i < html.size() && html[i] == '/') {
    tag.closing = true;
    ++i;
  }
  std::size_t name_start = i;
  while (i < html.size() && is_tag_name_char(html[i])) ++i;
  tag.name = to_lower(html.substr(name_start, i - name_start));
  while (i < html.size()) {
    char c = html[i];
    if (c == '>') return i + 1;
    if (is_ascii_space(c) || c == '/') {
      ++i;
      continue;
    }
    // An attribute name runs to whitespace, '=', '>' or '/'.
    std::size_t key_start = i;
    while (i < html.size() && !is_ascii_space(html[i]) && html[i] != '=' && html[i] != '>' &&
           html[i] != '/') {
      ++i;
    }
    std::string key = to_lower(html.substr(key_start, i - key_start));
    std::size_t look = i;
    while (look < html.size() && is_ascii_space(html[look])) ++look;
    std::string value;
    if (look < html.size() && html[look] == '=') {
      i = look + 1;
      while (i < html.size() && is_ascii_space(html[i])) ++i;
      if (i < html.size() && (html[i] == '"' || html[i] == '\'')) {
        char quote = html[i];
        std::size_t end = html.find(quote, i + 1);
        if (end == std::string_view::npos) end = html.size();
        value = std::string(html.substr(i + 1, end - i - 1));
        i = end == html.size() ? end : end + 1;
      } else {
        std::size_t value_start = i;
        while (i < html.size() && !is_ascii_space(html[i]) && html[i] != '>') ++i;
        value = std::string(html.substr(value_start, i - value_start));
      }
    }
    if (!key.empty() && tag.attribute(key) == nullptr) {
      tag.attributes.emplace_back(std::move(key), std::move(value));
    }
  }
  return html.size();
}

// True when html[at..] is `</name` followed by the end of the tag name (`</a>` but not `</abbr>`).
bool closes(std::string_view html, std::size_t at, std::string_view name) {
  std::size_t end = at + 2 + name.size();
  return iequals(html.substr(at + 2, name.size()), name) &&
         (end >= html.size() || !is_tag_name_char(html[end]));
}

// The text of an element up to its closing tag `</name`, with nested tags dropped; `end` is set
// past the closing tag.
std::string element_text(std::string_view html, std::size_t pos, std::string_view name,
                         std::size_t& end) {
  std::string text;
  std::size_t i = pos;
  while (i < html.size()) {
    if (html[i] == '<') {
      if (i + 1 < html.size() && html[i + 1] == '/' && closes(html, i, name)) {
        std::size_t close = html.find('>', i);
        end = close == std::string_view::npos ? html.size() : close + 1;
        return text;
      }
      // Another anchor opening before this one closed: the page is broken; stop here.
      if (i + 1 < html.size() && iequals(html.substr(i + 1, name.size()), name) &&
          (i + 1 + name.size() >= html.size() || !is_tag_name_char(html[i + 1 + name.size()]))) {
        end = i;
        return text;
      }
      std::size_t close = html.find('>', i);
      i = close == std::string_view::npos ? html.size() : close + 1;
      continue;
    }
    text.push_back(html[i]);
    ++i;
  }
  end = html.size();
  return text;
}

// Past the `</name ...>` that closes a raw-text element (script, style), or the end.
std::size_t skip_raw_text(std::string_view html, std::size_t pos, std::string_view name) {
  while (pos < html.size()) {
    std::size_t open = html.find("</", pos);
    if (open == std::string_view::npos) return html.size();
    if (closes(html, open, name)) {
      std::size_t close = html.find('>', open);
      return close == std::string_view::npos ? html.size() : close + 1;
    }
    pos = open + 2;
  }
  return html.size();
}

void read_core_metadata(const Tag& tag, IndexFile& file) {
  // PEP 714 renamed the attribute; both spellings are honoured, the new one first.
  const std::string* value = tag.attribute("data-core-metadata");
  if (value == nullptr) value = tag.attribute("data-dist-info-metadata");
  if (value == nullptr) return;
  std::string decoded = decode_html_entities(*value);
  std::string_view text = trim(decoded);
  if (iequals(text, "false")) {
    file.core_metadata = pkg::CoreMetadataAvailability::kAbsent;
    return;
  }
  file.core_metadata = pkg::CoreMetadataAvailability::kAvailable;
  if (auto hash = parse_hash_pair(text)) file.core_metadata_hashes.insert(std::move(*hash));
}

}  // namespace

std::string decode_html_entities(std::string_view text) {
  // Most attribute values have no entity: one copy, not a push_back per character.
  if (text.find('&') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '&') {
      out.push_back(text[i++]);
      continue;
    }
    // Entity names and numbers are short; a far ';' belongs to something else. Look only that
    // far: searching the rest of the text for each '&' is quadratic on a page of '&'.
    std::size_t semicolon = text.substr(i + 1, 12).find(';');
    if (semicolon == std::string_view::npos) {
      out.push_back(text[i++]);
      continue;
    }
    semicolon += i + 1;
    std::string_view body = text.substr(i + 1, semicolon - i - 1);
    bool decoded = true;
    if (body == "lt") {
      out.push_back('<');
    } else if (body == "gt") {
      out.push_back('>');
    } else if (body == "amp") {
      out.push_back('&');
    } else if (body == "quot") {
      out.push_back('"');
    } else if (body == "apos") {
      out.push_back('\'');
    } else if (body == "nbsp") {
      append_utf8(out, 0xA0);
    } else if (body.size() >= 2 && body[0] == '#') {
      std::uint32_t code = 0;
      bool hex = body[1] == 'x' || body[1] == 'X';
      std::string_view digits = body.substr(hex ? 2 : 1);
      if (digits.empty() || digits.size() > 8) decoded = false;
      for (char c : digits) {
        if (!decoded) break;
        const int digit = hex ? hex_value(c) : (is_ascii_digit(c) ? c - '0' : -1);
        if (digit < 0) decoded = false;
        else code = code * (hex ? 16 : 10) + static_cast<std::uint32_t>(digit);
      }
      if (decoded) append_utf8(out, code);
    } else {
      decoded = false;
    }
    if (decoded) {
      i = semicolon + 1;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

Result<void> check_api_version(std::string_view api_version, std::string_view page_url) {
  api_version = trim(api_version);
  if (api_version.empty()) return {};
  std::string_view major = api_version.substr(0, api_version.find('.'));
  if (major == "1") return {};
  return make_error(ErrorCode::kUnsupported,
                    str_cat("simple index page ", in_backticks(page_url), " declares api version ",
                            in_backticks(api_version), ": expected major version 1"));
}

Result<ProjectPage> parse_html_project_page(std::string_view html, std::string_view page_url) {
  ProjectPage page;
  std::string base(page_url);
  std::size_t pos = 0;
  while (pos < html.size()) {
    std::size_t open = html.find('<', pos);
    if (open == std::string_view::npos) break;
    if (html.substr(open, 4) == "<!--") {
      std::size_t close = html.find("-->", open + 4);
      pos = close == std::string_view::npos ? html.size() : close + 3;
      continue;
    }
    Tag tag;
    pos = parse_tag(html, open, tag);
    if (tag.closing || tag.name.empty()) continue;
    if (tag.name == "script" || tag.name == "style") {
      // Raw text: an `<a` inside a script is not an anchor.
      pos = skip_raw_text(html, pos, tag.name);
      continue;
    }
    if (tag.name == "base") {
      if (const std::string* href = tag.attribute("href")) {
        base = resolve_url(page_url, decode_html_entities(trim(*href)));
      }
    } else if (tag.name == "meta") {
      const std::string* name = tag.attribute("name");
      const std::string* content = tag.attribute("content");
      if (name != nullptr && content != nullptr && iequals(trim(*name), "pypi:repository-version")) {
        page.api_version = std::string(trim(decode_html_entities(*content)));
      }
    } else if (tag.name == "a") {
      std::size_t end = pos;
      std::string text = element_text(html, pos, "a", end);
      pos = end;
      const std::string* href = tag.attribute("href");
      if (href == nullptr || trim(*href).empty()) {
        ++page.skipped;
        continue;
      }
      std::string raw_href = decode_html_entities(trim(*href));
      IndexFile file;
      std::string resolved = resolve_url(base, raw_href);
      file.url = std::string(strip_fragment(resolved));
      file.filename = std::string(trim(decode_html_entities(text)));
      if (file.filename.empty()) file.filename = url_filename(file.url);
      if (file.filename.empty()) {
        ++page.skipped;
        continue;
      }
      if (auto hash = parse_hash_pair(url_fragment(raw_href))) file.hashes.insert(std::move(*hash));
      if (const std::string* requires_python = tag.attribute("data-requires-python")) {
        file.requires_python = std::string(trim(decode_html_entities(*requires_python)));
      }
      if (const std::string* yanked = tag.attribute("data-yanked")) {
        file.yanked = true;
        file.yanked_reason = std::string(trim(decode_html_entities(*yanked)));
      }
      read_core_metadata(tag, file);
      page.files.push_back(std::move(file));
    }
  }
  WV_TRY(check_api_version(page.api_version, page_url));
  return page;
}

}  // namespace wv::index
