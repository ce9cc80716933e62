// Declared targets for the lock tests, read the way the CLI reads them: a pyproject.toml with
// `python = "3.12"` and the given `[[tool.wvlock.target]]` tables.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "lock/target_context.h"
#include "targets/project_file.h"

namespace wv::test {

inline std::vector<wv::lock::TargetContext> contexts(const std::string& targets_toml) {
  std::string text =
      "[project]\nname = \"demo\"\n[tool.wvlock]\npython = \"3.12\"\n" + targets_toml;
  auto config = wv::targets::parse_project_file(text, "pyproject.toml");
  INFO((config ? "" : config.error().to_string()));
  REQUIRE(config);
  std::vector<wv::lock::TargetContext> result;
  for (const auto& target : config->targets) {
    auto context = wv::lock::make_target_context(target);
    REQUIRE(context);
    result.push_back(std::move(*context));
  }
  return result;
}

}  // namespace wv::test
