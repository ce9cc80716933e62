#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "src/base/limits.h"
#include "src/pkg/marker.h"

namespace {

using wv::pkg::Marker;
using wv::pkg::MarkerContext;
using wv::pkg::MarkerEnvironment;
using wv::pkg::PreparedEnvironment;

MarkerEnvironment linux_environment() {
  MarkerEnvironment env;
  env.implementation_name = "cpython";
  env.implementation_version = "3.12.1";
  env.os_name = "posix";
  env.platform_machine = "x86_64";
  env.platform_python_implementation = "CPython";
  env.platform_release = "6.1.0-18-amd64";
  env.platform_system = "Linux";
  env.platform_version = "#1 SMP";
  env.python_full_version = "3.12.1";
  env.python_version = "3.12";
  env.sys_platform = "linux";
  return env;
}

Marker parse(std::string_view text) {
  wv::Result<Marker> marker = wv::pkg::parse_marker(text);
  INFO(text);
  REQUIRE(marker.has_value());
  return *marker;
}

std::string normal(std::string_view text) { return parse(text).to_string(); }

bool holds(std::string_view text, std::string_view extra = "") {
  wv::Result<bool> result = parse(text).evaluate(linux_environment(), extra);
  INFO(text);
  REQUIRE(result.has_value());
  return *result;
}

std::string evaluation_error(std::string_view text) {
  wv::Result<bool> result = parse(text).evaluate(linux_environment());
  INFO(text);
  REQUIRE_FALSE(result.has_value());
  return result.error().message;
}

// The caret line of a parse error: the column the error points at.
std::size_t caret_column(const wv::Error& error) {
  REQUIRE(error.notes.size() == 2);
  return error.notes[1].find('^') - 4;
}

}  // namespace

TEST_CASE("pep508: markers print in packaging's normal form", "[pkg][pep508]") {
  CHECK(normal("python_version>='3.8'") == "python_version >= \"3.8\"");
  CHECK(normal("  os_name\t==  \"posix\"  ") == "os_name == \"posix\"");
  CHECK(normal("os.name == 'nt' and sys.platform == 'win32'") ==
        "os_name == \"nt\" and sys_platform == \"win32\"");
  CHECK(normal("python_implementation == 'CPython'") ==
        "platform_python_implementation == \"CPython\"");
  CHECK(normal("platform.machine == 'x' or platform.version == 'y'") ==
        "platform_machine == \"x\" or platform_version == \"y\"");
  CHECK(normal("'linux' in sys_platform") == "\"linux\" in sys_platform");
  CHECK(normal("'a' not   in os_name") == "\"a\" not in os_name");
}

TEST_CASE("pep508: parentheses survive only around groups of several items", "[pkg][pep508]") {
  CHECK(normal("(os_name == 'a')") == "os_name == \"a\"");
  CHECK(normal("((os_name == 'a'))") == "os_name == \"a\"");
  CHECK(normal("(os_name == 'a' or os_name == 'b') and python_version > '3'") ==
        "(os_name == \"a\" or os_name == \"b\") and python_version > \"3\"");
  CHECK(normal("os_name == 'a' and (python_version > '3')") ==
        "os_name == \"a\" and python_version > \"3\"");
  // A doubly wrapped group keeps one pair (packaging 26; 23.0 dropped both, changing the
  // meaning of the printed text), and the printed form parses back to the same marker.
  CHECK(normal("os_name == 'a' and ((os_name == 'b' or os_name == 'c'))") ==
        "os_name == \"a\" and (os_name == \"b\" or os_name == \"c\")");
  CHECK(normal("((os_name == 'b' or os_name == 'c')) and os_name == 'a'") ==
        "(os_name == \"b\" or os_name == \"c\") and os_name == \"a\"");
}

TEST_CASE("pep508: both quote styles and Python escapes", "[pkg][pep508]") {
  CHECK(normal("os_name == \"it's\"") == "os_name == \"it's\"");
  CHECK(normal("os_name == 'a\\x41\\101'") == "os_name == \"aAA\"");
  CHECK(normal("os_name == 'tab\\there'") == "os_name == \"tab\there\"");
  CHECK(normal("os_name == '\\z'") == "os_name == \"\\z\"");  // unknown escapes stay
  CHECK(normal("os_name == '\\u00e9'") == "os_name == \"\xc3\xa9\"");
  CHECK_FALSE(wv::pkg::parse_marker("os_name == 'a\\'"));  // the backslash eats the quote
  CHECK_FALSE(wv::pkg::parse_marker("os_name == 'a\\x4'"));
  CHECK_FALSE(wv::pkg::parse_marker("os_name == 'a\nb'"));
  CHECK_FALSE(wv::pkg::parse_marker("os_name == \"mixed'"));
}

TEST_CASE("pep508: `and` binds tighter than `or`", "[pkg][pep508]") {
  // true or (false and false) == true; (true or false) and false would be false.
  CHECK(holds("os_name == 'posix' or os_name == 'nt' and sys_platform == 'win32'"));
  CHECK_FALSE(holds("(os_name == 'posix' or os_name == 'nt') and sys_platform == 'win32'"));
  CHECK(holds("os_name == 'nt' and sys_platform == 'win32' or python_version >= '3.12'"));
  CHECK_FALSE(holds("os_name == 'nt' and (sys_platform == 'win32' or python_version >= '3.12')"));
}

TEST_CASE("pep508: four variables compare as versions, the others as strings", "[pkg][pep508]") {
  CHECK(holds("python_version > '3.9'"));  // as strings "3.12" < "3.9"
  CHECK(holds("python_full_version == '3.12.*'"));
  CHECK(holds("python_version ~= '3.10'"));
  CHECK(holds("python_version === '3.12'"));
  CHECK_FALSE(holds("python_full_version < '3.12.1rc1'"));
  CHECK(holds("'3.8' < python_version"));  // the literal is the version, the variable the spec
  // Strings have no order in a marker (packaging 26): `<`/`>` are false, `<=`/`>=` mean equal.
  CHECK_FALSE(holds("sys_platform > 'darwin'"));
  CHECK_FALSE(holds("sys_platform < 'win32'"));
  CHECK(holds("sys_platform >= 'linux'"));
  CHECK_FALSE(holds("sys_platform <= 'darwin'"));
  CHECK_FALSE(holds("os_name == '1.0' or os_name >= '0'"));  // not a version variable
  CHECK(holds("'lin' in sys_platform"));       // substring
  CHECK(holds("'linux2' not in sys_platform"));
  CHECK(holds("os_name == 'posix'"));
  CHECK(holds("python_version >= ' 3.12 '"));  // whitespace inside the specifier is allowed
  CHECK(holds("python_version == '=3.12'"));   // "===3.12": arbitrary equality, as packaging
}

TEST_CASE("pep508: evaluation errors where packaging raises", "[pkg][pep508]") {
  // `>=6` is a specifier and "6.1.0-18-amd64" is not a version: simply not contained (pip
  // evaluates it; packaging 23.0 raised InvalidVersion).
  CHECK_FALSE(holds("platform_release >= '6'"));
  CHECK_FALSE(holds("platform_release != '6'"));  // nor is it outside one
  CHECK(holds("platform_release == '6.1.0-18-amd64'"));  // no specifier: string equality
  // `===` and `~=` on a string variable are undefined.
  CHECK(evaluation_error("os_name === 'nt'").find("undefined comparison") != std::string::npos);
  // `~=linux` is no specifier and `~=` has no string meaning: UndefinedComparison.
  CHECK(evaluation_error("sys_platform ~= 'linux'").find("undefined comparison") !=
        std::string::npos);
  // Two literals: the right one is read as a variable name.
  CHECK(evaluation_error("'a' == 'b'").find("undefined environment name `b`") !=
        std::string::npos);
  CHECK(holds("'posix' == 'os_name'"));
  // No short circuit: an error in the right operand of a true `or` still surfaces.
  CHECK_FALSE(parse("os_name == 'posix' or sys_platform ~= 'x'")
                  .evaluate(linux_environment())
                  .has_value());
  // An environment variable with no environment in the context.
  MarkerContext empty;
  CHECK_FALSE(parse("os_name == 'posix'").evaluate(empty).has_value());
  CHECK(*parse("extra == 'x' or 'x' in extras").evaluate(empty) == false);
}

TEST_CASE("pep508: extra is compared PEP 685 normalised", "[pkg][pep508]") {
  CHECK(normal("extra == 'Dev_Extra'") == "extra == \"dev-extra\"");
  // Every comparison of extra with a string is normalised (packaging 26), nested ones too.
  CHECK(normal("os_name == 'a' and extra == 'Dev_Extra'") ==
        "os_name == \"a\" and extra == \"dev-extra\"");
  CHECK(normal("os_name == 'a' and (extra == 'X_Y' or 'A.B' == extra)") ==
        "os_name == \"a\" and (extra == \"x-y\" or \"a-b\" == extra)");
  CHECK(holds("extra == 'dev-extra'", "Dev__Extra"));
  CHECK(holds("os_name == 'posix' and extra == 'Dev.Extra'", "dev_extra"));
  CHECK_FALSE(holds("extra == 'cuda'"));  // no extra: ""
  CHECK(holds("extra != 'cuda'"));
  CHECK(holds("'Cuda' == extra", "CUDA"));
}

TEST_CASE("pep508: several active extras", "[pkg][pep508]") {
  PreparedEnvironment env(linux_environment());
  std::vector<std::string> extras = {"cuda", "Test"};
  MarkerContext context{&env, extras, {}, nullptr};
  CHECK(*parse("extra == 'test'").evaluate(context));
  CHECK(*parse("extra == 'cuda'").evaluate(context));
  CHECK_FALSE(*parse("extra == 'rocm'").evaluate(context));
  CHECK_FALSE(*parse("extra != 'cuda'").evaluate(context));  // cuda is among them
  CHECK(*parse("extra != 'rocm'").evaluate(context));
}

TEST_CASE("pep508: PEP 751 extras and dependency_groups are sets", "[pkg][pep508][pep751]") {
  PreparedEnvironment env(linux_environment());
  std::vector<std::string> extras = {"CUDA_12"};
  std::vector<std::string> groups = {"dev"};
  MarkerContext context{&env, extras, groups, nullptr};
  CHECK(*parse("'cuda-12' in extras").evaluate(context));
  CHECK(*parse("'Cuda.12' in extras").evaluate(context));
  CHECK_FALSE(*parse("'cuda' in extras").evaluate(context));  // membership, not substring
  CHECK(*parse("'rocm' not in extras").evaluate(context));
  CHECK(*parse("'dev' in dependency_groups and 'docs' not in dependency_groups").evaluate(context));
  CHECK(normal("'Cuda_12' in extras") == "\"cuda-12\" in extras");
  CHECK_FALSE(wv::pkg::parse_marker("extras == 'cuda'"));
  CHECK_FALSE(wv::pkg::parse_marker("extras in 'cuda'"));
  CHECK_FALSE(wv::pkg::parse_marker("os_name in extras"));
  // Not confused with `extra`.
  CHECK(normal("extra == 'a' and 'a' in extras") == "extra == \"a\" and \"a\" in extras");
}

TEST_CASE("pep508: PEP 825 variant markers", "[pkg][pep508][variants]") {
  PreparedEnvironment env(linux_environment());
  std::vector<std::string> properties = {"nvidia::sm_arch:: 90_real",
                                         " nvidia :: cuda_version_lower_bound :: 12.8 "};
  const wv::pkg::VariantFacts facts = wv::pkg::make_variant_facts("cu128", properties);
  CHECK(facts.properties == std::vector<std::string>{"nvidia :: cuda_version_lower_bound :: 12.8",
                                                     "nvidia :: sm_arch :: 90_real"});
  CHECK(facts.features ==
        std::vector<std::string>{"nvidia :: cuda_version_lower_bound", "nvidia :: sm_arch"});
  CHECK(facts.namespaces == std::vector<std::string>{"nvidia"});
  MarkerContext context{&env, {}, {}, &facts};

  CHECK(*parse("variant_label == 'cu128'").evaluate(context));
  CHECK(*parse("'cu128' == variant_label").evaluate(context));
  CHECK(*parse("variant_label != 'null'").evaluate(context));
  CHECK(*parse("'nvidia :: sm_arch :: 90_real' in variant_properties").evaluate(context));
  CHECK(*parse("'nvidia::sm_arch::90_real' in variant_properties").evaluate(context));
  CHECK_FALSE(*parse("'nvidia :: sm_arch :: 80_real' in variant_properties").evaluate(context));
  CHECK(*parse("'nvidia :: sm_arch' in variant_features").evaluate(context));
  CHECK(*parse("'nvidia' in variant_namespaces and 'amd' not in variant_namespaces")
             .evaluate(context));
  CHECK(normal("'nvidia ::sm_arch::  90_real' in variant_properties") ==
        "\"nvidia :: sm_arch :: 90_real\" in variant_properties");
  // A non-variant wheel: label "", empty sets (PEP 825).
  MarkerContext plain{&env, {}, {}, nullptr};
  CHECK(*parse("variant_label == ''").evaluate(plain));
  CHECK(*parse("variant_label != 'null'").evaluate(plain));
  CHECK_FALSE(*parse("'nvidia' in variant_namespaces").evaluate(plain));
  CHECK(*parse("'nvidia' not in variant_namespaces").evaluate(plain));
  CHECK_FALSE(wv::pkg::parse_marker("variant_properties == 'a :: b :: c'"));
  CHECK_FALSE(wv::pkg::parse_marker("variant_label == os_name"));
  CHECK_FALSE(parse("variant_label ~= 'cu128'").evaluate(context).has_value());
}

TEST_CASE("pep508: marker parse errors point at the problem", "[pkg][pep508]") {
  struct Case {
    std::string_view text;
    std::size_t column;
    std::string_view phrase;
  };
  const Case cases[] = {
      {"python_version", 14, "marker operator"},
      {"foo == 'bar'", 0, "marker variable or a quoted string"},
      {"python_version == 3.8", 18, "marker variable or a quoted string"},
      {"(python_version >= '3.8'", 24, "expected `)`"},
      {"python_version >= '3.8' and", 27, "marker variable or a quoted string"},
      {"os_name not'a'", 11, "whitespace after `not`"},
      {"os_name not 'a'", 12, "`in` after `not`"},
      {"os_name == 'a' xyz", 15, "the end of the marker"},
      {"os_name == 'a')", 14, "the end of the marker"},
      {"", 0, "marker variable or a quoted string"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    wv::Result<Marker> marker = wv::pkg::parse_marker(c.text);
    REQUIRE_FALSE(marker.has_value());
    CHECK(marker.error().code == wv::ErrorCode::kParse);
    CHECK(marker.error().message.find(c.phrase) != std::string::npos);
    CHECK(marker.error().message.find(std::string("`") + std::string(c.text) + "`") !=
          std::string::npos);
    CHECK(caret_column(marker.error()) == c.column);
  }
}

TEST_CASE("pep508: nesting is bounded", "[pkg][pep508]") {
  auto nested = [](std::size_t depth) {
    return std::string(depth, '(') + "os_name == 'posix'" + std::string(depth, ')');
  };
  const std::uint64_t limit = wv::limit_value(wv::Limit::kMarkerDepth);
  CHECK(holds(nested(limit)));
  wv::Result<Marker> too_deep = wv::pkg::parse_marker(nested(limit + 1));
  REQUIRE_FALSE(too_deep.has_value());
  CHECK(too_deep.error().code == wv::ErrorCode::kLimit);
  CHECK(too_deep.error().message.find("marker-depth limit of 100 levels") != std::string::npos);
  CHECK(too_deep.error().to_string().find("--limit marker-depth=N") != std::string::npos);
  // Raising the limit lets deeper input through; the default comes back afterwards.
  wv::set_limit_value(wv::Limit::kMarkerDepth, 150);
  CHECK(holds(nested(150)));
  wv::reset_limit_values();
  // Far deeper input is refused quickly, without recursing that deep.
  CHECK_FALSE(wv::pkg::parse_marker(std::string(1'000'000, '(')).has_value());
}

TEST_CASE("pep508: arbitrary bytes never crash the marker parser", "[pkg][pep508]") {
  const std::string alphabet = "()'\" =<>!~.;,[]@\\\t\nandornotinextra_os_namepython_version38\xff";
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  PreparedEnvironment env(linux_environment());
  MarkerContext context{&env, {}, {}, nullptr};
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const std::size_t length = next() % 40;
    for (std::size_t k = 0; k < length; ++k) {
      text.push_back(next() % 4 == 0 ? static_cast<char>(next() & 0xff)
                                     : alphabet[next() % alphabet.size()]);
    }
    wv::Result<Marker> marker = wv::pkg::parse_marker(text);
    if (marker) {
      (void)marker->evaluate(context);
      // The normal form parses back to itself (values are printed unescaped, so only when
      // they hold no quote, backslash or line break).
      const std::string printed = marker->to_string();
      if (printed.find_first_of("\\\n\r'") == std::string::npos &&
          std::count(printed.begin(), printed.end(), '"') % 2 == 0) {
        wv::Result<Marker> again = wv::pkg::parse_marker(printed);
        if (again) CHECK(again->to_string() == printed);
      }
    }
  }
}

TEST_CASE("pep508: and_ / or_ build lockfile markers", "[pkg][pep508]") {
  const Marker linux = parse("sys_platform == 'linux'");
  const Marker mac = parse("sys_platform == 'darwin'");
  const Marker py = parse("python_version >= '3.10'");
  const Marker either = linux.or_(mac);
  CHECK(either.to_string() == "sys_platform == \"linux\" or sys_platform == \"darwin\"");
  const Marker both = either.and_(py);
  CHECK(both.to_string() ==
        "(sys_platform == \"linux\" or sys_platform == \"darwin\") and python_version >= \"3.10\"");
  CHECK(holds(both.to_string()) == *both.evaluate(linux_environment()));
  CHECK(*both.evaluate(linux_environment()));
  // Chains stay flat; groups of the other connective are parenthesised.
  CHECK(linux.and_(py).and_(mac).to_string() ==
        "sys_platform == \"linux\" and python_version >= \"3.10\" and sys_platform == \"darwin\"");
  CHECK(linux.and_(py).or_(mac).to_string() ==
        "(sys_platform == \"linux\" and python_version >= \"3.10\") or sys_platform == \"darwin\"");
  CHECK(mac.or_(linux.and_(py)).to_string() ==
        "sys_platform == \"darwin\" or (sys_platform == \"linux\" and python_version >= \"3.10\")");
  // The doubly wrapped group that packaging would print without parentheses stays correct.
  const Marker wrapped = parse("((os_name == 'a' or os_name == 'b'))");
  CHECK(linux.and_(wrapped).to_string() ==
        "sys_platform == \"linux\" and (os_name == \"a\" or os_name == \"b\")");
  // The empty marker is the identity; markers compare by their normal form.
  CHECK(Marker().and_(linux) == linux);
  CHECK(linux.or_(Marker()) == linux);
  CHECK(Marker().is_empty());
  CHECK(Marker().to_string().empty());
  CHECK(*Marker().evaluate(linux_environment()));
  CHECK(parse("os_name=='a'") == parse("os_name == \"a\""));
  // A combined marker parses back to the same normal form.
  CHECK(parse(both.to_string()) == both);
}

TEST_CASE("pep508: which variables a marker reads", "[pkg][pep508]") {
  using wv::pkg::MarkerVariable;
  const Marker m = parse("os_name == 'posix' and (extra == 'gpu' or 'cuda' in extras)");
  CHECK(m.references(MarkerVariable::kOsName));
  CHECK(m.references(MarkerVariable::kExtra));
  CHECK(m.references(MarkerVariable::kExtras));
  CHECK_FALSE(m.references(MarkerVariable::kSysPlatform));
  CHECK_FALSE(m.references(MarkerVariable::kVariantLabel));
  CHECK(parse("'posix' == 'os_name'").references(MarkerVariable::kOsName));  // looked up by name
  CHECK_FALSE(Marker().references(MarkerVariable::kExtra));
}
