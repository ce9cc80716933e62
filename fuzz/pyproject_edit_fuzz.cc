// The format-preserving pyproject.toml edits (pkg/pyproject_edit.h) on any text, with toml++
// (targets/project_file.h) as the oracle. Properties: no crash; when the text is a project
// file toml++ reads, adding a requirement gives a file it still reads whose dependencies are
// the old ones plus the new one, and removing it again gives the old dependencies back in
// their order; a source entry added is read back.
#include <algorithm>

#include "fuzz/fuzz_target.h"
#include "src/pkg/pyproject_edit.h"
#include "targets/project_file.h"

WV_FUZZ_TARGET(pyproject_edit) {
  if (size > wv::fuzz::kMaxTextInput) return;
  const std::string_view text = wv::fuzz::as_text(data, size);
  const wv::pkg::DependencyList project{};
  auto added = wv::pkg::add_dependency(text, "pyproject.toml", project, "zz-fuzz>=1");
  auto before = wv::targets::parse_project_file(text, "/project/pyproject.toml");
  if (!added) {
    WV_FUZZ_CHECK(!added.error().message.empty(), "an error without a message");
    return;
  }
  if (!before) return;
  const std::vector<std::string>& old = before.value().dependencies;
  if (std::any_of(old.begin(), old.end(), [](const std::string& item) {
        return wv::pkg::requirement_name(item) == "zz-fuzz";
      })) {
    return;
  }
  auto after = wv::targets::parse_project_file(added.value(), "/project/pyproject.toml");
  WV_FUZZ_CHECK(after.has_value(), "the edited file does not parse: " + added.value());
  std::vector<std::string> expected = old;
  expected.push_back("zz-fuzz>=1");
  std::vector<std::string> got = after.value().dependencies;
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  WV_FUZZ_CHECK(got == expected, "the dependencies after the add differ: " + added.value());

  auto removed = wv::pkg::remove_dependency(added.value(), "pyproject.toml", project, "ZZ_fuzz");
  WV_FUZZ_CHECK(removed.has_value() && removed.value().removed == 1, "the added item is not removed");
  auto back = wv::targets::parse_project_file(removed.value().text, "/project/pyproject.toml");
  WV_FUZZ_CHECK(back.has_value() && back.value().dependencies == old,
                "remove after add does not give the dependencies back: " + removed.value().text);

  auto source = wv::pkg::set_source(text, "pyproject.toml", "zz-fuzz", "{ index = \"zz-fuzz-index\" }");
  if (!source) return;
  // Unless the text declares that index, parse_project_file refuses the entry by its name:
  // either way the entry is read back.
  auto with_source = wv::targets::parse_project_file(source.value(), "/project/pyproject.toml");
  WV_FUZZ_CHECK(with_source.has_value()
                    ? with_source.value().sources.count(wv::pkg::parse_package_name("zz-fuzz").value()) == 1
                    : with_source.error().message.find("`zz-fuzz-index`") != std::string::npos,
                "the source entry is not read back: " + source.value());
}
