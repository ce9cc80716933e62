#include "src/base/json_writer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace wv {
namespace {

TEST_CASE("json writer: nested values read back as written") {
  JsonWriter json;
  json.begin_object().field("version", 1).field("name", "a\"b\\c\n\x01").field("ok", true);
  json.key("none").null().field("ratio", 0.1).field("big", std::uint64_t(1) << 63);
  json.key("empty").begin_array().end().key("nested").begin_array();
  json.begin_object().key("list").strings({"x", "y"}).end().value(-3).end();
  json.field("maybe", std::optional<std::string>()).key("raw").raw("[1, 2]");
  json.key("unknown").text_or_null("").key("known").text_or_null("x").end();
  const std::string text = json.text();
  nlohmann::json doc = nlohmann::json::parse(text);
  CHECK(doc["version"] == 1);
  CHECK(doc["name"] == "a\"b\\c\n\x01");
  CHECK(doc["ok"] == true);
  CHECK(doc["none"].is_null());
  CHECK(doc["ratio"] == 0.1);  // the shortest text that reads back exactly
  CHECK(doc["big"] == (std::uint64_t(1) << 63));
  CHECK(doc["empty"].empty());
  CHECK(doc["nested"][0]["list"][1] == "y");
  CHECK(doc["nested"][1] == -3);
  CHECK(doc["maybe"].is_null());
  CHECK(doc["raw"][1] == 2);
  CHECK(doc["unknown"].is_null());
  CHECK(doc["known"] == "x");
  CHECK(text.back() == '\n');
  CHECK(text.find("\"empty\": []") != std::string::npos);  // an empty container on one line
}

TEST_CASE("json writer: numbers JSON cannot hold become null") {
  JsonWriter json;
  json.begin_array().value(1.0 / 0.0).value(0.0 / 0.0).end();
  CHECK(nlohmann::json::parse(json.text()) == nlohmann::json::parse("[null, null]"));
}

}  // namespace
}  // namespace wv
