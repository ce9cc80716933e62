// Grammar-based random inputs for the differential test; see generator.h.
#include "differential/generator.h"

#include "src/base/str.h"

namespace wv::differential {
namespace {

// Python's whitespace, ASCII and not (packaging strips `\s` around versions and clauses).
constexpr std::string_view kSpaces[] = {" ",  " ",  "  ", "\t", "\n", "\r", "\f", "\v", "\x1c",
                                        "\x1f", "\xc2\xa0", "\xc2\x85", "\xe2\x80\x83",
                                        "\xe3\x80\x80", "\xe2\x80\xa8"};
constexpr std::string_view kPre[] = {"a", "alpha", "b", "beta", "c", "rc", "pre", "preview"};
constexpr std::string_view kPost[] = {"post", "rev", "r"};
constexpr std::string_view kOperators[] = {"==", "!=", "<=", ">=", "<", ">", "~=", "==="};
constexpr std::string_view kVariables[] = {
    "implementation_name", "implementation_version", "os_name", "platform_machine",
    "platform_python_implementation", "platform_release", "platform_system",
    "platform_version", "python_full_version", "python_version", "sys_platform", "extra",
    "os.name", "sys.platform", "platform.version", "platform.machine",
    "platform.python_implementation", "python_implementation", "python_version",
    "python_full_version", "extra", "sys_platform"};
constexpr std::string_view kMarkerOperators[] = {"==", "!=", "<", "<=", ">", ">=", "~=", "===",
                                                 "in", "not in", "not  in", "not\tin", "=",
                                                 "<>", "is"};
constexpr std::string_view kVersionValues[] = {
    "3.8", "3.10", "3.12", "3.12.4", "3", "2.7", "3.13.0rc1", "3.12.0a1", "3.*", "3.12.*",
    "3.8.0", "4", "3.11.2", "1.0+local", "3.10.dev0", "6.1.0-18-amd64", "5.15", "23.1.0", "0",
    "v3.8", "3.8.post1", "1!3.8", "3.12.4.1", "10.0.19045", "3.12\xc2\xa0", "\xe2\x80\x83" "3.8",
    "3.12 ", " 3.8", "3.12.*\x1c", "3.8.0+Local.01"};
constexpr std::string_view kStringValues[] = {
    "linux", "win32", "darwin", "posix", "nt", "CPython", "PyPy", "cpython", "x86_64", "aarch64",
    "Linux", "Windows", "Darwin", "AMD64", "", "lin", "x", "64", "Debian", "SMP", "#1", "java",
    "a b", "é", "\xe2\x80\xa2", "cp"};
constexpr std::string_view kExtras[] = {"dev", "Dev_Extra", "test", "TEST", "dev-extra",
                                        "dev.extra", "a__b", "", "_", "1.0", "3", "doc"};
constexpr std::string_view kNames[] = {"requests", "Flask_SQLAlchemy", "zope.interface", "a",
                                       "A-B", "numpy", "torch", "x1", "Django", "py-Foo.bar_1"};

// Drops the bytes of `text` that are not part of a valid UTF-8 sequence: packaging takes a
// Python str, which cannot hold them, so such inputs would test the transport, not the parser.
std::string valid_utf8(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; ok && k < length; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    }
    if (ok && length == 2) ok = c >= 0xC2;  // no overlong forms
    if (ok && length == 3) {
      unsigned char c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // overlong, surrogates
    }
    if (ok && length == 4) {
      unsigned char c1 = static_cast<unsigned char>(text[i + 1]);
      ok = c <= 0xF4 && !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (ok) {
      out.append(text, i, length);
      i += length;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string Generator::number(bool allow_big) {
  std::string digits;
  if (chance(0.15)) digits.append(below(3) + 1, '0');  // leading zeros
  std::uint64_t r = below(100);
  if (r < 60) {
    digits += std::to_string(below(10));
  } else if (r < 85) {
    digits += std::to_string(below(100));
  } else if (r < 93) {
    digits += std::to_string(below(100000));
  } else if (r < 97) {
    digits += std::to_string(random_());  // up to 2^64-1
  } else if (allow_big) {
    digits += r < 98 ? "18446744073709551616" : "99999999999999999999999";
  } else {
    digits += std::to_string(below(70000));  // around the compact key's limits
  }
  return digits;
}

std::string Generator::release(bool allow_big, int max_parts) {
  std::string out = number(allow_big);
  std::uint64_t parts = below(max_parts);
  for (std::uint64_t i = 0; i < parts; ++i) out += "." + number(allow_big);
  return out;
}

std::string Generator::separator() {
  static constexpr std::string_view kSeparators[] = {"", "", ".", "-", "_"};
  return std::string(pick(kSeparators));
}

std::string Generator::random_case(std::string_view word) {
  std::string out(word);
  std::uint64_t r = below(10);
  if (r < 6) return out;
  for (char& c : out) {
    if (r < 8 ? true : chance(0.5)) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  }
  return out;
}

std::string Generator::suffixes(bool allow_big) {
  std::string out;
  if (chance(0.3)) {
    out += separator() + random_case(pick(kPre));
    if (chance(0.8)) out += separator() + number(allow_big);
  }
  if (chance(0.2)) {
    if (chance(0.3)) {
      out += "-" + number(allow_big);  // implicit post release
    } else {
      out += separator() + random_case(pick(kPost));
      if (chance(0.8)) out += separator() + number(allow_big);
    }
  }
  if (chance(0.2)) {
    out += separator() + random_case("dev");
    if (chance(0.8)) out += separator() + number(allow_big);
  }
  return out;
}

std::string Generator::local_label() {
  static constexpr std::string_view kPieces[] = {"ubuntu", "cu128", "cpu", "abc", "1", "01",
                                                 "0", "local", "x", "Z9", "007", "rocm6"};
  std::string out = "+" + random_case(pick(kPieces));
  std::uint64_t more = below(3);
  static constexpr std::string_view kLocalSeparators[] = {".", "-", "_"};
  for (std::uint64_t i = 0; i < more; ++i) out += std::string(pick(kLocalSeparators)) + std::string(pick(kPieces));
  return out;
}

std::string Generator::whitespace() {
  if (!chance(0.1)) return "";
  return std::string(pick(kSpaces));
}

std::string Generator::version() {
  std::string out = whitespace();
  if (chance(0.05)) out += chance(0.5) ? "v" : "V";
  if (chance(0.08)) out += number(true) + "!";
  out += release(true, 6);
  out += suffixes(true);
  if (chance(0.15)) out += local_label();
  out += whitespace();
  if (chance(0.2)) out = mutate(out);
  return out;
}

std::string Generator::clean_version() {
  std::string out;
  if (chance(0.03)) out += "v";
  if (chance(0.05)) out += std::to_string(below(3)) + "!";
  out += release(false, 5);
  out += suffixes(false);
  if (chance(0.12)) out += local_label();
  return out;
}

std::string Generator::near_version(const std::string& base) {
  // Strip to the release of `base`, then vary it: a neighbour number, trailing zeros, suffixes.
  std::string release_part;
  for (char c : base) {
    if (is_ascii_digit(c) || c == '.' || c == '!') {
      release_part.push_back(c);
    } else {
      break;
    }
  }
  while (!release_part.empty() && (release_part.back() == '.' || release_part.back() == '!')) {
    release_part.pop_back();
  }
  if (release_part.empty()) return clean_version();
  std::uint64_t r = below(10);
  if (r < 2) return base;
  std::string out = release_part;
  if (r < 4) {
    // change the last number by one
    std::size_t dot = out.find_last_of(".!");
    std::string last = dot == std::string::npos ? out : out.substr(dot + 1);
    std::uint64_t value = parse_uint64(last).value_or(0);
    value = chance(0.5) || value == 0 ? value + 1 : value - 1;
    out = (dot == std::string::npos ? "" : out.substr(0, dot + 1)) + std::to_string(value);
  } else if (r < 5) {
    out += ".0";
  }
  out += suffixes(false);
  if (chance(0.2)) out += local_label();
  return out;
}

std::string Generator::clause(std::vector<std::string>& operands) {
  std::string op(pick(kOperators));
  std::string operand;
  std::uint64_t r = below(20);
  if (op == "===") {
    static constexpr std::string_view kArbitrary[] = {"foobar", "1.0", "1.0.0", "1.0a1",
                                                      "1.0+local", "FooBar", "1.0.*", "",
                                                      "1.0.POST1", "2.0-dev", "1!1.0"};
    operand = r < 10 ? std::string(pick(kArbitrary)) : clean_version();
  } else if ((op == "==" || op == "!=") && r < 7) {
    operand = (chance(0.1) ? std::to_string(below(3)) + "!" : "") + release(false, 3) + ".*";
    if (chance(0.1)) operand = clean_version() + ".*";  // mostly invalid
  } else if (op == "~=" && r < 15) {
    operand = release(false, 1) + "." + release(false, 2) + suffixes(false);
  } else {
    operand = clean_version();
  }
  operands.push_back(operand);
  std::string text = whitespace() + op;
  if (chance(0.2)) text += chance(0.5) ? " " : "\t";
  text += operand + whitespace();
  return text;
}

std::string Generator::specifier_set(std::vector<std::string>& versions) {
  std::vector<std::string> operands;
  std::string out;
  std::uint64_t clauses = below(4);
  for (std::uint64_t i = 0; i < clauses; ++i) {
    if (i > 0 || chance(0.05)) out += chance(0.3) ? ", " : ",";
    out += clause(operands);
  }
  if (chance(0.05)) out += ",";
  if (chance(0.12)) out = mutate(out);
  versions.clear();
  std::uint64_t count = 6 + below(15);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!operands.empty() && chance(0.75)) {
      versions.push_back(near_version(operands[below(operands.size())]));
    } else {
      versions.push_back(clean_version());
    }
  }
  return out;
}

std::string Generator::marker_whitespace() {
  std::uint64_t r = below(10);
  if (r < 6) return " ";
  if (r < 8) return "";
  if (r < 9) return "  ";
  return "\t";
}

std::string Generator::quoted(const std::string& value) {
  std::string body = value;
  if (chance(0.05)) {
    static constexpr std::string_view kEscapes[] = {"\\n", "\\x41", "\\\\", "\\t", "\\u00e9",
                                                    "\\101", "\\q", "\\N{BULLET}", "\\'",
                                                    "\\\"", "\\\n"};
    body.insert(below(body.size() + 1), std::string(pick(kEscapes)));
  }
  bool single = chance(0.5);
  if (single && body.find('\'') != std::string::npos) single = false;
  if (!single && body.find('"') != std::string::npos) single = true;
  char quote = single ? '\'' : '"';
  return quote + body + quote;
}

std::string Generator::marker_value_for(std::string_view variable) {
  if (variable == "extra") return std::string(pick(kExtras));
  bool versionish = variable.find("version") != std::string_view::npos ||
                    variable.find("release") != std::string_view::npos;
  if (versionish ? chance(0.8) : chance(0.15)) return std::string(pick(kVersionValues));
  return std::string(pick(kStringValues));
}

std::string Generator::marker_expression(int depth) {
  if (depth < 3 && chance(0.35)) {
    std::string out;
    std::uint64_t items = 2 + below(3);
    for (std::uint64_t i = 0; i < items; ++i) {
      if (i > 0) {
        out += marker_whitespace();
        out += chance(0.5) ? "and" : "or";
        out += marker_whitespace();
        if (out.back() != ' ' && out.back() != '\t') out += ' ';
      }
      bool group = depth < 3 && chance(0.3);
      // Sometimes a redundant second pair: `a and ((b or c))` must keep the pair it needs.
      bool twice = group && chance(0.1);
      if (group) out += "(" + marker_whitespace();
      if (twice) out += "(";
      out += marker_expression(depth + 1);
      if (twice) out += ")";
      if (group) out += marker_whitespace() + ")";
    }
    return out;
  }
  std::string variable(pick(kVariables));
  std::string value = quoted(marker_value_for(variable));
  std::string op(pick(kMarkerOperators));
  // Keep `not in` and the invalid operators (`=`, `<>`, `is`) rare: one bad atom spoils a
  // whole expression.
  if ((op.size() > 3 && below(10) < 7) || ((op == "=" || op == "<>" || op == "is") && below(10) < 9)) {
    op = "==";
  }
  std::string lhs = variable;
  std::string rhs = value;
  std::uint64_t shape = below(20);
  if (shape < 3) {
    std::swap(lhs, rhs);  // value on the left
  } else if (shape < 4) {
    lhs = quoted(std::string(pick(kStringValues)));  // values on both sides
  } else if (shape < 5) {
    rhs = std::string(pick(kVariables));  // variables on both sides
  }
  std::string ws1 = marker_whitespace();
  std::string ws2 = marker_whitespace();
  if (op == "in" || op.starts_with("not")) {
    if (ws1.empty()) ws1 = " ";
    if (ws2.empty()) ws2 = " ";
  }
  return lhs + ws1 + op + ws2 + rhs;
}

std::string Generator::marker() {
  std::string out = marker_expression(0);
  if (chance(0.05)) out = "(" + out + ")";
  if (chance(0.03)) out += chance(0.5) ? " xyz" : ")";
  if (chance(0.03)) out = " " + out + "\n";
  if (chance(0.15)) out = mutate(out);
  return valid_utf8(out);  // an escape may have been inserted inside a multi-byte character
}

pkg::MarkerEnvironment Generator::environment() {
  static constexpr std::string_view kFull[] = {"3.12.4", "3.13.0rc1", "3.8.18", "3.11.2",
                                               "3.10.0+local", "2.7.18", "3.12.0a1", "3.14.0b2",
                                               "3.9.0.dev1", "not.a.version", "3.12", "4.0.0",
                                               "3.13.1+"};  // an untagged build's version
  static constexpr std::string_view kShort[] = {"3.12", "3.13", "3.8", "3.11", "3.10", "2.7",
                                                "4.0", "3.9", "3", "", "x.y"};
  static constexpr std::string_view kRelease[] = {"6.1.0-18-amd64", "5.15.0", "23.1.0", "10",
                                                  "", "2.0", "6.8.0-rc1", "22.04+1"};
  pkg::MarkerEnvironment e;
  static constexpr std::string_view kImpl[] = {"cpython", "pypy", "CPython", ""};
  static constexpr std::string_view kPyImpl[] = {"CPython", "PyPy", "Jython", "cpython"};
  static constexpr std::string_view kOs[] = {"posix", "nt", "java", "Posix"};
  static constexpr std::string_view kMachine[] = {"x86_64", "aarch64", "AMD64", "arm64", ""};
  static constexpr std::string_view kSystem[] = {"Linux", "Windows", "Darwin", "Java", ""};
  static constexpr std::string_view kPlatformVersion[] = {
      "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1", "Darwin Kernel Version 23.1.0", "10.0.19045",
      "1.0", ""};
  static constexpr std::string_view kSys[] = {"linux", "win32", "darwin", "cygwin", "linux2"};
  e.implementation_name = pick(kImpl);
  e.implementation_version = pick(kFull);
  e.os_name = pick(kOs);
  e.platform_machine = pick(kMachine);
  e.platform_python_implementation = pick(kPyImpl);
  e.platform_release = pick(kRelease);
  e.platform_system = pick(kSystem);
  e.platform_version = pick(kPlatformVersion);
  e.python_full_version = pick(kFull);
  e.python_version = pick(kShort);
  e.sys_platform = pick(kSys);
  return e;
}

std::string Generator::extra() {
  if (chance(0.4)) return "";
  return std::string(pick(kExtras));
}

std::string Generator::name() {
  if (chance(0.9)) return std::string(pick(kNames));
  static constexpr std::string_view kBad[] = {"-bad", "bad-", "_x", "a b", "", "1", "x.",
                                              "é", "a..b", "A_"};
  return std::string(pick(kBad));
}

std::string Generator::project_name() {
  static constexpr std::string_view kPieces[] = {"a", "Z", "numpy", "Torch", "zope", "9", "x1",
                                                 "FLASH", "attn", "py", "SciPy", "\xc3\x89t\xc3\xa9"};
  static constexpr std::string_view kSeparators[] = {"-", "_", ".", "--", "-_.", "..", "__", "._-_."};
  std::string out;
  if (chance(0.1)) out += pick(kSeparators);
  const std::uint64_t pieces = 1 + below(4);
  for (std::uint64_t i = 0; i < pieces; ++i) {
    if (i > 0) out += pick(kSeparators);
    out += random_case(pick(kPieces));
  }
  if (chance(0.1)) out += pick(kSeparators);
  if (chance(0.15)) out = mutate(out);
  return out;
}

std::string Generator::url() {
  static constexpr std::string_view kUrls[] = {
      "https://example.com/pkg-1.0.tar.gz", "http://host:8080/a.whl#sha256=00",
      "file:///tmp/pkg", "file://localhost/tmp/pkg", "file:/tmp/pkg", "file:rel/pkg",
      "FILE:///tmp/x", "file:///a?", "git+https://github.com/o/r.git@v1#egg=r",
      "https://[::1]/x", "https://[v1.x]/y", "https://[nothex]/z", "example.com/x",
      "https:///nohost", "ftp://f/x.zip", "http://user:pw@h/p", "https://h/p;x"};
  return std::string(pick(kUrls));
}

std::string Generator::requirement() {
  std::string out = (chance(0.1) ? " " : "") + name();
  if (chance(0.3)) {
    static constexpr std::string_view kExtraLists[] = {"[]",         "[dev]",      "[a, b]",
                                                       "[B,a]",      "[ x ,y ]",   "[a,]",
                                                       "[Dev_Extra]", "[a b]",     "[a,a]",
                                                       "[-x]"};
    out += (chance(0.2) ? " " : "") + std::string(pick(kExtraLists));
  }
  std::uint64_t r = below(10);
  if (r < 2) {
    out += (chance(0.7) ? " " : "") + std::string("@") + (chance(0.8) ? " " : "") + url();
  } else if (r < 8) {
    std::vector<std::string> versions;
    std::string specifiers = specifier_set(versions);
    if (chance(0.3)) {
      out += " (" + specifiers + ")";
    } else {
      out += (chance(0.3) ? " " : "") + specifiers;
    }
  }
  if (chance(0.35)) out += std::string(chance(0.7) ? " " : "") + ";" + marker_whitespace() + marker();
  if (chance(0.1)) out = mutate(out);
  return valid_utf8(out);
}

std::string Generator::mutate(std::string text) {
  static constexpr std::string_view kInserts[] = {
      ".", "-", "_", "+", "!", "*", " ", "a", "0", "9", "(", ")", "[", "]", ",", ";", "'", "\"",
      "=", "<", ">", "~", "\\", "\t", "\n", "and ", " or ", "not ", "v", "x", "\xc3\xa9", "\xc5\xbf",
      "\xe2\x84\xaa", "\xc2\xa0", "@", "#", "\xe2\x80\xa2", "\xc2\xab", "\xc3\x9f", "\xe2\x80\x83"};
  std::uint64_t edits = 1 + below(3);
  for (std::uint64_t e = 0; e < edits; ++e) {
    std::size_t at = static_cast<std::size_t>(below(text.size() + 1));
    switch (below(5)) {
      case 0: text.insert(at, std::string(pick(kInserts))); break;
      case 1:
        if (at < text.size()) text.erase(at, 1 + below(3));
        break;
      case 2:
        if (at < text.size()) text[at] = pick(kInserts)[0];
        break;
      case 3:
        if (at + 1 < text.size()) std::swap(text[at], text[at + 1]);
        break;
      default:
        if (at < text.size()) text.insert(at, text.substr(at, 1 + below(4)));
        break;
    }
  }
  return valid_utf8(text);
}

std::vector<std::string> Generator::version_list() {
  std::vector<std::string> bases;
  std::uint64_t base_count = 1 + below(3);
  for (std::uint64_t i = 0; i < base_count; ++i) bases.push_back(clean_version());
  std::vector<std::string> out;
  std::uint64_t count = 8 + below(17);
  for (std::uint64_t i = 0; i < count; ++i) {
    out.push_back(chance(0.85) ? near_version(bases[below(bases.size())]) : clean_version());
  }
  return out;
}

}  // namespace wv::differential
