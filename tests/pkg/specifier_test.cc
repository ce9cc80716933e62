#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "src/pkg/specifier.h"
#include "src/pkg/version.h"

namespace {

using wv::pkg::Operator;
using wv::pkg::parse_specifier;
using wv::pkg::parse_specifier_set;
using wv::pkg::parse_version;
using wv::pkg::Version;

Version v(std::string_view text) { return parse_version(text).value(); }

// Whether `version` satisfies `specifiers`, with the default pre-release handling.
bool in(std::string_view specifiers, std::string_view version) {
  auto set = parse_specifier_set(specifiers);
  INFO("parsing `" << specifiers << "`");
  REQUIRE(set.has_value());
  return set->contains(v(version));
}

bool in_pre(std::string_view specifiers, std::string_view version) {
  return parse_specifier_set(specifiers).value().contains(v(version), true);
}

}  // namespace

TEST_CASE("pep440: specifier operators and operands are parsed", "[pkg][pep440]") {
  auto spec = parse_specifier(" ~= 2.2 ");
  REQUIRE(spec);
  CHECK(spec->op() == Operator::kCompatible);
  CHECK(spec->version() == v("2.2"));
  CHECK(spec->to_string() == "~=2.2");
  CHECK(parse_specifier("==1.0.*")->op() == Operator::kEqualStar);
  CHECK(parse_specifier("==1.0.*")->version() == v("1.0"));
  CHECK(parse_specifier("!=1.0.*")->op() == Operator::kNotEqualStar);
  CHECK(parse_specifier("===foobar")->op() == Operator::kArbitraryEqual);
  CHECK(parse_specifier("===foobar")->raw_version() == "foobar");
  CHECK(parse_specifier(">=V1.0RC1")->to_string() == ">=V1.0RC1");  // spelling kept, like packaging
  CHECK(parse_specifier("<2")->op() == Operator::kLess);
  CHECK(parse_specifier("<=2")->op() == Operator::kLessEqual);
  CHECK(parse_specifier(">2")->op() == Operator::kGreater);
  CHECK(parse_specifier("!=2")->op() == Operator::kNotEqual);
  CHECK(parse_specifier("==2+local")->version().has_local());
}

TEST_CASE("pep440: invalid specifiers are refused", "[pkg][pep440]") {
  for (std::string_view bad :
       {"", "1.0", "=1.0", "=>1.0", "~=1", "~=1.0+local", ">=1.0+local", "<1.0+x", "==1.0a1.*",
        "==1.*.0", "==1.0.*+x", ">=1.0.*", "~=1.0.*", "== 1.0 1", "===a b", "===a;b", "===a)",
        "==", ">=", "<==1.0", "~==1.0", "!==1.0", "==1.0,", ">=1.0 ;"}) {
    INFO("`" << bad << "`");
    CHECK_FALSE(parse_specifier(bad).has_value());
  }
  CHECK(parse_specifier("===").has_value());  // the arbitrary operand may be empty
  CHECK(parse_specifier("=== \t").has_value());
  CHECK(parse_specifier("====1")->raw_version() == "=1");
  CHECK(parse_specifier_set("==1.0,").has_value());
  CHECK_FALSE(parse_specifier_set(">=1.0,foo").has_value());
  auto error = parse_specifier_set(">=1.0, ~=1");
  REQUIRE_FALSE(error);
  CHECK(error.error().code == wv::ErrorCode::kParse);
  CHECK(error.error().message.find("`~=1`") != std::string::npos);
}

TEST_CASE("pep440: == and != ignore a local label unless the operand has one",
          "[pkg][pep440]") {
  CHECK(in("==1.0", "1.0+local"));
  CHECK(in("==1.0", "1.0.0"));
  CHECK_FALSE(in("==1.0", "1.0.post1"));
  CHECK(in("==1.0+local", "1.0+LOCAL"));
  CHECK_FALSE(in("==1.0+local", "1.0"));
  CHECK_FALSE(in("==1.0+local", "1.0+other"));
  CHECK_FALSE(in("!=1.0", "1.0+local"));
  CHECK(in("!=1.0+local", "1.0"));
  CHECK(in("<=1.0", "1.0+local"));
  CHECK(in(">=1.0", "1.0+local"));
}

TEST_CASE("pep440: == and != with a trailing .* match a release prefix", "[pkg][pep440]") {
  CHECK(in("==1.0.*", "1.0"));
  CHECK(in("==1.0.*", "1.0.5"));
  CHECK(in("==1.0.*", "1"));
  CHECK(in("==1.0.*", "1.0.post1"));
  CHECK(in("==1.0.*", "1.0+local"));
  CHECK(in_pre("==1.0.*", "1.0a1"));
  CHECK_FALSE(in("==1.0.*", "1.1"));
  CHECK_FALSE(in("==1.0.*", "1.01.0"));  // 1.01.0 is 1.1.0
  CHECK(in("!=1.0.*", "1.1"));
  CHECK_FALSE(in("!=1.0.*", "1.0.9"));
  CHECK(in("==1!2.*", "1!2.3"));
  CHECK_FALSE(in("==1!2.*", "2.3"));
  CHECK_FALSE(in("==2.*", "1!2.3"));
  // ==V.* is an interval of the version order, [V.dev0, next prefix .dev0): an epoch is part
  // of it (packaging 23.0 padded 1!2.0 with "0" items and matched ==0.*).
  CHECK_FALSE(in("==0.*", "1!2.0"));
  CHECK(in("==1.0.*", "1.0.post1"));
  CHECK(in("==1.0.*", "1.0.dev0"));
  CHECK_FALSE(in("==1.0.*", "1.1.dev0"));
  CHECK(in("!=0.*", "1!0.5"));
}

TEST_CASE("pep440: ~= means >= V and == V's prefix", "[pkg][pep440]") {
  CHECK(in("~=2.2", "2.2"));
  CHECK(in("~=2.2", "2.9"));
  CHECK_FALSE(in("~=2.2", "3.0"));
  CHECK_FALSE(in("~=2.2", "2.1"));
  CHECK(in("~=1.4.5", "1.4.9"));
  CHECK_FALSE(in("~=1.4.5", "1.5.0"));
  CHECK(in("~=2.2.post3", "2.3"));
  CHECK_FALSE(in("~=2.2.post3", "2.2"));
  CHECK(in("~=1.4.5a4", "1.4.5"));
  CHECK_FALSE(in("~=1.4.5a4", "1.5"));
  CHECK(in("~=2.2.0", "2.2.0+local"));
  CHECK(in("~=1!2.2", "1!2.5"));
  // The prefix comes from the parsed release, however the operand is spelt (packaging 23.0
  // split the text case-sensitively and read ~=2.2.RC1 as ~=2.2.0).
  CHECK(in_pre("~=2.2.rc1", "2.5"));
  CHECK(in_pre("~=2.2.RC1", "2.2.5"));
  CHECK(in_pre("~=2.2.RC1", "2.5"));
  CHECK_FALSE(in("~=2.2", "3.0.dev0"));  // the next prefix starts at its .dev0
  CHECK(in("~=2.2", "2.99.post1"));
  CHECK_FALSE(in("~=0.0", "1!2.0"));  // the epoch counts
  CHECK_FALSE(in("~=1!2.2", "2.5"));
}

TEST_CASE("pep440: > excludes post and local releases of V, < excludes pre-releases of V",
          "[pkg][pep440]") {
  CHECK_FALSE(in(">1.7", "1.7.post1"));
  CHECK_FALSE(in(">1.7", "1.7+local"));
  CHECK(in(">1.7", "1.7.1"));
  CHECK(in(">1.7.post2", "1.7.post3"));
  CHECK_FALSE(in(">1.7.post2", "1.7.post2+local"));
  CHECK(in(">1.7a1", "1.7"));
  CHECK_FALSE(in_pre("<1.7", "1.7rc1"));
  CHECK_FALSE(in_pre("<1.7", "1.7.dev0"));
  CHECK(in_pre("<1.7", "1.6.9rc1"));
  CHECK(in_pre("<1.7rc2", "1.7rc1"));
  CHECK(in("<1.7", "1.6.post1"));
  CHECK_FALSE(in("<1.7", "1.7"));
  // <V.postN ends at V.postN.dev0: V's pre-releases are below it (packaging 23.0 left them
  // out by V's base version).
  CHECK(in_pre("<1.7.post1", "1.7rc1"));
  CHECK(in("<1.7.post1", "1.7"));
  CHECK_FALSE(in_pre("<1.7.post1", "1.7.post1.dev0"));
  CHECK(in_pre("<1.7.post1.dev2", "1.7.post1.dev1"));
  // >V.devN / >V.postN start at the next real version.
  CHECK(in_pre(">1.7.dev1", "1.7.dev2"));
  CHECK_FALSE(in_pre(">1.7.dev1", "1.7.dev1+local"));
  CHECK(in_pre(">1.7.post1", "1.7.post2.dev0"));
  CHECK_FALSE(in(">1.7", "1.7.post1.dev3"));  // V's post family, dev releases included
}

TEST_CASE("pep440: === compares normalised strings case-insensitively", "[pkg][pep440]") {
  CHECK(in("===1.0", "1.0"));
  CHECK_FALSE(in("===1.0", "1.0.0"));
  CHECK(in("===1.0+ABC", "1.0+abc"));
  CHECK_FALSE(in("===v1.0", "1.0"));  // the operand is not normalised
  CHECK_FALSE(in("===foobar", "1.0"));
}

TEST_CASE("pep440: a lone version is judged like any other unless pre-releases are refused",
          "[pkg][pep440]") {
  // packaging 26: contains() of one version has no alternatives to prefer, so a pre-release
  // matches by default; only an explicit `false` leaves it out. Which pre-releases a resolver
  // picks is its own policy (lock/python_provider).
  CHECK(in("", "1.0a1"));
  CHECK(in(">=1.0", "2.0a1"));
  CHECK_FALSE(parse_specifier_set(">=1.0").value().contains(v("2.0a1"), false));
  CHECK_FALSE(parse_specifier_set(">=1.0a1").value().contains(v("2.0a1"), false));
  CHECK(in("", "1.0"));
  CHECK(in("==1.0a1", "1.0a1"));
  auto clause = parse_specifier(">=1.0").value();
  CHECK(clause.contains(v("2.0a1")));
  CHECK_FALSE(clause.contains(v("2.0a1"), false));
  CHECK_FALSE(clause.contains(std::string_view("not a version")));
}

TEST_CASE("pep440: whether a set admits pre-releases by itself: true or unknown",
          "[pkg][pep440]") {
  CHECK_FALSE(parse_specifier_set("")->prereleases().has_value());
  CHECK_FALSE(parse_specifier_set(">=1.0")->prereleases().has_value());  // never `false`
  CHECK(*parse_specifier_set(">=1.0a1")->prereleases());
  CHECK(*parse_specifier_set(">=1.0a1,<3")->prereleases());
  CHECK(*parse_specifier_set("<1.0a1")->prereleases());  // every operator but != and .*
  CHECK(*parse_specifier_set(">1.0a1")->prereleases());
  CHECK_FALSE(parse_specifier_set("!=1.0a1")->prereleases().has_value());
  CHECK(*parse_specifier_set("==1.0.dev1")->prereleases());
  CHECK(*parse_specifier_set("===1.0a1")->prereleases());
  CHECK_FALSE(parse_specifier_set("===foobar")->prereleases().has_value());
  CHECK_FALSE(parse_specifier("===foobar")->prereleases().has_value());
  CHECK_FALSE(parse_specifier_set("==1.0.*")->prereleases().has_value());
  CHECK(*parse_specifier("~=1.0b1")->prereleases());
}

TEST_CASE("pep440: a set's string is sorted and its clauses deduplicated like packaging",
          "[pkg][pep440]") {
  CHECK(parse_specifier_set(" >=1.0 , <2 ")->to_string() == "<2,>=1.0");
  CHECK(parse_specifier_set(">=1.0,>=1.0.0")->to_string() == ">=1.0");  // same canonical form
  CHECK(parse_specifier_set(">=1.0,>=1.0.0")->specifiers().size() == 1);
  CHECK(parse_specifier_set("~=1.0,~=1.0.0")->specifiers().size() == 2);  // ~= keeps zeros
  CHECK(parse_specifier_set("==1.*,==1.0.*")->specifiers().size() == 2);
  CHECK(parse_specifier_set(",,")->empty());
  CHECK(parse_specifier_set("")->to_string().empty());
  auto both = parse_specifier_set(">=1")->intersect(parse_specifier_set("<2,>=1.0").value());
  CHECK(both.to_string() == "<2,>=1");
  CHECK(both.contains(v("1.5")));
  CHECK_FALSE(both.contains(v("2.0")));
}

TEST_CASE("pep440: arbitrary bytes never crash the specifier parser", "[pkg][pep440]") {
  std::mt19937 random(11);
  const std::string alphabet = "0123456789.*!+-_,;)=<>~ vVaArRcCpPdDeE\t\xc2\xa0";
  const Version probes[] = {v("1.0"), v("1!2.0rc1+x"), v("0"), v("3.4.5.6.7.dev1")};
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = static_cast<int>(random() % 20);
    for (int j = 0; j < length; ++j) {
      text.push_back(i % 3 != 0 ? alphabet[random() % alphabet.size()]
                                : static_cast<char>(random() % 256));
    }
    auto set = parse_specifier_set(text);
    if (!set) continue;
    ++valid;
    for (const Version& probe : probes) {
      (void)set->contains(probe);
      (void)set->contains(probe, true);
    }
    // The string form parses back to the same string.
    auto again = parse_specifier_set(set->to_string());
    REQUIRE(again.has_value());
    CHECK(again->to_string() == set->to_string());
  }
  CHECK(valid > 0);
}
