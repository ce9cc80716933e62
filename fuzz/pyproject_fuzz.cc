// pyproject.toml as wvlock reads it (targets/project_file.h): `[project]`,
// `[dependency-groups]`, `[tool.wvlock]` and its `[[tool.wvlock.target]]` tables, through
// toml++. Properties: no crash, no exception; every declared target is found by its (unique)
// name; reading the same text twice gives the same configuration.
#include "fuzz/fuzz_target.h"
#include "targets/project_file.h"

WV_FUZZ_TARGET(pyproject) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  auto config = wv::targets::parse_project_file(text, "/project/pyproject.toml");
  if (!config) {
    WV_FUZZ_CHECK(!config.error().message.empty(), "an error without a message");
    return;
  }
  const wv::targets::ProjectConfig& c = config.value();
  for (const wv::targets::Target& target : c.targets) {
    // Duplicate names are refused, so each name finds its own target.
    WV_FUZZ_CHECK(c.find_target(target.name) == &target, "declared target not found: " + target.name);
  }
  (void)wv::targets::resolve_project_path(c, c.index_url.value_or("simple"));
  for (const std::string& link : c.find_links) (void)wv::targets::resolve_project_path(c, link);
  auto again = wv::targets::parse_project_file(text, "/project/pyproject.toml");
  WV_FUZZ_CHECK(again.has_value() && again.value().dependencies == c.dependencies &&
                    again.value().targets.size() == c.targets.size() &&
                    again.value().dependency_groups == c.dependency_groups,
                "the same text read twice differs");
}
