// Oracle test: thousands of small seeded random registries, each solved by PubGrub and by
// brute force over every selection (pubgrub-rs tests/sat_dependency_provider.rs, without SAT).
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "solver/offline_provider.h"
#include "solver/report.h"
#include "solver/solve.h"
#include "solver/state_impl.h"

namespace {

using namespace wv::solver;
using R = Ranges<int>;
using Provider = OfflineProvider<std::string, int>;
using Deps = std::vector<std::pair<std::string, R>>;

struct Version {
  int number;
  bool available;
  Deps deps;
};
struct Package {
  std::string name;
  std::vector<Version> versions;
};
// Package 0 is the root (one version, 1). "ghost" may be required but has no versions.
struct Registry {
  std::vector<Package> packages;
};

R random_range(std::mt19937& rng) {
  std::uniform_int_distribution<int> shape(0, 6), point(0, 5);
  int a = point(rng), b = point(rng);
  switch (shape(rng)) {
    case 0:
      return R::full();
    case 1:
      return R::singleton(a);
    case 2:
      return R::higher_than(a);
    case 3:
      return R::strictly_lower_than(a);
    case 4:
      return R::between(std::min(a, b), std::max(a, b) + 1);
    case 5:
      return R::singleton(a).complement();
    default:
      return R::between(std::min(a, b), std::max(a, b)).union_with(R::singleton(5));
  }
}

Registry random_registry(std::mt19937& rng) {
  std::uniform_int_distribution<int> package_count(1, 5), version_count(0, 4), percent(0, 99);
  Registry reg;
  int n = package_count(rng);
  reg.packages.push_back({"root", {}});
  for (int i = 0; i < n; ++i) reg.packages.push_back({std::string(1, char('a' + i)), {}});
  for (std::size_t i = 0; i < reg.packages.size(); ++i) {
    Package& pkg = reg.packages[i];
    std::vector<int> numbers;
    if (i == 0) {
      numbers = {1};
    } else {
      for (int k = version_count(rng); k > 0; --k)
        numbers.push_back(std::uniform_int_distribution<int>(0, 5)(rng));
      std::sort(numbers.begin(), numbers.end());
      numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    }
    for (int number : numbers) {
      Version version{number, i == 0 || percent(rng) >= 10, {}};
      for (std::size_t j = 1; j < reg.packages.size(); ++j) {
        if (j == i) continue;
        if (percent(rng) < (i == 0 ? 60 : 30))
          version.deps.emplace_back(reg.packages[j].name, random_range(rng));
      }
      if (percent(rng) < 3) version.deps.emplace_back("ghost", random_range(rng));
      pkg.versions.push_back(std::move(version));
    }
  }
  return reg;
}

void fill(const Registry& reg, Provider& provider) {
  for (const Package& pkg : reg.packages) {
    for (const Version& version : pkg.versions) {
      if (version.available) {
        provider.add_dependencies(pkg.name, version.number, version.deps);
      } else {
        provider.add_unavailable(pkg.name, version.number, "it is yanked");
      }
    }
  }
}

const Version* find_version(const Registry& reg, const std::string& name, int number) {
  for (const Package& pkg : reg.packages) {
    if (pkg.name != name) continue;
    for (const Version& version : pkg.versions) {
      if (version.number == number) return &version;
    }
  }
  return nullptr;
}

// Every selection: -1 (not selected) or an index into the package's versions.
bool brute_force(const Registry& reg) {
  std::size_t n = reg.packages.size();
  std::vector<int> pick(n, -1);
  pick[0] = 0;
  std::function<bool(std::size_t)> search = [&](std::size_t i) -> bool {
    if (i == n) {
      for (std::size_t p = 0; p < n; ++p) {
        if (pick[p] < 0) continue;
        const Version& version = reg.packages[p].versions[pick[p]];
        if (!version.available) return false;
        for (const auto& [dep, range] : version.deps) {
          // Named copy: clang 14 cannot capture a structured binding in a lambda.
          const auto& wanted = dep;
          auto it = std::find_if(reg.packages.begin(), reg.packages.end(),
                                 [&](const Package& q) { return q.name == wanted; });
          if (it == reg.packages.end()) return false;  // ghost
          int q = static_cast<int>(it - reg.packages.begin());
          if (pick[q] < 0 || !range.contains(it->versions[pick[q]].number)) return false;
        }
      }
      return true;
    }
    for (int k = -1; k < static_cast<int>(reg.packages[i].versions.size()); ++k) {
      pick[i] = k;
      if (search(i + 1)) return true;
    }
    return false;
  };
  return search(1);
}

// An external fact of the tree must be true of the registry.
bool fact_holds(const Registry& reg,
                const DerivationTree<std::string, R, std::string>::Node& node) {
  auto versions_in = [&](const std::string& name, const R& set) {
    std::vector<const Version*> out;
    for (const Package& pkg : reg.packages) {
      if (pkg.name != name) continue;
      for (const Version& version : pkg.versions) {
        if (set.contains(version.number)) out.push_back(&version);
      }
    }
    return out;
  };
  switch (node.kind) {
    case NodeKind::kNotRoot:
      return node.package == "root" && node.set == R::singleton(1);
    case NodeKind::kNoVersions:
      return versions_in(node.package, node.set).empty();
    case NodeKind::kUnavailable:
      for (const Version* version : versions_in(node.package, node.set)) {
        if (version->available) return false;
      }
      return true;
    case NodeKind::kDependency:
      for (const Version* version : versions_in(node.package, node.set)) {
        if (!version->available) return false;
        auto it = std::find_if(version->deps.begin(), version->deps.end(),
                               [&](const auto& dep) { return dep.first == node.dependency; });
        if (it == version->deps.end() || !it->second.subset_of(node.dependency_set)) return false;
      }
      return true;
    case NodeKind::kDerived:
      return true;
  }
  return false;
}

// Every "(N)" a report refers to was given to an earlier line (which ends in ". (N)").
bool references_are_defined(const std::string& text) {
  std::vector<std::string> defined;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    std::string definition;
    std::size_t dot = line.rfind(". (");
    if (dot != std::string::npos && line.back() == ')') definition = line.substr(dot + 2);
    for (std::size_t open = line.find('('); open != std::string::npos;
         open = line.find('(', open + 1)) {
      std::size_t close = line.find(')', open);
      if (close == std::string::npos) break;
      std::string number = line.substr(open, close - open + 1);
      if (number.size() < 3 || number.find_first_not_of("0123456789", 1) != number.size() - 1)
        continue;
      if (open == dot + 2) continue;  // the line's own number
      if (std::find(defined.begin(), defined.end(), number) == defined.end()) return false;
    }
    if (!definition.empty()) defined.push_back(definition);
    start = end + 1;
  }
  return true;
}

int reports_with_line_numbers = 0;

void check_registry(const Registry& reg, Provider::Widening widening, std::uint32_t seed) {
  Provider provider;
  provider.set_widening(widening);
  fill(reg, provider);
  bool satisfiable = brute_force(reg);
  auto result = solve(provider, std::string("root"), 1);
  INFO("seed " << seed << " widening " << static_cast<int>(widening));
  REQUIRE_FALSE(std::holds_alternative<ProviderFailure<Provider::Error>>(result));
  if (auto* solution = std::get_if<Solution<std::string, int>>(&result)) {
    REQUIRE(satisfiable);
    REQUIRE(solution->packages.front() == std::pair<std::string, int>("root", 1));
    for (const auto& [name, number] : solution->packages) {
      const Version* version = find_version(reg, name, number);
      REQUIRE(version != nullptr);  // an existing version
      REQUIRE(version->available);
      for (const auto& [dep, range] : version->deps) {
        const int* chosen = solution->find(dep);
        REQUIRE(chosen != nullptr);
        REQUIRE(range.contains(*chosen));
      }
      // Nothing is selected that nobody needs.
      bool needed = name == "root";
      for (const auto& [other, other_number] : solution->packages) {
        for (const auto& dep : find_version(reg, other, other_number)->deps)
          needed |= dep.first == name;
      }
      REQUIRE(needed);
    }
  } else {
    auto& failure = std::get<NoSolution<std::string, R, std::string>>(result);
    REQUIRE_FALSE(satisfiable);
    for (const auto& node : failure.tree.nodes) {
      if (node.is_external()) REQUIRE(fact_holds(reg, node));
    }
    failure.tree.collapse_no_versions();
    for (const std::string& name : failure.tree.packages()) {
      bool known = name == "ghost" || std::any_of(reg.packages.begin(), reg.packages.end(),
                                                  [&](const Package& p) { return p.name == name; });
      REQUIRE(known);
    }
    std::string text = report(failure.tree);
    INFO(text);
    REQUIRE(text.size() > 0);
    REQUIRE(text.find("version solving failed.") != std::string::npos);
    REQUIRE(references_are_defined(text));
    if (text.find(". (1)") != std::string::npos) ++reports_with_line_numbers;
  }
}

}  // namespace

TEST_CASE("property: random registries agree with brute force", "[solver][property]") {
  int solved = 0, unsolved = 0;
  for (std::uint32_t seed = 1; seed <= 4000; ++seed) {
    std::mt19937 rng(seed);
    Registry reg = random_registry(rng);
    check_registry(reg, Provider::Widening::kRun, seed);
    check_registry(reg, Provider::Widening::kGap, seed);
    check_registry(reg, Provider::Widening::kNone, seed);
    (brute_force(reg) ? solved : unsolved) += 1;
  }
  // Both outcomes are well represented, so the test exercises conflicts and reports.
  CHECK(solved > 500);
  CHECK(unsolved > 500);
  // Some derivations branch (7 of these registries), so numbered lines and references are
  // exercised too.
  CHECK(reports_with_line_numbers > 0);
}
