#include <catch2/catch.hpp>

#include "src/base/result.h"

namespace {

wv::Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return wv::make_error(wv::ErrorCode::kParse, "not a digit");
  return c - '0';
}

wv::Result<int> sum_digits(const char* text) {
  int sum = 0;
  for (const char* p = text; *p; ++p) {
    WV_ASSIGN_OR_RETURN(int digit, parse_digit(*p));
    sum += digit;
  }
  return sum;
}

wv::Result<void> all_digits(const char* text) {
  for (const char* p = text; *p; ++p) WV_TRY(parse_digit(*p));
  return {};
}

}  // namespace

TEST_CASE("result: holds a value or an error", "[base][result]") {
  auto good = parse_digit('7');
  REQUIRE(good.has_value());
  CHECK(*good == 7);
  auto bad = parse_digit('x');
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == wv::ErrorCode::kParse);
  CHECK(bad.value_or(-1) == -1);
}

TEST_CASE("result: WV_ASSIGN_OR_RETURN and WV_TRY propagate the first error", "[base][result]") {
  CHECK(*sum_digits("123") == 6);
  CHECK_FALSE(sum_digits("1x3"));
  CHECK(all_digits("42").has_value());
  CHECK(all_digits("4z").error().message == "not a digit");
}

TEST_CASE("result: parse errors show the input and a caret", "[base][result]") {
  wv::Error error = wv::make_parse_error("version", "1.0+", 4, "expected a local label");
  CHECK(error.message == "invalid version `1.0+`: expected a local label");
  REQUIRE(error.notes.size() == 2);
  CHECK(error.notes[0] == "    1.0+");
  CHECK(error.notes[1] == "        ^");
  CHECK(std::move(error).with_context("reading `x`").message.rfind("reading `x`: ", 0) == 0);
}
