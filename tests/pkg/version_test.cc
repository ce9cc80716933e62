#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "src/pkg/version.h"

namespace {

using wv::pkg::parse_version;
using wv::pkg::Version;

Version v(std::string_view text) {
  auto parsed = parse_version(text);
  INFO("parsing `" << text << "`");
  REQUIRE(parsed.has_value());
  return *parsed;
}

std::string normal(std::string_view text) { return v(text).to_string(); }

}  // namespace

TEST_CASE("pep440: pre-release spellings normalise", "[pkg][pep440]") {
  CHECK(normal("1.0a1") == "1.0a1");
  CHECK(normal("1.0alpha1") == "1.0a1");
  CHECK(normal("1.0.alpha.1") == "1.0a1");
  CHECK(normal("1.0-ALPHA_1") == "1.0a1");
  CHECK(normal("1.0beta2") == "1.0b2");
  CHECK(normal("1.0c3") == "1.0rc3");
  CHECK(normal("1.0pre3") == "1.0rc3");
  CHECK(normal("1.0preview3") == "1.0rc3");
  CHECK(normal("1.0RC3") == "1.0rc3");
  CHECK(normal("1.0a") == "1.0a0");   // implicit pre-release number
  CHECK(normal("1.0a.") == "1.0a0");  // a trailing separator is part of the suffix
  CHECK(normal("1.0a-1") == "1.0a1");
  CHECK(normal("1.0.post-") == "1.0.post0");  // so is one after post and dev
  CHECK(normal("1.0.dev_") == "1.0.dev0");
}

TEST_CASE("pep440: post and dev spellings normalise, including the implicit post release",
          "[pkg][pep440]") {
  CHECK(normal("1.0-1") == "1.0.post1");
  CHECK(normal("1.0post1") == "1.0.post1");
  CHECK(normal("1.0.rev1") == "1.0.post1");
  CHECK(normal("1.0_r1") == "1.0.post1");
  CHECK(normal("1.0.post") == "1.0.post0");
  CHECK(normal("1.0-r") == "1.0.post0");
  CHECK(normal("1.0dev") == "1.0.dev0");
  CHECK(normal("1.0-dev-2") == "1.0.dev2");
  CHECK(normal("1.0a1-1") == "1.0a1.post1");
  CHECK(normal("1!2.0rc1.post2.dev3+abc.1") == "1!2.0rc1.post2.dev3+abc.1");
}

TEST_CASE("pep440: leading v, case, whitespace and local labels", "[pkg][pep440]") {
  CHECK(normal("v1.0") == "1.0");
  CHECK(normal("V1.0") == "1.0");
  CHECK(normal("  1.0\t\n") == "1.0");
  CHECK(normal("\xc2\xa0" "1.0\xe3\x80\x80") == "1.0");  // U+00A0 and U+3000 are \s in Python
  CHECK(normal("1.0+Ubuntu-01") == "1.0+ubuntu.1");
  CHECK(normal("1.0+ubuntu_1.X") == "1.0+ubuntu.1.x");
  CHECK(normal("01.002") == "1.2");
  Version local = v("1.0+Ubuntu-01");
  CHECK(local.local() == "ubuntu.1");
  CHECK(local.has_local());
  CHECK(local.public_version().to_string() == "1.0");
  CHECK(v("1!2.0rc1.post1+x").base_version().to_string() == "1!2.0");
}

TEST_CASE("pep440: invalid versions are refused with the input and a position",
          "[pkg][pep440]") {
  for (std::string_view bad :
       {"", " ", "v", "1.", "1..0", ".1", "1.0+", "1.0+a..b", "1.0+_a", "1!", "!1", "1.0-",
        "1.0 a1", "1.0.*", "1.0a1a1", "1.0.post1.post2", "1.0.dev1a1", "1.0++a", "a1.0",
        "1.0+ub untu", "1,0", "1.0\x01", "1.0\xff", "1.0.post1-", "1.0.dev.."}) {
    INFO("`" << bad << "`");
    auto parsed = parse_version(bad);
    CHECK_FALSE(parsed.has_value());
    CHECK_FALSE(wv::pkg::is_valid_version(bad));
    if (!parsed) {
      CHECK(parsed.error().code == wv::ErrorCode::kParse);
      CHECK(parsed.error().message.find("invalid version `") == 0);
    }
  }
}

TEST_CASE("pep440: numbers above 2^64-1 are refused as unsupported", "[pkg][pep440]") {
  CHECK(v("18446744073709551615").release()[0] == 18446744073709551615ULL);
  auto big = parse_version("18446744073709551616");
  REQUIRE_FALSE(big);
  CHECK(big.error().code == wv::ErrorCode::kUnsupported);
  CHECK_FALSE(parse_version("1.0.post99999999999999999999"));
  CHECK_FALSE(parse_version("99999999999999999999!1.0"));
  // Local numbers are compared as digit strings, so any length is fine there.
  Version long_local = v("1.0+99999999999999999999999");
  CHECK(long_local.local() == "99999999999999999999999");
  CHECK(long_local > v("1.0+99999999999999999999998"));
  CHECK(v("1.0+000123") == v("1.0+123"));
}

TEST_CASE("pep440: accessors report every part", "[pkg][pep440]") {
  Version x = v("3!1.2.3.4.5rc7.post8.dev9+Abc.007");
  CHECK(x.epoch() == 3);
  CHECK(std::vector<std::uint64_t>(x.release().begin(), x.release().end()) ==
        std::vector<std::uint64_t>{1, 2, 3, 4, 5});
  REQUIRE(x.pre());
  CHECK(x.pre()->first == Version::PreKind::kRc);
  CHECK(x.pre()->second == 7);
  CHECK(x.post() == std::optional<std::uint64_t>(8));
  CHECK(x.dev() == std::optional<std::uint64_t>(9));
  CHECK(x.local() == "abc.7");
  CHECK(x.is_prerelease());
  CHECK(x.is_postrelease());
  CHECK(x.is_devrelease());
  Version plain = v("2.0");
  CHECK_FALSE(plain.is_prerelease());
  CHECK_FALSE(plain.pre());
  CHECK_FALSE(plain.post());
  CHECK_FALSE(plain.dev());
  CHECK(plain.local().empty());
  CHECK(v("1.0.post1").is_postrelease());
  CHECK_FALSE(v("1.0.post1").is_prerelease());
  CHECK(v("1.0.dev1").is_prerelease());
  CHECK(Version().to_string() == "0");
  CHECK(Version::from_release({2, 8, 0}).to_string() == "2.8.0");
  CHECK(Version::from_release({}).to_string() == "0");
}

TEST_CASE("pep440: the ordering chain of PEP 440's summary", "[pkg][pep440]") {
  // Each version sorts strictly before the next (PEP 440, "Summary of permitted suffixes and
  // relative ordering", extended with epochs and local labels).
  const std::vector<std::string_view> chain = {
      "1.0.dev456", "1.0a1",           "1.0a2.dev456",     "1.0a12.dev456", "1.0a12",
      "1.0b1.dev456", "1.0b2",         "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456",
      "1.0rc1",      "1.0",            "1.0+abc.5",        "1.0+abc.7",     "1.0+5",
      "1.0.post456.dev34", "1.0.post456", "1.0.15",        "1.1.dev1",      "1.1",
      "2.0",         "1!0.1",          "1!1.0",
  };
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
    for (std::size_t j = i + 1; j < chain.size(); ++j) {
      INFO(chain[i] << " < " << chain[j]);
      CHECK(v(chain[i]) < v(chain[j]));
      CHECK(v(chain[j]) > v(chain[i]));
      CHECK(v(chain[i]) != v(chain[j]));
    }
  }
  // Sorting a reversed copy restores the chain.
  std::vector<Version> versions;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) versions.push_back(v(*it));
  std::sort(versions.begin(), versions.end());
  for (std::size_t i = 0; i < chain.size(); ++i) CHECK(versions[i].to_string() == chain[i]);
}

TEST_CASE("pep440: a local version sorts after its public version", "[pkg][pep440]") {
  CHECK(v("1.0") < v("1.0+local"));
  CHECK(v("1.0+local") < v("1.0.post1"));
  CHECK(v("1.0+abc") < v("1.0+abc.1"));    // a longer label after its prefix
  CHECK(v("1.0+zzz") < v("1.0+1"));        // numbers after words
  CHECK(v("1.0+2") < v("1.0+10"));         // numbers compare as numbers
  CHECK(v("1.0+a10") < v("1.0+a9"));       // words compare as text
}

TEST_CASE("pep440: equal versions compare and hash equal", "[pkg][pep440]") {
  const std::vector<std::vector<std::string_view>> groups = {
      {"1.0", "1.0.0", "1", "1.0.0.0.0.0", "v1.0", "01.00"},
      {"1.0a1", "1.0.0alpha1", "1.0.0.0.0a1"},
      {"1.0+abc.1", "1.0.0+ABC.01", "1.0.0.0.0.0+abc-1"},
      {"0!2.0", "2", "2.0.0.0.0"},
      {"1.2.3.4.5", "1.2.3.4.5.0"},
  };
  for (const auto& group : groups) {
    for (std::string_view a : group) {
      for (std::string_view b : group) {
        INFO(a << " == " << b);
        CHECK(v(a) == v(b));
        CHECK(std::is_eq(v(a) <=> v(b)));
        CHECK(wv::pkg::hash_value(v(a)) == wv::pkg::hash_value(v(b)));
        CHECK(std::hash<Version>()(v(a)) == std::hash<Version>()(v(b)));
      }
    }
  }
  std::unordered_set<Version> set = {v("1.0"), v("1.0.0"), v("1.0+x"), v("1.0.0+X")};
  CHECK(set.size() == 2);
}

TEST_CASE("pep440: the compact key covers common versions and agrees with the full order",
          "[pkg][pep440]") {
  CHECK(v("2.8.0").has_compact_key());
  CHECK(v("1.26.4").has_compact_key());
  CHECK(v("2024.10.1").has_compact_key());
  CHECK(v("1.0rc1").has_compact_key());
  CHECK(v("1.0.post3.dev4").has_compact_key());
  CHECK(v("1.0.0.0.0.0").has_compact_key());  // trailing zeros do not count
  CHECK_FALSE(v("1!1.0").has_compact_key());
  CHECK_FALSE(v("1.0+local").has_compact_key());
  CHECK_FALSE(v("20240101").has_compact_key());
  CHECK_FALSE(v("1.2.3.4.5").has_compact_key());
  CHECK_FALSE(v("1.0.dev20240101").has_compact_key());

  // Random versions around every field's limit, with and without epochs, long releases and
  // local labels: the key must be monotone, exact keys must decide equality, and the
  // comparison (key first) must equal the full comparison of the parts.
  std::mt19937_64 random(20240101);
  const std::uint64_t edges[] = {0,   1,   2,    13,   14,    15,    16,   29,  30,
                                 31,  32,  126,  127,  128,   4094,  4095, 4096, 65534,
                                 65535, 65536, 1ULL << 40, 18446744073709551615ULL};
  auto pick = [&]() { return edges[random() % std::size(edges)]; };
  std::vector<Version> versions;
  for (int i = 0; i < 4000; ++i) {
    std::vector<std::uint64_t> release(1 + random() % 6);
    for (auto& part : release) part = random() % 3 == 0 ? 0 : pick();
    std::optional<std::pair<Version::PreKind, std::uint64_t>> pre;
    if (random() % 3 == 0) pre = std::make_pair(static_cast<Version::PreKind>(random() % 3), pick());
    std::optional<std::uint64_t> post, dev;
    if (random() % 3 == 0) post = pick();
    if (random() % 3 == 0) dev = pick();
    std::vector<std::string> local;
    if (random() % 8 == 0) local.push_back(random() % 2 ? "abc" : std::to_string(random() % 3));
    versions.push_back(Version::from_parts(random() % 10 == 0 ? pick() : 0, release, pre, post,
                                           dev, local));
  }
  int exact = 0;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const Version& a = versions[i];
    exact += a.has_compact_key();
    for (std::size_t j : {i + 1, i + 2, (i * 7919) % versions.size()}) {
      if (j >= versions.size()) continue;
      const Version& b = versions[j];
      const auto full = Version::compare_full(a, b);
      INFO(a.to_string() << " vs " << b.to_string());
      CHECK(((a <=> b) == full));
      CHECK((a == b) == std::is_eq(full));
      if (std::is_lt(full)) CHECK(a.compact_key() <= b.compact_key());
      if (std::is_gt(full)) CHECK(a.compact_key() >= b.compact_key());
      if (a.has_compact_key() && b.has_compact_key()) {
        CHECK((a.compact_key() == b.compact_key()) == std::is_eq(full));
      }
      if (a == b) CHECK(a.hash() == b.hash());
    }
    CHECK(parse_version(a.to_string()).value() == a);
  }
  CHECK(exact > 500);
  CHECK(exact < 3500);
}

TEST_CASE("pep440: round trips through the normal form", "[pkg][pep440]") {
  for (std::string_view text :
       {"0", "1.0", "1.0.0", "2!1.0rc3.post0.dev0+a.b.0", "1.0a0", "1.0.post0", "1.0.dev0",
        "18446744073709551615.1", "1.2.3.4.5.6.7.8.9", "1.0+abc-def_ghi.0"}) {
    Version first = v(text);
    Version second = v(first.to_string());
    CHECK(second.to_string() == first.to_string());
    CHECK(second == first);
  }
}

TEST_CASE("pep440: copies are cheap and independent of the original", "[pkg][pep440]") {
  std::vector<Version> originals = {v("1.0"), v("1!1.0+x"), v("1.2.3.4.5.6")};
  std::vector<Version> copies = originals;
  originals.clear();
  CHECK(copies[0].to_string() == "1.0");
  CHECK(copies[1].to_string() == "1!1.0+x");
  CHECK(copies[2].to_string() == "1.2.3.4.5.6");
  CHECK(sizeof(Version) <= 64);
}

TEST_CASE("pep440: arbitrary bytes never crash the parser", "[pkg][pep440]") {
  std::mt19937 random(7);
  const std::string alphabet = "0123456789.!+-_vVaAbBcCrRpPdDeEoOsStTiIwWlLhH *\t\n\xc2\xa0\x00\xff";
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = static_cast<int>(random() % 24);
    for (int j = 0; j < length; ++j) {
      text.push_back(i % 2 == 0 ? alphabet[random() % alphabet.size()]
                                : static_cast<char>(random() % 256));
    }
    auto parsed = parse_version(text);
    CHECK(parsed.has_value() == wv::pkg::is_valid_version(text));
    if (parsed) {
      ++valid;
      // Whatever parses has a normal form that parses to an equal version.
      auto again = parse_version(parsed->to_string());
      REQUIRE(again.has_value());
      CHECK(*again == *parsed);
    } else {
      CHECK_FALSE(parsed.error().message.empty());
    }
  }
  CHECK(valid > 0);
  // Very long inputs.
  CHECK(parse_version(std::string(100000, '1')).has_value() == false);
  std::string many_parts = "1";
  for (int i = 0; i < 10000; ++i) many_parts += ".1";
  CHECK(v(many_parts).release().size() == 10001);
  std::string long_local = "1.0+a";
  for (int i = 0; i < 10000; ++i) long_local += ".b";
  CHECK(v(long_local).has_local());
}
