// The saved disagreements with packaging 26.4 (tests/differential/cases/<kind>.txt, format in
// docs/differential.md) as regression tests: every line's expected answer must be our current
// answer. A `spec:` line records a deliberate difference and a `bug:` line a known bug not yet
// fixed (expected != packaging's answer, still recognised as that class); a `fixed:` line a bug
// we fixed and an `agrees:` line a former difference packaging 26 resolved our way (expected ==
// packaging's answer).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "src/base/str.h"
#include "differential/answers.h"
#include "tests/support/conformance.h"

namespace wv::differential {
namespace {

// The case file of `kind` (str_cat: g++ 12 warns falsely on a chain of std::string `+`).
std::string case_file(Kind kind) {
  return str_cat(WV_SOURCE_DIR, "/tests/differential/cases/", kind_name(kind), ".txt");
}

TEST_CASE("differential: every saved case gives its recorded answer", "[differential]") {
  int files = 0;
  for (Kind kind : kAllKinds) {
    const std::string path = case_file(kind);
    int passed = 0;
    int failed = 0;
    bool readable = wv::test::for_each_line(path, [&](std::string_view line, int number) {
      if (line.starts_with("#")) return;
      std::vector<std::string> columns;
      for (std::string_view column : split(line, '\t')) {
        std::optional<std::string> text = unescape(column);
        if (!text) {
          FAIL_CHECK(path << ":" << number << ": malformed escape");
          ++failed;
          return;
        }
        columns.push_back(std::move(*text));
      }
      const std::size_t inputs = input_columns(kind);
      if (columns.size() != inputs + 3) {
        FAIL_CHECK(path << ":" << number << ": expected " << inputs + 3 << " columns, got "
                        << columns.size());
        ++failed;
        return;
      }
      const std::string& expected = columns[inputs];
      const std::string& packaging = columns[inputs + 1];
      const std::string& verdict = columns[inputs + 2];
      std::string ours = answer_case(kind, std::span<const std::string>(columns.data(), inputs));
      bool ok = ours == expected;
      // The verdict must fit the answers: a deliberate difference or a known bug differs from
      // packaging and is still recognised as that class (a fixed bug fails here: record it as
      // `fixed:`); a fixed bug or a resolved difference agrees with packaging.
      if (verdict.starts_with("spec:") || verdict.starts_with("bug:")) {
        ok = ok && expected != packaging &&
             explain(kind, std::span<const std::string>(columns.data(), inputs), expected,
                     packaging) == verdict;
      } else if (verdict.starts_with("fixed:") || verdict.starts_with("agrees:")) {
        ok = ok && expected == packaging;
      } else {
        ok = false;
      }
      if (ok) {
        ++passed;
      } else {
        ++failed;
        FAIL_CHECK(path << ":" << number << ": " << verdict << "\n  expected:  "
                        << escape(expected) << "\n  ours now:  " << escape(ours)
                        << "\n  packaging: " << escape(packaging));
      }
    });
    if (!readable) continue;
    ++files;
    wv::test::print_tally(path, passed, failed);
    REQUIRE(failed == 0);
  }
  REQUIRE(files > 0);
}

TEST_CASE("differential: case-file escaping round-trips any bytes", "[differential]") {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string escaped = escape(all);
  for (char c : escaped) {
    CHECK(static_cast<unsigned char>(c) >= 0x20);
    CHECK(static_cast<unsigned char>(c) < 0x7f);
  }
  CHECK(unescape(escaped) == all);
  CHECK_FALSE(unescape("\\x4").has_value());
  CHECK_FALSE(unescape("\\q").has_value());
  CHECK_FALSE(unescape("end\\").has_value());
}

TEST_CASE("differential: our answers use the oracle's field layout", "[differential]") {
  CHECK(join_answer(our_version(" V1.0-1 ")) == "ok | 1.0.post1 | 1.0.post1 | 1.0 | 010 | ");
  CHECK(join_answer(our_version("1.0+Ubuntu-01")) ==
        "ok | 1.0+ubuntu.1 | 1.0 | 1.0 | 000 | ubuntu.1");
  CHECK(join_answer(our_version("1..0")) == "invalid");
  CHECK(join_answer(our_version("18446744073709551616")) == "unsupported");
  std::vector<std::string> list = {"1.0", "1.0.0", "1.0a1", "bad", "2"};
  CHECK(our_order(list) == Fields{"1", "1", "0", "x", "3"});
  std::vector<std::string> versions = {"1.5", "2.0rc1"};
  // packaging 26: a set without a pre-release clause says None; a lone pre-release is
  // contained unless pre-releases are refused.
  CHECK(join_answer(our_specifier(">=1.0, <3", versions)) ==
        "ok | <3,>=1.0 | None | 111 | 110");
  std::vector<std::string> pair = {"1.0", "1.0+x"};
  CHECK(answer_case(Kind::kOrder, pair) == "<");
  std::vector<std::string> marker = {"python_version >= '3.8' and extra == 'Dev_Extra'",
                                     "cpython|3.12.4|posix|x86_64|CPython|6.1|Linux|#1|3.12.4|3.12|linux",
                                     "dev-extra"};
  CHECK(answer_case(Kind::kMarker, marker) ==
        "ok | python_version >= \"3.8\" and extra == \"dev-extra\" | 1");
  // `~=x` is no specifier, and `~=` has no string meaning: UndefinedComparison.
  std::vector<std::string> bad_marker = {"os_name >= '1' and python_version ~= 'x'",
                                         marker[1], ""};
  CHECK(answer_case(Kind::kMarker, bad_marker) ==
        "ok | os_name >= \"1\" and python_version ~= \"x\" | E:comparison");
  std::vector<std::string> requirement = {"Foo[b,a]>=1,<2; os_name=='nt'"};
  CHECK(answer_case(Kind::kRequirement, requirement) ==
        "ok | Foo[a,b]<2,>=1; os_name == \"nt\" | Foo | a,b | <2,>=1 |  | os_name == \"nt\"");
}

}  // namespace
}  // namespace wv::differential

namespace wv::differential {
namespace {

TEST_CASE("differential: the classifier explains only its own classes", "[differential]") {
  // A plain disagreement is never explained.
  std::vector<std::string> version = {"1.0"};
  CHECK_FALSE(explain(Kind::kVersion, version, "ok | 1.0 | 1.0 | 1.0 | 000 | ",
                      "ok | 1.0.0 | 1.0.0 | 1.0.0 | 000 | "));
  // A big number explains a refusal, not a wrong normal form of an accepted version.
  std::vector<std::string> big = {"1.99999999999999999999"};
  CHECK(explain(Kind::kVersion, big, "unsupported",
                "ok | 1.99999999999999999999 | 1.99999999999999999999 | "
                "1.99999999999999999999 | 000 | ")
            .has_value());
  CHECK_FALSE(explain(Kind::kVersion, big, "ok | 2 | 2 | 2 | 000 | ",
                      "ok | 1.99999999999999999999 | 1.99999999999999999999 | "
                      "1.99999999999999999999 | 000 | "));
  const std::string environment =
      "cpython|3.12.4|posix|x86_64|CPython|6.1|Linux|#1|3.12.4|3.12|linux";
  // A URL packaging takes and we refuse is no deliberate difference.
  std::vector<std::string> url = {"p @ file:/x.whl"};
  CHECK_FALSE(explain(Kind::kRequirement, url, "invalid",
                      "ok | p @ file:/x.whl | p |  |  | file:/x.whl | "));
  // An unprintable value explains only the printed form, and only with both quotes in ours.
  std::vector<std::string> quotes = {"os_name == 'a\\x27\"b'", environment, ""};
  CHECK(explain(Kind::kMarker, quotes, "ok | os_name == \"a'\"b\" | 0",
                "ok | unprintable: ValueError | 0")
            .value_or("")
            .starts_with("spec: unprintable-value:"));
  CHECK_FALSE(explain(Kind::kMarker, quotes, "ok | os_name == \"a'\"b\" | 1",
                      "ok | unprintable: ValueError | 0"));
}

}  // namespace
}  // namespace wv::differential
