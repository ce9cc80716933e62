#include "lock/solve_target.h"

#include <algorithm>

#include "src/base/limits.h"
#include "src/base/str.h"
#include "solver/state_impl.h"

namespace wv::lock {
namespace {

using Package = PythonProvider::Package;
using Set = PythonProvider::Set;
using Tree = solver::DerivationTree<Package, Set, std::string>;

// PubGrub's English with Python names: packages by name (extras as `name[extra]`), a package
// and its versions as a requirement is written (`numpy>=2.2.6`), the provider's "no wheel for
// target ..." reasons as is, and a set that holds no listed version as what the index does
// list ("only numpy 1.26.4, 2.2.6 are available"), or that no index knows the project.
class PythonReportFormatter final
    : public solver::DefaultReportFormatter<Package, Set, std::string> {
 public:
  explicit PythonReportFormatter(const PythonProvider& provider) : provider_(provider) {}
  std::string package_text(const Package& package) const override {
    return provider_.package_text(package);
  }
  std::string set_text(const Package& package, const Set& set) const override {
    return provider_.set_text(package, set);
  }
  std::string term_text(const Package& package, const Set& set) const override {
    return provider_.package_text(package) + provider_.set_text(package, set);
  }
  std::string reason_text(const std::string& reason) const override { return reason; }

  std::string external(const Tree& tree, const Node& n) const override {
    if (n.kind == solver::NodeKind::kNoVersions && !holds_listed_version(n.package, n.set)) {
      return provider_.available_text(n.package);
    }
    if (is_unsatisfiable(n)) {
      // The requirement no listed version satisfies: what it asks and what exists.
      return str_cat(provider_.available_text(n.dependency), " and ",
                     subject(tree, n.package, n.set), " depends on ",
                     provider_.requirement_text(n.package, n.set, n.dependency));
    }
    return DefaultReportFormatter::external(tree, n);
  }

  std::string external_pair(const Tree& tree, const Node& a, const Node& b) const override {
    // "a depends on b which depends on c" has no room for what exists of c.
    if (is_unsatisfiable(a) || is_unsatisfiable(b)) {
      return external(tree, a) + " and " + external(tree, b);
    }
    return DefaultReportFormatter::external_pair(tree, a, b);
  }

 private:
  static bool is_unsatisfiable(const Node& n) {
    return n.kind == solver::NodeKind::kDependency && n.dependency_set.is_empty();
  }
  bool holds_listed_version(Package package, const Set& set) const {
    const ProjectListing* listing = provider_.listing(package);
    if (!listing) return true;
    for (std::size_t i = 0; i < listing->versions.size(); ++i) {
      if (set.contains(int(i))) return true;
    }
    return false;
  }

  const PythonProvider& provider_;
};

// The nodes of the proof the report reaches, each once, in the order of a depth-first walk
// from the root.
std::vector<std::size_t> reached_nodes(const Tree& tree) {
  std::vector<std::size_t> reached;
  std::vector<char> seen(tree.nodes.size(), 0);
  std::vector<std::size_t> stack{tree.root};
  while (!stack.empty()) {
    const std::size_t at = stack.back();
    stack.pop_back();
    if (seen[at]) continue;
    seen[at] = 1;
    reached.push_back(at);
    const Tree::Node& node = tree.nodes[at];
    if (!node.is_external()) {
      stack.push_back(node.cause1);
      stack.push_back(node.cause2);
    }
  }
  return reached;
}

// The packages whose "unavailable" facts in the proof are for lack of an installable file.
std::vector<std::string> without_installable_file(const Tree& tree,
                                                  const PythonProvider& provider) {
  std::vector<std::string> names;
  for (const std::size_t at : reached_nodes(tree)) {
    const Tree::Node& node = tree.nodes[at];
    if (node.kind != solver::NodeKind::kUnavailable) continue;
    if (!provider.lacks_installable_file(node.package, node.set)) continue;
    const std::string& name = provider.node(node.package).name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// The packages the report names: each reached node's terms, its subject and the dependency
// it states (an extra `x[e]` names its package `x`; the project, its extras and groups are no
// package).
std::set<std::string> named_packages(const Tree& tree, const PythonProvider& provider) {
  std::set<std::string> names;
  auto add = [&](Package package) {
    const Node& node = provider.node(package);
    if (node.kind == NodeKind::kPackage || node.kind == NodeKind::kPackageExtra) {
      names.insert(node.name);
    }
  };
  for (const std::size_t at : reached_nodes(tree)) {
    const Tree::Node& node = tree.nodes[at];
    for (const auto& [package, term] : node.terms) add(package);
    if (node.is_external()) add(node.package);
    if (node.kind == solver::NodeKind::kDependency) add(node.dependency);
  }
  return names;
}

}  // namespace

Result<std::variant<PythonSolution, Unsolvable>> solve_target(
    PythonProvider& provider, const std::vector<std::pair<Package, int>>& preferred,
    std::string_view target_name, std::uint64_t max_steps) {
  solver::SolveOptions<Package, int> options;
  options.preferred = preferred;
  options.max_steps = std::size_t(max_steps);
  auto outcome = solver::solve(provider, PythonProvider::kRoot, 0, options);
  if (auto* solution = std::get_if<0>(&outcome)) {
    return std::variant<PythonSolution, Unsolvable>(std::move(*solution));
  }
  if (auto* failure = std::get_if<2>(&outcome)) return std::move(failure->error);
  if (auto* stopped = std::get_if<3>(&outcome)) {
    return limit_error(Limit::kSolverSteps,
                       str_cat("the resolution of target ", in_backticks(target_name)),
                       std::nullopt, stopped->steps);
  }
  auto& no_solution = std::get<1>(outcome);
  no_solution.tree.collapse_no_versions();
  no_solution.tree.collapse_redundant_no_versions();
  PythonReportFormatter formatter(provider);
  Unsolvable unsolvable;
  unsolvable.explanation = solver::report(no_solution.tree, formatter);
  unsolvable.without_installable_file = without_installable_file(no_solution.tree, provider);
  unsolvable.named_packages = named_packages(no_solution.tree, provider);
  return std::variant<PythonSolution, Unsolvable>(std::move(unsolvable));
}

}  // namespace wv::lock
