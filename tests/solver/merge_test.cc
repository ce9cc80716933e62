// Facts merged across versions (pubgrub-rs merge_incompatibility) and the report that comes of
// them: versions that fail for the same cause read as one range, not one line each.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "semver.h"
#include "solver/offline_provider.h"
#include "solver/report.h"
#include "solver/solve.h"
#include "solver/state_impl.h"

namespace {

using namespace wv::solver;
using namespace wv::solver::test;
using Provider = OfflineProvider<std::string, SemVer>;
using Deps = std::vector<std::pair<std::string, SemRanges>>;
using Unsolved = NoSolution<std::string, SemRanges, std::string>;

// The default wording, with each set written over the registry's versions as the fewest
// ranges from one listed version to another (as lock/ writes Python sets): a set merged from
// single versions, `==1.0.0 | ==1.1.0 | ==1.2.0`, reads `>=1.0.0 <=1.2.0`.
class RegistryFormatter : public DefaultReportFormatter<std::string, SemRanges, std::string> {
 public:
  explicit RegistryFormatter(const Provider& provider) : provider_(provider) {}
  std::string set_text(const std::string& package, const SemRanges& set) const override {
    const std::vector<SemVer> versions = provider_.versions(package);
    SemRanges runs;
    std::size_t i = 0;
    while (i < versions.size()) {
      if (!set.contains(versions[i])) {
        ++i;
        continue;
      }
      std::size_t last = i;
      while (last + 1 < versions.size() && set.contains(versions[last + 1])) ++last;
      runs = runs.union_with(SemRanges::from_segment(Bound<SemVer>::included(versions[i]),
                                                     Bound<SemVer>::included(versions[last])));
      i = last + 1;
    }
    return runs.is_empty() ? set.to_string() : runs.to_string();
  }

 private:
  const Provider& provider_;
};

// root -> pyrax; pyrax 1.9.8 -> oslo, six; oslo 1.0.0 ... 1.14.0 -> msgpack >=9 (only 0.4 and
// 0.5 exist); oslo 0.9.0 -> legacy, which is unavailable. Every answer holds for its version
// alone (no widening), as the Python provider answers.
Provider pyrax_shaped() {
  Provider p;
  p.set_widening(Provider::Widening::kNone);
  p.add_dependencies("root", v(1), Deps{{"pyrax", SemRanges::full()}});
  p.add_dependencies("pyrax", v(1, 9, 8),
                     Deps{{"oslo", SemRanges::full()}, {"six", SemRanges::full()}});
  p.add_dependencies("six", v(1, 16), {});
  for (int minor = 0; minor <= 14; ++minor) {
    p.add_dependencies("oslo", v(1, minor), Deps{{"msgpack", SemRanges::higher_than(v(9))}});
  }
  p.add_dependencies("oslo", v(0, 9), Deps{{"legacy", SemRanges::full()}});
  p.add_unavailable("legacy", v(1), "it has no wheel for this target");
  p.add_dependencies("msgpack", v(0, 4), {});
  p.add_dependencies("msgpack", v(0, 5), {});
  return p;
}

std::string failure_report(Provider& p, bool redundant = true) {
  auto result = solve(p, std::string("root"), v(1));
  auto* failure = std::get_if<Unsolved>(&result);
  REQUIRE(failure != nullptr);
  failure->tree.collapse_no_versions();
  if (redundant) failure->tree.collapse_redundant_no_versions();
  return report(failure->tree, RegistryFormatter(p));
}

std::size_t line_count(const std::string& text) {
  return std::size_t(std::count(text.begin(), text.end(), '\n')) + 1;
}

}  // namespace

TEST_CASE("merge: versions with the same dependency read as one range", "[solver][merge]") {
  Provider p = pyrax_shaped();
  const std::string text = failure_report(p);
  INFO(text);
  CHECK(line_count(text) <= 12);
  // The fifteen versions are one fact, and the root cause is still named.
  CHECK(text.find("oslo >=1.0.0 <=1.14.0 depends on msgpack >=9.0.0") != std::string::npos);
  CHECK(text.find("no versions of msgpack match >=9.0.0") != std::string::npos);
  // The other branch: the oldest oslo needs the unavailable legacy.
  CHECK(text.find("legacy") != std::string::npos);
  CHECK(text.find("is unavailable because it has no wheel for this target") != std::string::npos);
  for (int minor = 1; minor <= 13; ++minor) {
    CHECK(text.find("oslo ==1." + std::to_string(minor) + ".0") == std::string::npos);
  }
  CHECK(text ==
        "Because no versions of msgpack match >=9.0.0 and oslo >=1.0.0 <=1.14.0 depends on "
        "msgpack >=9.0.0, oslo >=1.0.0 <=1.14.0 is forbidden.\n"
        "Because every version of legacy is unavailable because it has no wheel for this target "
        "and oslo ==0.9.0 depends on legacy, oslo ==0.9.0 is forbidden.\n"
        "Thus, oslo is forbidden.\n"
        "So, because pyrax ==1.9.8 depends on oslo and root depends on pyrax, version solving "
        "failed.");
}

TEST_CASE("merge: without the redundant-fact pass the range is still one line",
          "[solver][merge]") {
  Provider p = pyrax_shaped();
  const std::string text = failure_report(p, false);
  INFO(text);
  CHECK(line_count(text) <= 12);
  CHECK(text.find("oslo >=1.0.0 <=1.14.0 depends on msgpack >=9.0.0") != std::string::npos);
}

TEST_CASE("merge: versions unavailable for one reason are one fact", "[solver][merge]") {
  Provider p;
  p.set_widening(Provider::Widening::kNone);
  p.add_dependencies("root", v(1), Deps{{"a", SemRanges::full()}});
  for (int minor = 0; minor < 20; ++minor) p.add_unavailable("a", v(1, minor), "it needs Python 4");
  p.add_unavailable("a", v(2), "its metadata does not parse");
  auto result = solve(p, std::string("root"), v(1));
  auto* failure = std::get_if<Unsolved>(&result);
  REQUIRE(failure != nullptr);
  failure->tree.collapse_no_versions();
  failure->tree.collapse_redundant_no_versions();
  const std::string text = report(failure->tree, RegistryFormatter(p));
  INFO(text);
  CHECK(line_count(text) <= 3);
  CHECK(text.find("a >=1.0.0 <=1.19.0 is unavailable because it needs Python 4") !=
        std::string::npos);
  CHECK(text.find("a ==2.0.0 is unavailable because its metadata does not parse") !=
        std::string::npos);
}

TEST_CASE("merge: a merged fact still leaves the versions that work", "[solver][merge]") {
  // Versions 1.0 ... 1.9 need a missing c; 1.10 and 0.5 do not. Newest first: 1.10 is taken.
  Provider p;
  p.set_widening(Provider::Widening::kNone);
  p.add_dependencies("root", v(1), Deps{{"a", SemRanges::strictly_lower_than(v(1, 10))}});
  for (int minor = 0; minor < 10; ++minor) {
    p.add_dependencies("a", v(1, minor), Deps{{"c", SemRanges::full()}});
  }
  p.add_dependencies("a", v(1, 10), {});
  p.add_dependencies("a", v(0, 5), {});
  auto result = solve(p, std::string("root"), v(1));
  auto* solution = std::get_if<Solution<std::string, SemVer>>(&result);
  REQUIRE(solution != nullptr);
  CHECK(*solution->find("a") == v(0, 5));
}
